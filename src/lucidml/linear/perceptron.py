"""Rosenblatt's perceptron, plain or averaged."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np

from ..utils import VERBOSE, Interval
from ._online_base import _OnlineLinearClassifier
from ._online_kernels import Averaging, Weights, perceptron_epoch


class Perceptron(_OnlineLinearClassifier):
    """The perceptron: a linear classifier trained by correcting its mistakes one sample at a time.

    With labels y ∈ {−1, +1}, z = w·x + b and prediction ŷ = +1 iff z ≥ 0, Rosenblatt's rule
    visits the samples in turn and, whenever y·z ≤ 0 (a mistake; z = 0 counts as one),

        w ← w + η y x,    b ← b + η y

    starting from w = 0, b = 0 (seeds: 002 §3.2, Alg 3.4 and perceptron.py; 001 §5; 000 §1.5;
    003 §3.2; 004 §3). It is stochastic gradient descent on the perceptron loss
    max(0, −y z) (001 §5). The notes' form Δw = η (y − ŷ) x equals 2ηyx on a mistake and 0
    otherwise, so it is this rule with η doubled. From zero weights every w and b is η times
    a sum of ±xᵢ (the same mistakes happen for every η), so η only scales ``coef_`` and
    ``intercept_``, averaged or not: the predictions do not depend on it.

    If the data are linearly separable with margin γ (some unit ŵ has yᵢ ŵ·xᵢ ≥ γ) and
    ‖xᵢ‖ ≤ R, the perceptron makes at most R²/γ² mistakes (002 Thm 3.8; with an intercept,
    read x as (x, 1)), so some epoch is mistake-free and training stops there. Otherwise it
    never settles (XOR is the classic case) and ``max_iter`` caps the epochs; ``average``
    then helps: the averaged perceptron predicts with the mean of w over the steps
    (002 §3.2.3).

    Stopping: after an epoch with no mistake (001 §5); when ``tol`` is not None, also after
    ``n_iter_no_change`` epochs in a row whose mean perceptron loss stayed above
    (best so far − tol) (scikit-learn's rule); else at ``max_iter`` with a ConvergenceWarning.
    Classes k ≥ 3 are k independent one-vs-rest problems, each stopping on its own; they
    share the sample order of each epoch.

    Defaults follow the notes (002 perceptron.py: η = 0.01, 10 epochs, data in the given
    order). scikit-learn's ``Perceptron()`` defaults are reproduced by
    ``Perceptron(eta0=1.0, max_iter=1000, tol=1e-3, shuffle=True)``; with ``shuffle=False``
    the two then return the same ``coef_``, bit for bit. (Differences: scikit-learn predicts +
    only at z > 0; after a mistake-free epoch it runs up to ``n_iter_no_change`` more epochs,
    which leave w unchanged but, with averaging, weigh the final w more in the mean; its
    ``average`` lives on ``SGDClassifier(loss="perceptron")``, not on its ``Perceptron``.)

    Parameters
    ----------
    eta0 : float, default=0.01
        The learning rate η > 0 (scikit-learn's name).
    max_iter : int, default=10
        The largest number of epochs (passes over the data) in ``fit``.
    tol : float or None, default=None
        Stop a problem when its epoch loss has not fallen by ``tol`` below the best so far
        for ``n_iter_no_change`` epochs. None: stop only after a mistake-free epoch or at
        ``max_iter``, as the notes' loops do.
    n_iter_no_change : int, default=5
        See ``tol``.
    shuffle : bool, default=False
        Visit the samples in a new random order every epoch.
    average : bool or int, default=False
        True: predict with the mean of w (and b) over all steps, one step per sample visited,
        mistakes or not (as scikit-learn). An int r₀ ≥ 1: average over steps r₀, r₀+1, ...
        (the last part of training); until step r₀ the plain weights are used.
    fit_intercept : bool, default=True
        Learn b; if False, b = 0.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling.
    verbose : int, default=0
        1 or more prints ``Iteration t, loss = …`` after every epoch (the mean over the
        one-vs-rest problems, as in ``loss_curve_``) and how training stopped, on standard
        output; 0 prints nothing.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        w (averaged when ``average`` is set); one row for two classes, one per class otherwise.
        In X's precision: float32 for a float32 X (the steps are summed in float64).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        b, in X's precision.
    n_iter_ : int
        Epochs run by the last ``fit`` (the largest over the one-vs-rest problems; 1 after
        ``partial_fit``).
    loss_curve_ : ndarray of shape (n_epochs,)
        Mean perceptron loss (1/n) Σ sᵢ max(0, −yᵢzᵢ) of each epoch, measured as the epoch
        runs, averaged over the one-vs-rest problems (``partial_fit`` appends one entry).
    mistake_curve_ : ndarray of shape (n_epochs,)
        Number of mistakes (updates) in each epoch, summed over the problems.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear.perceptron import Perceptron
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    >>> y_and = np.array([0, 0, 0, 1])
    >>> clf = Perceptron(eta0=1.0, max_iter=100).fit(X, y_and)
    >>> clf.predict(X)
    array([0, 0, 0, 1])
    >>> int(clf.mistake_curve_[-1])  # training stopped after a mistake-free epoch
    0
    """

    _has_own_stopping_rule = True  # a mistake-free epoch
    _advice = "increase max_iter, or note that the data may not be linearly separable (try average=True)."

    _parameter_constraints: ClassVar[dict] = {
        "eta0": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "average": ["boolean", Interval(Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(
        self,
        *,
        eta0=0.01,
        max_iter=10,
        tol=None,
        n_iter_no_change=5,
        shuffle=False,
        average=False,
        fit_intercept=True,
        random_state=None,
        verbose=0,
    ):
        self.eta0 = eta0
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.average = average
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.verbose = verbose

    def _start_state(self, n_problems, n_features):
        self._coef = np.zeros((n_problems, n_features))
        self._intercept = np.zeros(n_problems)
        self._lagged_coef = np.zeros((n_problems, n_features))
        self._lagged_intercept = np.zeros(n_problems)
        self._steps = np.zeros(n_problems, dtype=np.int64)
        self._mistake_history = []

    def _epoch_args(self, rows):
        weights = Weights(self._coef, self._intercept, self._steps)
        averaging = Averaging(int(self.average), self._lagged_coef, self._lagged_intercept)
        return weights, float(self.eta0), self.fit_intercept, averaging

    def _run_epoch(self, rows, order, active, args):
        loss, mistakes = perceptron_epoch(rows, order, active, *args)
        self._mistake_history.append(int(mistakes.sum()))
        self.mistake_curve_ = np.array(self._mistake_history)
        return loss / rows.X.shape[0], mistakes == 0

    def _coef_intercept(self):
        """w and b, or their means over the averaging window (w − lagged/K, see the kernel)."""
        if not self.average:
            return self._coef.copy(), self._intercept.copy()
        window = (self._steps - int(self.average) + 1).astype(np.float64)
        started = window > 0
        window[~started] = 1.0
        coef = np.where(started[:, None], self._coef - self._lagged_coef / window[:, None], self._coef)
        intercept = np.where(started, self._intercept - self._lagged_intercept / window, self._intercept)
        return coef, intercept
