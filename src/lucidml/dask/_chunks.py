"""Dask input handling and the map-then-tree-reduce pattern every ``lucidml.dask`` estimator uses.

Inputs are made into dask arrays chunked along the rows only (one chunk spans all the columns,
so that each chunk is a complete set of samples); ``y`` is aligned with X's row chunks. A fit
then runs a function on every row chunk *on the worker that holds it* (:func:`map_chunks`),
each returning a small summary (counts, means, scatter matrices, partial sums), and adds the
summaries up pairwise in a tree (:func:`tree_reduce`), so that only summaries travel and the
data are never gathered into one process. ``dask.compute`` runs the graph on the active
``dask.distributed`` client (or Dask's default scheduler when there is none).
"""

import warnings

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

__all__ = ["as_dask_X", "as_dask_y", "check_finite_chunk", "map_chunks", "tree_reduce", "compute"]


def _feature_names(columns):
    """Column names as scikit-learn keeps them: only when they are all strings."""
    names = np.asarray(list(columns), dtype=object)
    return names if len(names) and all(isinstance(name, str) for name in names) else None


def as_dask_X(X, name="X"):
    """X as a 2-D float dask array chunked along the rows only; return (X, feature names or None).

    A dask DataFrame becomes ``to_dask_array(lengths=True)`` (its partitions' lengths are counted,
    which reads the partitions but moves nothing); a NumPy array or pandas DataFrame becomes a
    dask array (``chunks="auto"`` along the rows). Chunks along the columns are merged into one
    (``rechunk``): every chunk must hold whole samples. Integer and boolean data become float64.
    """
    names = None
    if isinstance(X, dd.Series) or isinstance(X, pd.Series):
        raise ValueError(f"{name} must be 2-D (n_samples, n_features); got a Series. Use a DataFrame or "
                         "reshape it to one column.")
    if isinstance(X, dd.DataFrame):
        names = _feature_names(X.columns)
        X = X.to_dask_array(lengths=True)
    elif isinstance(X, pd.DataFrame):
        names = _feature_names(X.columns)
        X = da.from_array(X.to_numpy(), chunks=("auto", -1))
    elif not isinstance(X, da.Array):
        if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
            raise TypeError(f"{name} is a sparse matrix; lucidml.dask takes dense dask arrays.")
        X = np.asarray(X)
        if X.ndim != 2:  # (before from_array, whose chunks=("auto", -1) needs two axes)
            raise ValueError(f"{name} must be 2-D (n_samples, n_features); got an array of shape {X.shape}. "
                             "Reshape a single feature with X.reshape(-1, 1).")
        X = da.from_array(X, chunks=("auto", -1))
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features); got a dask array of shape {X.shape}.")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(f"{name} has unknown chunk sizes along the rows (after a filter, say); call "
                         f"{name}.compute_chunk_sizes() first, or pass a dask DataFrame.")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {X.shape}.")
    if X.dtype.kind in "biu":
        X = X.astype(np.float64)
    elif X.dtype.kind != "f":
        raise TypeError(f"{name} must hold numbers; got dtype {X.dtype}.")
    elif X.dtype == np.float16:
        X = X.astype(np.float32)
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    empty = [i for i, c in enumerate(X.chunks[0]) if c == 0]
    if empty:  # an empty partition of a data frame: drop it, its chunk functions would see no rows
        keep = [c for c in X.chunks[0] if c > 0]
        X = X.rechunk({0: tuple(keep)}) if keep else X
    return X, names


def as_dask_y(y, X, name="y"):
    """y as a dask array whose row chunks are X's: (n_samples,) or (n_samples, n_targets).

    A dask Series or DataFrame is converted with its partition lengths; y with other row chunks
    than X is rechunked to X's (the rows move between workers once; nothing is gathered).
    """
    if isinstance(y, (dd.Series, dd.DataFrame)):
        with warnings.catch_warnings():  # pandas' string dtype becomes object labels: what we want
            warnings.filterwarnings("ignore", "Dask currently has limited support for converting pandas extension")
            y = y.to_dask_array(lengths=True)
    elif isinstance(y, (pd.Series, pd.DataFrame)):
        y = da.from_array(y.to_numpy(), chunks=-1)
    elif not isinstance(y, da.Array):
        y = da.from_array(np.asarray(y), chunks=-1)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D (or 2-D for several targets); got shape {y.shape}.")
    if any(np.isnan(c) for c in y.chunks[0]):
        raise ValueError(f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first, or pass a "
                         "dask Series.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and {name} have different numbers of samples: {X.shape[0]} and {y.shape[0]}.")
    if y.chunks[0] != X.chunks[0] or (y.ndim == 2 and len(y.chunks[1]) > 1):
        y = y.rechunk({0: X.chunks[0], **({1: -1} if y.ndim == 2 else {})})
    return y


def check_finite_chunk(X, name="X"):
    """Raise ValueError if a chunk holds NaN or infinity (runs on the worker, inside the chunk's task)."""
    if not np.isfinite(X).all():
        kind = "NaN" if np.isnan(X).any() else "infinity"
        raise ValueError(f"Input {name} contains {kind}; lucidml.dask estimators need finite values.")


def map_chunks(func, X, y=None, *args, numbered=False):
    """``func(X_chunk[, y_chunk], *args)`` on every row chunk, as delayed tasks (one per chunk);
    with ``numbered``, the chunk's index follows as one more argument.

    The small ``args`` (centres, means, coefficients) are embedded in the graph; the chunks stay
    where they are and ``func`` runs next to them.
    """
    X_blocks = X.to_delayed().ravel()
    task = dask.delayed(func, pure=True)
    blocks = [(block,) for block in X_blocks] if y is None else zip(X_blocks, y.to_delayed().ravel())
    return [task(*chunk, *args, *((i,) if numbered else ())) for i, chunk in enumerate(blocks)]


def tree_reduce(parts, combine):
    """Combine delayed summaries pairwise, ``combine(a, b)``, in a tree of depth ⌈log₂ chunks⌉;
    one delayed result."""
    step = dask.delayed(combine, pure=True)
    while len(parts) > 1:
        parts = [step(*parts[i : i + 2]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def compute(*values):
    """``dask.compute`` on the active client (or Dask's default scheduler)."""
    return dask.compute(*values)


def check_n_features(estimator, X):
    """The number of columns of new data must be the number seen in fit."""
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
                         f"{estimator.n_features_in_} features as input.")

