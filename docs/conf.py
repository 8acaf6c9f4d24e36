"""Sphinx configuration of lucidml's documentation site.

Build it from the repository root with

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The API reference is generated from each subpackage's ``__all__`` (``docs/api/``, written at
build time), the gallery from ``examples/plot_*.py`` (run during the build), and the markdown
pages of ``docs/`` are read by MyST-Parser, so each page exists once.
"""

import importlib
import os
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# Prefer the checkout's source tree over an installed copy, so the docs describe this code.
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("OMP_NUM_THREADS", "1")

import lucidml  # noqa: E402

project = "lucidml"
author = "the lucidml developers"
copyright = "the lucidml developers"
release = lucidml.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "plain_math_docstrings",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "**.zip", "**.md5",
                    "**.codeobj.json"]
templates_path = ["_templates"]

# --- MyST: the markdown pages of docs/ (also doctested by tests/test_docstrings.py) -------------
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# --- API reference --------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()
numpydoc_xref_param_type = False

# The subpackages documented, one page each, with a one-line title.
API_PACKAGES = {
    "lucidml": "Top level: configuration, warm-up, model files",
    "lucidml.linear": "Linear models",
    "lucidml.svm": "Support vector machines",
    "lucidml.kernels": "Kernels and kernel methods",
    "lucidml.tree": "Decision trees",
    "lucidml.ensemble": "Ensembles",
    "lucidml.cluster": "Clustering",
    "lucidml.mixture": "Mixture models",
    "lucidml.decomposition": "Decompositions",
    "lucidml.neighbors": "Nearest neighbours",
    "lucidml.naive_bayes": "Naive Bayes",
    "lucidml.discriminant": "Discriminant analysis",
    "lucidml.gam": "Generalized additive models",
    "lucidml.neural": "Neural networks",
    "lucidml.rl": "Markov decision processes and reinforcement learning",
    "lucidml.graph": "Graphs",
    "lucidml.optim": "Optimizers and quadratic programming",
    "lucidml.metrics": "Metrics",
    "lucidml.model_selection": "Model selection: bias and variance, feature subsets, comparisons",
    "lucidml.preprocessing": "Preprocessing: outlier filtering, model-based imputation",
    "lucidml.theory": "Learning theory",
    "lucidml.stats": "Multivariate Gaussian helpers and fits",
    "lucidml.plot": "Plotting",
    "lucidml.io": "Model files",
    "lucidml.dask": "Data-parallel fitting on Dask",
    "lucidml.datasets": "Datasets",
    "lucidml.utils": "Utilities: the notes' small numerics, and helpers for developers",
}


def _public_names(module_name):
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
                 and getattr(v, "__module__", "").startswith(module_name)]
    # Constants (dicts of kernels, activations ...) have no docstring of their own to show.
    return sorted(n for n in names if callable(getattr(module, n)))


def _write_api_pages():
    """One reStructuredText page per subpackage: its docstring and an autosummary table."""
    api = HERE / "api"
    api.mkdir(exist_ok=True)
    lines = ["API reference", "=============", "",
             "Generated from each subpackage's ``__all__`` and the docstrings.", "",
             ".. toctree::", "   :maxdepth: 1", ""]
    for name, title in API_PACKAGES.items():
        lines.append(f"   {name}")
        heading = f"``{name}``: {title}"
        page = [heading, "=" * len(heading), "", f".. automodule:: {name}", "   :no-members:", "",
                f".. currentmodule:: {name}", "", ".. autosummary::", "   :toctree: generated/",
                "   :nosignatures:", ""]
        page += [f"   {n}" for n in _public_names(name)]
        _write_if_changed(api / f"{name}.rst", "\n".join(page) + "\n")
    _write_if_changed(api / "index.rst", "\n".join(lines) + "\n")


def _write_if_changed(path, text):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_write_api_pages()

_SKLEARN_REQUEST = re.compile(r"set_\w+_request$")


def _skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated ``set_*_request`` methods (metadata routing)."""
    if _SKLEARN_REQUEST.match(name):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)


# --- Gallery --------------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"make_examples\.py",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "plot_gallery": "True",
    "show_memory": False,
    "abort_on_example_error": True,
}

# --- HTML -----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"lucidml {release}"
html_static_path = []
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
