"""The splits of the notes' comparison: repeated random train/test splits, or K folds."""

from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target

__all__ = ["comparison_splits"]


def comparison_splits(y, *, n_splits=50, test_size=None, train_size=None, cv=None, stratify=True, random_state=0):
    """The (train, test) row indices that :func:`compare_models` uses, for a target ``y``.

    Random split i is ``train_test_split(range(n), test_size=…, train_size=…, random_state=s + i,
    stratify=y)`` for an int ``random_state`` s (seeds 002 §1.4); ``cv`` gives K-fold splits
    instead. The parameters are those of :func:`compare_models`; ``stratify`` applies when ``y``
    holds class labels (binary or multiclass).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    n_splits : int, default=50
    test_size, train_size : float in (0, 1), int or None, default=None
    cv : int, cross-validation splitter, iterable of (train, test) or None, default=None
    stratify : bool, default=True
    random_state : int, RandomState instance or None, default=0

    Returns
    -------
    list of (ndarray, ndarray)

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.model_selection import comparison_splits
    >>> y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    >>> [len(test) for _, test in comparison_splits(y, n_splits=3)]
    [3, 3, 3]
    >>> [np.bincount(y[test]).tolist() for _, test in comparison_splits(y, cv=5)]
    [[1, 1], [1, 1], [1, 1], [1, 1], [1, 1]]
    """
    y = np.asarray(y)
    rows = np.arange(len(y))
    labels = stratify and _is_labels(y)
    if cv is not None:
        if isinstance(cv, Integral) and not isinstance(cv, bool):
            if cv < 2:
                raise ValueError(f"cv must be at least 2 folds; got {cv!r}.")
            cv = (StratifiedKFold if labels else KFold)(n_splits=int(cv), shuffle=True, random_state=random_state)
        found = cv.split(rows.reshape(-1, 1), y) if hasattr(cv, "split") else cv
        splits = [(np.asarray(train), np.asarray(test)) for train, test in found]
        if not splits:
            raise ValueError("cv gave no splits.")
        return splits
    if isinstance(n_splits, bool) or not isinstance(n_splits, Integral) or n_splits < 1:
        raise ValueError(f"n_splits must be an integer ≥ 1; got {n_splits!r}.")
    for name, size in (("test_size", test_size), ("train_size", train_size)):
        if isinstance(size, Real) and not isinstance(size, Integral) and not 0 < size < 1:
            raise ValueError(f"{name} must be in (0, 1) as a fraction; got {size!r}.")
    if test_size is None and train_size is None:
        test_size = 0.3
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        seeds = [int(random_state) + i for i in range(n_splits)]
    else:
        seeds = check_random_state(random_state).randint(np.iinfo(np.int32).max, size=n_splits).tolist()
    return [tuple(train_test_split(rows, test_size=test_size, train_size=train_size, random_state=seed,
                                   stratify=y if labels else None))
            for seed in seeds]


def _is_labels(y):
    return type_of_target(y) in ("binary", "multiclass")
