"""Stepwise (forward–backward) feature selection."""

from numbers import Real

import numpy as np

from ..utils import Interval, IterationLog
from ._subset_search import _SubsetSearch, best_candidate

__all__ = ["StepwiseSelection"]


class StepwiseSelection(_SubsetSearch):
    """Stepwise selection: add the best feature, then drop features while that helps; repeat.

    The notes' stepwise regression (seeds 000 §9.1) alternates forward selection and backward
    elimination, each until its stopping criterion. With S the selected columns and C(S) the mean
    cross-validated score of the model on them (higher is better; C(∅) = −∞):

    1. forward: f̂ = argmax_{f ∉ S} C(S + f); if C(S + f̂) > C(S) + tol, add f̂, else stop;
    2. backward: while |S| > 1, ĝ = argmax_{g ∈ S} C(S − g); if C(S − ĝ) > C(S) + tol, drop ĝ,
       else leave the backward phase; then go back to 1.

    Every accepted move raises C(S) by more than ``tol`` ≥ 0, so no subset is visited twice and
    the search ends. Ties go to the smallest column index. The cross-validation is
    scikit-learn's (``check_cv``, ``check_scoring``, ``cross_val_score``), and ``get_support``,
    ``transform`` and ``get_feature_names_out`` are those of its ``SelectorMixin``.

    Parameters
    ----------
    estimator : estimator object or None, default=None
        The model whose cross-validated score is the criterion; it is cloned, never fitted itself.
        None: ``lucidml.neighbors.KNeighborsClassifier(n_neighbors=5)`` for class labels,
        ``lucidml.linear.LinearRegression`` for other targets.
    tol : float, default=0.0
        A move is taken only if it raises the score by more than ``tol`` (≥ 0).
    scoring : str, callable or None, default=None
        A scikit-learn scorer; None uses the estimator's ``score`` (accuracy, R²).
    cv : int, cross-validation splitter or list of (train, test) index pairs, default=5
    n_jobs : int or None, default=None
        Folds fitted in parallel by ``cross_val_score``.
    verbose : int, default=0
        1 or more prints ``Iteration t, add = j, n_features = …, score = …`` (or ``remove = j``)
        after every move (as in ``moves_`` and ``scores_``) on standard output; 0 prints nothing.

    Attributes
    ----------
    support_ : ndarray of shape (n_features_in_,), dtype bool
    moves_ : list of tuple (str, int)
        The path: ``("add", j)`` or ``("remove", j)`` in the order taken.
    subsets_ : list of tuple of int
        The selected columns after each move.
    scores_ : ndarray of shape (len(moves_),)
        Mean cross-validated score after each move (increasing).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from lucidml.model_selection import StepwiseSelection
    >>> X, y = make_regression(n_samples=80, n_features=6, n_informative=2, noise=1.0,
    ...                        shuffle=False, random_state=0)
    >>> stepwise = StepwiseSelection(tol=1e-3, cv=3).fit(X, y)
    >>> stepwise.get_support(indices=True).tolist()
    [0, 1]
    >>> [move for move, _ in stepwise.moves_]
    ['add', 'add']
    """

    _parameter_constraints = {**_SubsetSearch._parameter_constraints, "tol": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, estimator=None, *, tol=0.0, scoring=None, cv=5, n_jobs=None, verbose=0):
        self.estimator = estimator
        self.tol = tol
        self.scoring = scoring
        self.cv = cv
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _search(self, subset_score, n_features):
        selected, current = [], -np.inf
        moves, subsets, scores = [], [], []
        log = IterationLog(self.verbose)

        def take(move, feature, score):
            moves.append((move, int(feature)))
            subsets.append(tuple(selected))
            scores.append(score)
            log.iteration(len(moves), **{move: int(feature)}, n_features=len(selected), score=score)

        while len(selected) < n_features:
            outside = [f for f in range(n_features) if f not in selected]
            added, score = best_candidate(subset_score, outside, lambda f: sorted([*selected, f]))
            if not score > current + self.tol:
                break
            selected = sorted([*selected, added])
            current = score
            take("add", added, score)
            while len(selected) > 1:
                dropped, score = best_candidate(subset_score, selected, lambda g: [h for h in selected if h != g])
                if not score > current + self.tol:
                    break
                selected = [h for h in selected if h != dropped]
                current = score
                take("remove", dropped, score)
        self.moves_, self.subsets_, self.scores_ = moves, subsets, np.asarray(scores)
        return selected
