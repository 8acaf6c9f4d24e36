"""lucidml: classical machine learning from first principles, scikit-learn compatible.

The algorithms live in subpackages (``lucidml.linear``, ``lucidml.naive_bayes``, ...);
:func:`all_estimators` lists every public estimator; :func:`set_config` and
:func:`config_context` say how many threads lucidml may use; :func:`save` and :func:`load` keep a
fitted model in a safe ``.lucid`` file (``lucidml.io``); :func:`warmup` compiles the kernels
ahead of use.
"""

__version__ = "0.1.0"

from ._config import config_context, get_config, set_config

__all__ = ["all_estimators", "config_context", "get_config", "load", "save", "set_config", "warmup", "__version__"]


def __getattr__(name):
    # Loaded on first use: ``import lucidml`` stays light (no scikit-learn, no Numba).
    if name == "warmup":
        from ._warmup import warmup

        return warmup
    if name in ("io", "save", "load"):
        from importlib import import_module

        io = import_module("lucidml.io")  # not ``from . import io``: that would call back here
        return io if name == "io" else getattr(io, name)
    raise AttributeError(f"module 'lucidml' has no attribute {name!r}")


def all_estimators(type_filter=None):
    """Return ``(name, class)`` for every public lucidml estimator, sorted by name.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "cluster", "transformer", "density"} or list of them, default=None
        Keep only estimators of these kinds. None keeps all.

    Examples
    --------
    >>> from lucidml import all_estimators
    >>> names = [name for name, _ in all_estimators("regressor")]
    >>> "LinearRegression" in names and "KMeans" not in names
    True
    """
    from .registry import entries

    return [(entry.name, entry.load()) for entry in entries(type_filter)]
