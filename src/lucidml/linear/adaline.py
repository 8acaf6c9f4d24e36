"""Adaline (ADAptive LInear NEuron): least squares on ±1 targets, by gradient descent."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse

from ..utils import VERBOSE, Interval, Options
from ._online_base import _OnlineLinearClassifier
from ._online_kernels import Schedule, Weights, adaline_batch_step, adaline_minibatch_epoch


class Adaline(_OnlineLinearClassifier):
    """Widrow and Hoff's Adaline: a linear classifier trained as least squares on ±1 targets.

    With targets yᵢ ∈ {−1, +1}, z = w·x + b and the identity as activation during training,
    Adaline minimizes the mean squared error (seeds: 002 §3.3, Alg 3.11, (3.12)–(3.19);
    003 §2.1, the LMS rule)

        J(w, b) = 1/(2n) Σᵢ sᵢ (yᵢ − zᵢ)²          (sᵢ = sample weight, 1 by default)

    by gradient steps, and predicts by the sign: + iff z ≥ 0. ``solver`` picks the steps:

        "batch":      w ← w + η/n Σᵢ sᵢ (yᵢ − zᵢ) xᵢ,   b ← b + η/n Σᵢ sᵢ (yᵢ − zᵢ)   (one per epoch)
        "sgd":        w ← w + η sᵢ (yᵢ − zᵢ) xᵢ,        b ← b + η sᵢ (yᵢ − zᵢ)        (each sample)
        "minibatch":  the batch step on ``batch_size`` samples at a time (Def 3.16)

    The notes' (3.15) sums the gradient over all n samples instead of averaging it, so their
    learning rate α is ``eta0 = α·n`` here (the mean form (3.19) of Exercise 3.4, which keeps
    a good η independent of n). J is a convex quadratic: for η below 2/L, L the largest
    eigenvalue of (1/n) Σ sᵢ (xᵢ, 1)(xᵢ, 1)ᵀ, the batch steps converge to the least-squares
    solution, the same w and b as a linear regression on the ±1 targets. The per-sample and
    mini-batch steps follow noisy gradients: with a constant η they end in a neighbourhood of
    that solution whose size grows with η, and a decaying η lets them approach it. Features on
    very different scales make L large and convergence slow; ``standardize=True`` rescales
    them (002 §3.3.2, (3.16)).

    The learning rate at update k = 0, 1, 2, ... (one update per step above) is

        "constant":    η_k = eta0
        "invscaling":  η_k = eta0 / ((k + t0)/t0)^power_t

    With t0 = 1 this is scikit-learn's ``invscaling``, eta0 / t^power_t with t = k + 1; with
    power_t = 1 it is the notes' η_k = c₁/(k + c₂) (002 §3.3.2) for t0 = c₂, eta0 = c₁/c₂.

    Classes k ≥ 3 are k independent one-vs-rest problems (targets +1 for the class, −1 for
    the rest), trained in one pass per epoch in the same sample order, each stopping on its own. ``fit`` stops a problem
    when its epoch loss has not fallen by ``tol`` below the best so far for
    ``n_iter_no_change`` epochs (scikit-learn's rule), and warns with ConvergenceWarning at
    ``max_iter``. With ``solver="sgd"`` and ``shuffle=False`` the steps are those of
    scikit-learn's ``SGDClassifier(loss="squared_error", penalty=None, learning_rate=...,
    eta0=..., shuffle=False)``, which however predicts + only at z > 0.

    Parameters
    ----------
    solver : {"batch", "sgd", "minibatch"}, default="sgd"
        Full-gradient steps, one step per sample, or one step per mini-batch.
    eta0 : float or "auto", default="auto"
        The (initial) learning rate η > 0. ``"auto"``: η = 1 / maxᵢ ‖(xᵢ, 1)‖² over the training
        rows (standardized if ``standardize``; of the first batch for ``partial_fit``), the rate at
        which a per-sample step moves zᵢ at most onto its target, and below 2/L for the batch
        steps, so that the default fit does not diverge on unscaled features; with sample weights
        above 1, divided by the largest of each call's weights (by their mean for ``"batch"``).
    learning_rate : {"constant", "invscaling"}, default="constant"
        The schedule of η, see above.
    power_t : float, default=0.5
        The exponent of the ``invscaling`` schedule.
    t0 : float, default=1.0
        The offset of the ``invscaling`` schedule: η halves (for power_t = 1) after t0 updates.
    batch_size : int, default=32
        Samples per step for ``solver="minibatch"`` (the last batch of an epoch may be smaller).
    max_iter : int, default=1000
        The largest number of epochs (passes over the data; for ``"batch"``, steps).
    tol : float or None, default=1e-4
        See above; None runs all ``max_iter`` epochs, without a warning.
    n_iter_no_change : int, default=5
        See ``tol``.
    shuffle : bool, default=True
        Visit the samples in a new random order every epoch (``"sgd"`` and ``"minibatch"``).
    standardize : bool, default=False
        Train on features centred and scaled to unit variance with the statistics of the
        training data (of the first batch for ``partial_fit``); ``coef_`` and ``intercept_``
        are given for the original features.
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
        w for the original features; one row for two classes, one per class otherwise.
        In X's precision: float32 for a float32 X (the steps are summed in float64).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        b, in X's precision.
    n_iter_ : int
        Epochs run by the last ``fit`` (the largest over the one-vs-rest problems; 1 after
        ``partial_fit``).
    loss_curve_ : ndarray of shape (n_epochs,)
        J of each epoch, averaged over the one-vs-rest problems (``partial_fit`` appends one
        entry). For ``"batch"`` J at the start of the step; for ``"sgd"``/``"minibatch"`` the
        mean of each sample's loss taken just before its update (no extra pass over the data).
    eta0_ : float
        The (initial) learning rate used: ``eta0``, or its ``"auto"`` value.
    mean_, scale_ : ndarray of shape (n_features,)
        The training means and standard deviations (only with ``standardize=True``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear.adaline import Adaline
    >>> X = np.array([[1.0, 2.0], [2.0, 1.0], [2.0, 3.0], [6.0, 5.0], [7.0, 7.0], [8.0, 6.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = Adaline(solver="batch", eta0=0.5, standardize=True, tol=1e-10).fit(X, y)
    >>> clf.predict([[1.5, 1.5], [7.0, 6.0]])
    array([0, 1])
    >>> # batch gradient descent reaches the least-squares fit on the ±1 targets
    >>> A = np.column_stack([X, np.ones(len(X))])
    >>> w = np.linalg.lstsq(A, np.where(y == 1, 1.0, -1.0), rcond=None)[0]
    >>> bool(np.allclose(clf.coef_[0], w[:2], atol=1e-4) and np.isclose(clf.intercept_[0], w[2], atol=1e-4))
    True
    """

    _advice = "increase max_iter or eta0 (below 2/L, see the docstring), or set standardize=True."
    _finite_loss = True

    def _loss_rose(self):
        """Full-gradient steps below 2/L lower J at every epoch: a J above the first epoch's means a step
        beyond it (eta0=2.5 took J from 0.5 to 317 in 5 epochs, and the no-gain rule called that converged)."""
        history = self._loss_history
        return self.solver == "batch" and len(history) > 1 and history[-1] > history[0] * (1 + 1e-9)

    _parameter_constraints: ClassVar[dict] = {
        "solver": [Options({"batch", "sgd", "minibatch"})],
        "eta0": [Interval(Real, 0, None, closed="neither"), Options({"auto"})],
        "learning_rate": [Options({"constant", "invscaling"})],
        "power_t": [Interval(Real, 0, None, closed="left")],
        "t0": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "standardize": ["boolean"],
        "fit_intercept": ["boolean"],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(
        self,
        *,
        solver="sgd",
        eta0="auto",
        learning_rate="constant",
        power_t=0.5,
        t0=1.0,
        batch_size=32,
        max_iter=1000,
        tol=1e-4,
        n_iter_no_change=5,
        shuffle=True,
        standardize=False,
        fit_intercept=True,
        random_state=None,
        verbose=0,
    ):
        self.solver = solver
        self.eta0 = eta0
        self.learning_rate = learning_rate
        self.power_t = power_t
        self.t0 = t0
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.standardize = standardize
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.verbose = verbose

    def _set_scaling(self, X):
        if self.standardize and scipy.sparse.issparse(X):
            raise TypeError("Adaline(standardize=True) cannot take sparse data: centring would densify it, so dense "
                            "data is required. Pass X.toarray(), or scale the sparse X with MaxAbsScaler or "
                            "StandardScaler(with_mean=False) and use standardize=False.")
        if self.standardize:
            self.mean_ = X.mean(axis=0)
            scale = X.std(axis=0)
            self.scale_ = np.where(scale > 0, scale, 1.0)  # a constant feature stays as it is
        self.eta0_ = float(self.eta0) if self.eta0 != "auto" else _auto_rate(self._prepare(X), self.fit_intercept)

    def _prepare(self, X):
        if not self.standardize:
            return X
        return (X - self.mean_) / self.scale_

    def _start_state(self, n_problems, n_features):
        self._coef = np.zeros((n_problems, n_features))
        self._intercept = np.zeros(n_problems)
        self._steps = np.zeros(n_problems, dtype=np.int64)

    def _epoch_args(self, rows):
        power_t = 0.0 if self.learning_rate == "constant" else float(self.power_t)
        batch_size = 1 if self.solver == "sgd" else int(min(int(self.batch_size), rows.X.shape[0]))
        # With sample weights a step is η·sᵢ: the auto rate divided by the largest weight above 1, so
        # that a step still moves zᵢ at most onto its target (weights of 30 diverged to |w| ≈ 1e261).
        self._rate = self.eta0_
        if self.eta0 == "auto":  # (a full-gradient step averages the weights: its bound L grows with their mean)
            heaviest = np.mean(rows.weight) if self.solver == "batch" else np.max(rows.weight, initial=1.0)
            self._rate /= max(1.0, float(heaviest))
        schedule = Schedule(batch_size, self._rate, power_t, float(self.t0))
        return Weights(self._coef, self._intercept, self._steps), schedule

    def _run_epoch(self, rows, order, active, args):
        weights, schedule = args
        if self.solver == "batch":
            loss = adaline_batch_step(rows, weights, active, self.fit_intercept, self._learning_rates(schedule.power_t))
            self._steps[active] += 1
        else:
            loss = adaline_minibatch_epoch(rows, order, active, weights, self.fit_intercept, schedule) / rows.X.shape[0]
        return loss, np.zeros(len(loss), dtype=np.bool_)

    def _learning_rates(self, power_t):
        """η_k = eta0 / ((t0 + k)/t0)^power_t for each problem's update count k."""
        return self._rate / ((self.t0 + self._steps) / self.t0) ** power_t

    def _coef_intercept(self):
        """w and b for the original features: z = w·(x − μ)/σ + b = (w/σ)·x + (b − (w/σ)·μ)."""
        if not self.standardize:
            return self._coef.copy(), self._intercept.copy()
        coef = self._coef / self.scale_
        return coef, self._intercept - coef @ self.mean_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = not self.standardize  # standardizing would densify a sparse X
        return tags



def _auto_rate(X, fit_intercept):
    """1 / maxᵢ ‖(xᵢ, 1)‖²: a per-sample step then moves zᵢ at most onto its target (the normalized-LMS
    bound), and the batch rate stays below 2/L since L ≤ maxᵢ ‖(xᵢ, 1)‖²."""
    squared = np.asarray(X.multiply(X).sum(axis=1)).ravel() if scipy.sparse.issparse(X) else np.einsum("ij,ij->i", X, X)
    largest = float(np.max(squared, initial=0.0)) + float(fit_intercept)
    return 1.0 / largest if largest > 0 else 1.0
