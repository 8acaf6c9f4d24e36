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
