"""Sequential backward selection (SBS): drop, one at a time, the feature the model misses least."""

from numbers import Integral, Real

import numpy as np

from ..utils import Interval, IterationLog
from ._subset_search import _SubsetSearch, best_candidate

__all__ = ["SequentialBackwardSelection"]


class SequentialBackwardSelection(_SubsetSearch):
    """Sequential backward selection: remove features one by one, each time the least useful one.

    The notes' SBS (seeds 002 §6.4.2, Algorithm 6.6; backward elimination in 000 §9.1):

    1. start with all d features, F_d, and k = d;
    2. find f̂ = argmax_{f ∈ F_k} C(F_k − f), where the criterion C is the mean cross-validated
       score of the model on those features (higher is better);
    3. F_{k−1} = F_k − f̂, k = k − 1;
    4. stop when k equals ``k_features``, else go to 2.

    Ties go to the feature with the smallest index. Each step costs k cross-validations, the whole
    search about d²/2. The score of every subset on the way is kept, so the curve of score against
    subset size can be plotted and a size chosen from it. The cross-validation is scikit-learn's
    (``check_cv``, ``check_scoring``, ``cross_val_score``), and ``get_support``, ``transform``,
    ``inverse_transform`` and ``get_feature_names_out`` are those of its ``SelectorMixin``.
    For forward selection use scikit-learn's ``SequentialFeatureSelector``.

    Parameters
    ----------
    estimator : estimator object or None, default=None
        The model whose cross-validated score is the criterion; it is cloned, never fitted itself.
        None: ``lucidml.neighbors.KNeighborsClassifier(n_neighbors=5)`` for class labels (the
        notes' experiment), ``lucidml.linear.LinearRegression`` for other targets.
    k_features : int, float or None, default=None
        How many features to keep: an int in [1, d], a fraction of d in (0, 1], or None for
        half of them (at least one).
    scoring : str, callable or None, default=None
        A scikit-learn scorer; None uses the estimator's ``score`` (accuracy, R²).
    cv : int, cross-validation splitter or list of (train, test) index pairs, default=5
        An int is (stratified, for classifiers) K-fold.
    n_jobs : int or None, default=None
        Folds fitted in parallel by ``cross_val_score``.
    verbose : int, default=0
        1 or more prints ``Iteration t, removed = j, n_features = …, score = …`` after every
        removal (as in ``subsets_`` and ``scores_``) on standard output; 0 prints nothing.

    Attributes
    ----------
    support_ : ndarray of shape (n_features_in_,), dtype bool
        The selected features.
    k_features_ : int
        The number of features kept.
    subsets_ : list of tuple of int
        ``subsets_[i]``: the column indices kept after i removals (``subsets_[0]`` is every feature).
    scores_ : ndarray of shape (len(subsets_),)
        Mean cross-validated score of each subset.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from lucidml.model_selection import SequentialBackwardSelection
    >>> X, y = make_regression(n_samples=80, n_features=5, n_informative=2, noise=1.0,
    ...                        shuffle=False, random_state=0)
    >>> sbs = SequentialBackwardSelection(k_features=2, cv=3).fit(X, y)
    >>> sbs.get_support(indices=True).tolist()
    [0, 1]
    >>> [len(subset) for subset in sbs.subsets_]
    [5, 4, 3, 2]
    """

    _parameter_constraints = {
        **_SubsetSearch._parameter_constraints,
        "k_features": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0, 1, closed="right"),
                                 None],
    }

    def __init__(self, estimator=None, k_features=None, scoring=None, cv=5, *, n_jobs=None, verbose=0):
        self.estimator = estimator
        self.k_features = k_features
        self.scoring = scoring
        self.cv = cv
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _search(self, subset_score, n_features):
        target = self._target_size(n_features)
        kept = list(range(n_features))
        subsets, scores = [tuple(kept)], [subset_score(kept)]
        log = IterationLog(self.verbose)
        while len(kept) > target:
            dropped, score = best_candidate(subset_score, kept, lambda f: [g for g in kept if g != f])
            kept.remove(dropped)
            subsets.append(tuple(kept))
            scores.append(score)
            log.iteration(len(subsets) - 1, removed=dropped, n_features=len(kept), score=score)
        self.k_features_ = target
        self.subsets_ = subsets
        self.scores_ = np.asarray(scores)
        return kept

    def _target_size(self, n_features):
        wanted = self.k_features
        if wanted is None:
            return max(1, n_features // 2)
        if isinstance(wanted, Integral):
            if wanted > n_features:
                raise ValueError(f"k_features={wanted} exceeds the number of features, {n_features}.")
            return int(wanted)
        return max(1, int(wanted * n_features))
