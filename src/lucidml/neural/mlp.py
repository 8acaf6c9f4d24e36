"""Multi-layer perceptrons: fully connected feed-forward networks trained by back-propagation."""

from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.metrics import r2_score
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import column_or_1d

from ..utils import Interval, Options
from ._mlp_base import (
    COMMON_CONSTRAINTS,
    STOCHASTIC_SOLVERS,
    _BaseNetwork,
    _ClassifierNetwork,
)
from .dense import Dense

__all__ = ["MLPClassifier", "MLPRegressor"]

_MLP_CONSTRAINTS = {
    **COMMON_CONSTRAINTS,
    "hidden_layer_sizes": ["array-like", Interval(Integral, 1, None, closed="left")],
    "weight_decay": [Options({"coupled", "decoupled"})],
    "forward_per": [Options({"batch", "epoch"})],
}

_SHARED_DOC = """
    The network computes a⁰ = x, aˡ = g(aˡ⁻¹ Wˡ + bˡ) for the hidden layers and the output
    layer's canonical link on top (seed 000 §5.1; 002 §9.3.1, (9.13); 004 §11). The objective is

        J(θ) = 1/n Σᵢ ℓ(yᵢ, f(xᵢ; θ)) + α/(2n) Σₗ ‖Wˡ‖²     (biases not penalized)

    and its gradient comes from back-propagation (002 §9.3.3, Theorem 9.3; 000 §5.2):

        δᴸ = aᴸ − y,   δˡ = (δˡ⁺¹ (Wˡ⁺¹)ᵀ) ⊙ g′(zˡ),   ∂J/∂Wˡ = (aˡ⁻¹)ᵀ δˡ / n,   ∂J/∂bˡ = Σ δˡ / n,

    averaged over a mini-batch. The parameter names, meanings and scales are scikit-learn's
    (``alpha`` is the L2 strength above, per sample), so the two fit the same model; with the same
    ``random_state`` they even start from the same weights and visit the batches in the same order.

    Defaults follow scikit-learn (``solver="adam"``, ``batch_size="auto"`` = min(200, n)), not the
    notes' plain SGD with batches of 32: a drop-in replacement should behave the same, and plain
    SGD at η = 0.001 barely moves in 200 epochs. The notes' setups are one parameter away:
    ``solver="sgd", momentum=0, learning_rate_init=η`` is 000's Algorithm 3 and 002's network.py
    (the notes sum the gradient over a batch; the mean used here with rate η·|B| is the same
    step), ``init="normal"`` is 002's N(0, 1) start and ``init=("uniform", 10)`` is 000's.

    Parameters
    ----------
    hidden_layer_sizes : array-like of int, default=(100,)
        Units of each hidden layer.
    activation : {"relu", "logistic", "tanh", "identity"}, default="relu"
        g of the hidden layers.
    solver : {"adam", "sgd", "gd", "lbfgs"}, default="adam"
        ``"sgd"``: mini-batch SGD with ``momentum`` (Nesterov's if ``nesterovs_momentum``) and
        the ``learning_rate`` schedule; ``"gd"``: the same update on the full batch (004 §11, with
        a learning rate: ⚠ the notes' θ ← θ − ∇J omits it); ``"adam"``: Kingma & Ba (2015);
        ``"lbfgs"``: SciPy's L-BFGS-B on the full objective (good for small data).
    alpha : float, default=1e-4
        L2 penalty strength α (per sample, as above).
    batch_size : int or "auto", default="auto"
        Mini-batch size; "auto" = min(200, n_samples).
    learning_rate : {"constant", "invscaling", "adaptive"}, default="constant"
        Schedule of ``"sgd"``/``"gd"``.
    learning_rate_init : float, default=0.001
        η of ``"sgd"``, ``"gd"`` and ``"adam"``.
    power_t : float, default=0.5
        Exponent of "invscaling".
    max_iter : int, default=200
        Epochs (stochastic solvers) or iterations (``"lbfgs"``) at most.
    shuffle : bool, default=True
        Reshuffle the samples every epoch.
    random_state : int, RandomState instance or None, default=None
        Initial weights, shuffling, the early-stopping split.
    tol : float, default=1e-4
        Training stops after ``n_iter_no_change`` epochs that improve the training loss (or the
        validation score) by less than tol; for ``"lbfgs"`` the gradient tolerance.
    verbose : bool or int, default=False
        Print ``Iteration t, loss = J`` on standard output after every epoch (every L-BFGS
        iteration with solver="lbfgs"): the values of ``loss_curve_``.
    warm_start : bool, default=False
        Start ``fit`` from the previous weights.
    momentum : float in [0, 1], default=0.9
        μ of ``"sgd"``/``"gd"``.
    nesterovs_momentum : bool, default=True
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the data and stop when its score stalls; the weights
        of the best epoch are kept.
    validation_fraction : float, default=0.1
    beta_1, beta_2, epsilon : float, default=0.9, 0.999, 1e-8
        Adam's decay rates and ε.
    n_iter_no_change : int, default=10
    max_fun : int, default=15000
        Function evaluations of ``"lbfgs"`` at most.
    init : {"glorot", "he", "normal"} or ("uniform", r), default="glorot"
        Initial weights (see :mod:`lucidml.neural.initializers`); "glorot" is scikit-learn's.
    weight_decay : {"coupled", "decoupled"}, default="coupled"
        "coupled": the penalty is part of J (scikit-learn). "decoupled" (seed 000 §5.3): the step
        uses the data gradient only and then W ← W − αW, with α not scaled by η or n (⚠ the
        notes print this one update across two lines; the "− beta…" line continues it).
        Stochastic solvers only.
    forward_per : {"batch", "epoch"}, default="batch"
        "epoch" reproduces 000's loop, which runs the forward pass once per epoch and
        back-propagates every batch through those (stale) activations. Stochastic solvers only.
"""

_SHARED_ATTRIBUTES = """
    loss_ : float
        The objective at the end of the last epoch (or L-BFGS iteration).
    loss_curve_ : list of float
        The objective after each epoch (L-BFGS: each iteration).
    best_loss_ : float or None
        The lowest ``loss_curve_`` value (None with early stopping).
    validation_scores_ : list of float or None
        Score on the held-out set after each epoch (early stopping only).
    best_validation_score_ : float or None
    coefs_ : list of ndarray
        Wˡ of shape (units of layer l − 1, units of layer l), one per layer.
    intercepts_ : list of ndarray
        bˡ, one per layer.
    n_iter_ : int
        Epochs (or L-BFGS iterations) of the last call.
    t_ : int
        Training samples seen by the stochastic solvers (the optimizer's time step).
    n_layers_ : int
        Layers, input and output included.
    n_outputs_ : int
    out_activation_ : str
        The output link.
    n_features_in_ : int
    feature_names_in_ : ndarray
        Column names, when X was a data frame with string column names.
"""


class _MLP(_BaseNetwork):
    _accept_sparse = True

    def _hidden_layers(self):
        sizes = np.atleast_1d(np.asarray(self.hidden_layer_sizes))
        if sizes.ndim != 1 or sizes.size and (not np.issubdtype(sizes.dtype, np.integer) or np.any(sizes <= 0)):
            raise ValueError(f"hidden_layer_sizes must be positive integers; got {self.hidden_layer_sizes}.")
        return [Dense(int(units), activation=self.activation) for units in sizes]

    def _check_solver(self):
        if self.solver not in STOCHASTIC_SOLVERS:
            raise AttributeError(f"partial_fit is only available for the stochastic solvers, not {self.solver!r}.")
        return True


class MLPClassifier(_ClassifierNetwork, _MLP, ClassifierMixin, BaseEstimator):
    __doc__ = """Multi-layer perceptron classifier: log-loss on softmax (or logistic) outputs.

    Two classes use one logistic output unit with the binary log-loss; more classes use softmax
    units with the multinomial log-loss (``output="sigmoid"`` gives one logistic unit per class
    instead, as the notes' networks have); multilabel indicator targets use independent
    logistic units.
    """ + _SHARED_DOC + """    output : {"auto", "sigmoid"}, default="auto"
        "auto": softmax for several classes; "sigmoid": a logistic unit per class (000, 002).

    Attributes
    ----------
    classes_ : ndarray
        The class labels.""" + _SHARED_ATTRIBUTES + """
    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.mlp import MLPClassifier
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    >>> y = np.array([0, 1, 1, 0])
    >>> clf = MLPClassifier(hidden_layer_sizes=(8,), activation="tanh", solver="lbfgs", random_state=1)
    >>> clf.fit(X, y).predict(X)
    array([0, 1, 1, 0])
    """

    _parameter_constraints: ClassVar[dict] = {**_MLP_CONSTRAINTS, "output": [Options({"auto", "sigmoid"})]}

    def __init__(self, hidden_layer_sizes=(100,), *, activation="relu", solver="adam", alpha=0.0001,
                 batch_size="auto", learning_rate="constant", learning_rate_init=0.001, power_t=0.5, max_iter=200,
                 shuffle=True, random_state=None, tol=1e-4, verbose=False, warm_start=False, momentum=0.9,
                 nesterovs_momentum=True, early_stopping=False, validation_fraction=0.1, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-8, n_iter_no_change=10, max_fun=15000, init="glorot", output="auto",
                 weight_decay="coupled", forward_per="batch"):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.solver = solver
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.learning_rate_init = learning_rate_init
        self.power_t = power_t
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.tol = tol
        self.verbose = verbose
        self.warm_start = warm_start
        self.momentum = momentum
        self.nesterovs_momentum = nesterovs_momentum
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.n_iter_no_change = n_iter_no_change
        self.max_fun = max_fun
        self.init = init
        self.output = output
        self.weight_decay = weight_decay
        self.forward_per = forward_per

    def fit(self, X, y, sample_weight=None):
        """Fit the network to X (n_samples, n_features) and labels y."""
        return self._fit(X, y, sample_weight, incremental=False)

    @available_if(lambda est: est._check_solver())
    def partial_fit(self, X, y, sample_weight=None, classes=None):
        """One epoch over (X, y); ``classes`` (all labels) is required on the first call."""
        self._start_partial_fit(y, classes)
        return self._fit(X, y, sample_weight, incremental=True)


class MLPRegressor(_MLP, RegressorMixin, BaseEstimator):
    __doc__ = """Multi-layer perceptron regressor: squared error on an identity output.

    ``loss="poisson"`` uses an exponential output with the Poisson deviance instead (for counts).
    The squared error is ½ Σₖ (yₖ − ŷₖ)², summed over the targets (scikit-learn reports the mean
    over targets as ``loss_``; the fitted model is the same).
    """ + _SHARED_DOC + """    loss : {"squared_error", "poisson"}, default="squared_error"

    Attributes
    ----------""" + _SHARED_ATTRIBUTES + """
    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.mlp import MLPRegressor
    >>> X = np.linspace(-1, 1, 50).reshape(-1, 1)
    >>> reg = MLPRegressor(hidden_layer_sizes=(10,), activation="tanh", solver="lbfgs", random_state=0)
    >>> reg.fit(X, X[:, 0] ** 2).predict([[0.5]]).round(1)
    array([0.2])
    """

    _parameter_constraints: ClassVar[dict] = {**_MLP_CONSTRAINTS, "loss": [Options({"squared_error", "poisson"})]}

    def __init__(self, hidden_layer_sizes=(100,), *, loss="squared_error", activation="relu", solver="adam",
                 alpha=0.0001, batch_size="auto", learning_rate="constant", learning_rate_init=0.001, power_t=0.5,
                 max_iter=200, shuffle=True, random_state=None, tol=1e-4, verbose=False, warm_start=False,
                 momentum=0.9, nesterovs_momentum=True, early_stopping=False, validation_fraction=0.1, beta_1=0.9,
                 beta_2=0.999, epsilon=1e-8, n_iter_no_change=10, max_fun=15000, init="glorot",
                 weight_decay="coupled", forward_per="batch"):
        self.loss = loss
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.solver = solver
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.learning_rate_init = learning_rate_init
        self.power_t = power_t
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.tol = tol
        self.verbose = verbose
        self.warm_start = warm_start
        self.momentum = momentum
        self.nesterovs_momentum = nesterovs_momentum
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.n_iter_no_change = n_iter_no_change
        self.max_fun = max_fun
        self.init = init
        self.weight_decay = weight_decay
        self.forward_per = forward_per

    def _encode_targets(self, y, first, incremental):
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if self.loss == "poisson" and np.any(y < 0):
            raise ValueError("loss='poisson' needs non-negative targets y.")
        Y = y.reshape(y.shape[0], -1).astype(self._fit_dtype, copy=False)
        if not first and Y.shape[1] != self.n_outputs_:
            raise ValueError(f"y has {Y.shape[1]} targets; the model was fitted with {self.n_outputs_}.")
        if first:
            self.out_activation_ = "exp" if self.loss == "poisson" else "identity"
        return Y

    def _validate_input(self, X, y, reset):
        X, y = super()._validate_input(X, y, reset)
        self._fit_dtype = X.dtype
        return X, y

    def _loss_name(self):
        return self.loss

    def fit(self, X, y, sample_weight=None):
        """Fit the network to X (n_samples, n_features) and y (n_samples,) or (n_samples, n_targets)."""
        return self._fit(X, y, sample_weight, incremental=False)

    @available_if(lambda est: est._check_solver())
    def partial_fit(self, X, y, sample_weight=None):
        """One epoch over (X, y)."""
        return self._fit(X, y, sample_weight, incremental=True)

    def predict(self, X):
        """The predicted targets."""
        out = self._predicted(X)
        return out.ravel() if self.n_outputs_ == 1 else out

    def _validation_score(self, X, Y, sample_weight):
        return r2_score(Y, self._output(X), sample_weight=sample_weight)
