"""Test-wide settings.

SCIPY_ARRAY_API must be set before SciPy is first imported: without it scikit-learn skips its
``check_array_api_input`` estimator check instead of running it.

LUCIDML_KERNEL_TIER=compiled: the tests' small fits would otherwise run interpreted until each
kernel is compiled (see ``lucidml.utils._numba``), and the machine code is what most users run;
``tests/utils/test_kernel_tiers.py`` checks the interpreted tier against it. Subprocesses the
tests start inherit the setting unless they set their own.

LUCIDML_BACKGROUND_COMPILE=0: no child processes compiling kernels behind the tests' backs
(``lucidml.utils._background_compile``); its own tests turn it on where they need it.
"""

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")
os.environ.setdefault("LUCIDML_KERNEL_TIER", "compiled")
os.environ.setdefault("LUCIDML_BACKGROUND_COMPILE", "0")


# The documentation build (tests/test_docs_build.py) is one test of about nine minutes on a core:
# Sphinx runs every gallery example. Under the README's ``-n auto --dist loadfile`` pytest-xdist
# hands whole files to its workers, by default largest file (most tests) first, so the docs build
# started last and ended every run alone on one core. These two hooks start it first instead:
# xdist keeps the collection order, in which the docs build leads and the other files follow
# largest first, as xdist would order them.
LONGEST_FIRST = ("test_docs_build.py",)


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist is installed
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    tests_per_file = {}
    for item in items:
        tests_per_file[item.path] = tests_per_file.get(item.path, 0) + 1

    def order(item):
        return item.path.name not in LONGEST_FIRST, -tests_per_file[item.path], str(item.path)

    items.sort(key=order)  # stable: a file's tests keep their order
