"""Compile lucidml's kernels ahead of use and keep them in Numba's on-disk cache (``lucidml warmup``).

A new install compiles each kernel the first time a fit needs it (small first calls run
interpreted meanwhile, see ``lucidml.utils._numba``). Container images, CI jobs and shared
machines can pay that once, up front: :func:`warmup` fits every registered estimator (or the
named ones) on a small data set in the ``compiled`` kernel tier and predicts with it, so every
kernel of those default paths is compiled and cached. The tree models fit twice: a table of
continuous columns is presorted, one of binary columns (one-hot codes) sorted at the nodes, and
the exact search compiles the two apart (``lucidml.tree``).
"""

import warnings

__all__ = ["warmup"]


def warmup(models=None, progress=None):
    """Compile and cache the kernels of the registered estimators (or of ``models``, a list of names).

    Each estimator is fitted with its comparison parameters on wine (diabetes for regressors),
    scaled to [0, 1], and then predicts (or transforms, or scores) that data, with every kernel compiled;
    the tree models also on the same table made binary (``X > 0.5``), which their exact search
    sorts at the nodes rather than presorting.
    ``progress(done, total, name)`` is called before each estimator and once at the end.
    Returns the names warmed up. Raises ``ValueError`` for an unknown name.

    Examples
    --------
    >>> from lucidml import warmup
    >>> warmup(["GaussianNB"])
    ['GaussianNB']
    """
    from sklearn.exceptions import ConvergenceWarning

    from ._registry_trees import TREE_ENTRIES
    from .datasets import load
    from .registry import entries, get_entry
    from .utils import kernel_tier

    try:
        chosen = list(entries()) if models is None else [get_entry(name) for name in models]
    except KeyError as error:
        raise ValueError(error.args[0]) from None
    data = {}
    with kernel_tier("compiled"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a short fit on small data is enough here
        for done, entry in enumerate(chosen):
            if progress is not None:
                progress(done, len(chosen), entry.name)
            name = "diabetes" if entry.kind == "regressor" else "wine"
            if name not in data:
                X, y = load(name)
                # In [0, 1]: fine for every model (the online learners overflow on raw wine, the
                # counts models refuse negative values).
                data[name] = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0)), y
            X, y = data[name]
            for table in (X, (X > 0.5).astype(X.dtype)) if entry in TREE_ENTRIES else (X,):
                model = entry.make().fit(table, y)
                method = next((m for m in ("predict", "transform", "score_samples") if hasattr(model, m)), None)
                if method is not None:
                    getattr(model, method)(table)
    if progress is not None:
        progress(len(chosen), len(chosen), "")
    return [entry.name for entry in chosen]
