"""What the feed-forward estimators (MLP, CNN) share: fitting by mini-batches or L-BFGS.

A subclass says which layers to stack (``_hidden_layers``) and how its input becomes the
network's input (``_flatten_input``, ``_input_shape``, ``_to_network``); this base does the
rest the way scikit-learn's MLP does, so that the parameters mean the same thing:
initialization, shuffling, the stopping rule on the training loss or validation score,
``warm_start`` and ``partial_fit``.
"""

import warnings
from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
import scipy.optimize
import scipy.sparse
from sklearn.base import is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ..utils import (
    Interval,
    IterationLog,
    Options,
    cancel_flag,
    check_sample_weight,
    interruptible,
    raise_if_cancelled,
    validate_params,
)
from ..utils.linalg import blas_threads
from ..utils.numerics import power_of_two_unit
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_magnitude, check_predict_data, input_float_dtype
from ._network import Sequential
from .activations import get_activation
from .dense import Dense
from .initializers import check_init
from .losses import get_loss
from .optimizers import SGD, Adam

STOCHASTIC_SOLVERS = ("sgd", "adam", "gd")
# Multiply-adds of a batch's largest matrix product below which training runs on one BLAS thread:
# for products of a few milliseconds, waking and syncing more threads costs more than it saves
# (measured 10–20× slower on two busy cores, in scikit-learn's MLP as well).
SMALL_BATCH_WORK = 2**26
# Activation values (of the widest layer) per block of a prediction (see _BaseNetwork._output):
# 8 MiB of float64. An MLP of 100 units predicts 10,000 rows at once; a convolutional network,
# whose layers hold kilobytes per row (and their im2col patches more), a thousand.
PREDICT_BLOCK = 2**20


def blas_context(net, batch_size):
    """One BLAS thread while the batch's products are small (see SMALL_BATCH_WORK)."""
    return blas_threads(1) if net.batch_work(batch_size) <= SMALL_BATCH_WORK else nullcontext()

COMMON_CONSTRAINTS = {
    "activation": [Options({"identity", "logistic", "tanh", "relu"})],
    "solver": [Options({"sgd", "adam", "gd", "lbfgs"})],
    "alpha": [Interval(Real, 0, None, closed="left")],
    "batch_size": [Options({"auto"}), Interval(Integral, 1, None, closed="left")],
    "learning_rate": [Options({"constant", "invscaling", "adaptive"})],
    "learning_rate_init": [Interval(Real, 0, None, closed="neither")],
    "power_t": [Interval(Real, 0, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "shuffle": ["boolean"],
    "random_state": ["random_state"],
    "tol": [Interval(Real, 0, None, closed="left")],
    "verbose": ["boolean", Interval(Integral, 0, None, closed="left")],
    "warm_start": ["boolean"],
    "momentum": [Interval(Real, 0, 1, closed="both")],
    "nesterovs_momentum": ["boolean"],
    "early_stopping": ["boolean"],
    "validation_fraction": [Interval(Real, 0, 1, closed="left")],
    "beta_1": [Interval(Real, 0, 1, closed="left")],
    "beta_2": [Interval(Real, 0, 1, closed="left")],
    "epsilon": [Interval(Real, 0, None, closed="neither")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
    "max_fun": [Interval(Integral, 1, None, closed="left")],
    "init": [str, tuple],
}


class _BaseNetwork:
    """Fitting machinery; mixed into the estimator classes before ``BaseEstimator``."""

    _accept_sparse = False

    # -- input handling (overridden by the CNN) --------------------------------------------
    def _flatten_input(self, X, reset):
        return X

    def _input_shape(self):
        return (self.n_features_in_,)

    def _to_network(self, X):
        return X

    def _validate_input(self, X, y, reset):
        X = self._flatten_input(X, reset)
        accept = ["csr", "csc"] if self._accept_sparse else False
        X, y = check_fit_data(self, X, y, accept_sparse=accept, float32=True, multi_output=True,
                              y_numeric=not is_classifier(self), reset=reset)
        check_magnitude(X, self)
        return X, y

    def _check_predict_input(self, X):
        check_is_fitted(self)
        X = self._flatten_input(X, reset=False)
        accept = ["csr", "csc"] if self._accept_sparse else False
        X = check_predict_data(self, X, accept_sparse=accept, dtype=FLOAT_DTYPES)
        return self._to_network(X).astype(self._net.theta.dtype, copy=False)  # the dtype it was fitted in

    def _predicted(self, X):
        """The network's output for the rows of X, in X's precision or the fit's, the wider (a fit on
        float32 answers float64 queries in float64, as scikit-learn's)."""
        out = self._output(self._check_predict_input(X))
        return out.astype(np.result_type(input_float_dtype(X), out.dtype), copy=False)

    def _output(self, X):
        """The network's output g(Z) for validated network input X, a block of rows at a time
        (about :data:`PREDICT_BLOCK` values in the widest layer's activations): what a prediction
        holds stays bounded however many rows are asked about."""
        widest = max(int(np.prod(layer.output_shape)) for layer in self._net.layers)
        rows = max(64, PREDICT_BLOCK // max(1, widest))
        if X.shape[0] <= rows:
            return self._net.predict(X)
        return np.concatenate([self._net.predict(X[start:start + rows]) for start in range(0, X.shape[0], rows)])

    # -- fitting --------------------------------------------------------------------------------
    @interruptible
    def _fit(self, X, y, sample_weight, incremental):
        validate_params(self)
        check_init(self.init)
        first = not hasattr(self, "_net") or (not self.warm_start and not incremental)
        X, y = self._validate_input(X, y, reset=first)
        Y = self._encode_targets(y, first, incremental)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        # The weights in units of a power of two near their largest, then in X's precision: a float32
        # cast of weights near 1e37 overflowed (a NaN loss), and near 1e±300 read as infinite or 0. The
        # penalty α/Σsᵢ is kept by dividing α by the same unit (coupled weight decay; see _alpha).
        self._weight_unit = 1.0 if sample_weight is None else power_of_two_unit(sample_weight)
        total = X.shape[0] if sample_weight is None else float(np.sum(sample_weight / self._weight_unit))
        if sample_weight is not None:
            sample_weight = (sample_weight / self._weight_unit).astype(X.dtype)
        coupled = getattr(self, "weight_decay", "coupled") != "decoupled"  # (decoupled decay ignores Σsᵢ)
        if coupled and self.alpha / self._weight_unit / total > _MAX_PENALTY:
            what = "the number of samples" if sample_weight is None else "the total sample_weight"
            raise ValueError(f"alpha={self.alpha} divided by {what} ({total * self._weight_unit:.3g}) is beyond "
                             f"{_MAX_PENALTY:.0e}: the penalty α/Σsᵢ swamps the data and overflows the loss. "
                             "Lower alpha, or rescale sample_weight (the fit depends on the weights only through "
                             "their ratios and α/Σsᵢ).")
        X = self._to_network(X)
        self._random_state = check_random_state(self.random_state)
        if first:
            self._initialize(X, Y)
        elif X.dtype != self._net.theta.dtype:
            X = X.astype(self._net.theta.dtype)
        if self.solver in STOCHASTIC_SOLVERS:
            self._fit_stochastic(X, Y, sample_weight, incremental)
        else:
            self._fit_lbfgs(X, Y, sample_weight)
        if not np.all(np.isfinite(self._net.theta)):
            raise ValueError("The solver produced non-finite weights; scale the input or lower the learning rate.")
        return self

    def _initialize(self, X, Y):
        self.n_iter_, self.t_ = 0, 0
        self.n_outputs_ = Y.shape[1]
        layers = self._hidden_layers() + [Dense(self.n_outputs_)]
        self._net = Sequential(layers, output=self.out_activation_).build(
            self._input_shape(), dtype=X.dtype, init=self.init, random_state=self._random_state, gain=self.activation)
        self.n_layers_ = sum(1 for layer in layers if layer.param_specs) + 1
        self._optimizer = None
        self._best_theta = self._net.theta.copy()
        if self.solver in STOCHASTIC_SOLVERS:
            self.loss_curve_ = []
            self._no_improvement_count = 0
            if self.early_stopping:
                self.validation_scores_, self.best_validation_score_, self.best_loss_ = [], -np.inf, None
            else:
                self.validation_scores_, self.best_validation_score_, self.best_loss_ = None, None, np.inf

    @property
    def coefs_(self):
        """The weight matrices, layer by layer (views of the flat parameter vector)."""
        return self._net.coefs

    @property
    def intercepts_(self):
        """The bias vectors, layer by layer."""
        return self._net.intercepts

    def _make_optimizer(self):
        size, dtype = self._net.theta.size, self._net.theta.dtype
        if self.solver == "adam":
            return Adam(size, dtype, self.learning_rate_init, self.beta_1, self.beta_2, self.epsilon)
        return SGD(size, dtype, self.learning_rate_init, self.learning_rate, self.momentum,
                   self.nesterovs_momentum, self.power_t)

    def _fit_stochastic(self, X, Y, sample_weight, incremental):
        if self.early_stopping and incremental:
            raise ValueError("partial_fit does not support early_stopping=True.")
        if not incremental or self._optimizer is None:
            self._optimizer = self._make_optimizer()
        X_val = Y_val = sw_val = None
        if self.early_stopping:
            stratify = Y if is_classifier(self) and self.n_outputs_ == 1 else None
            arrays = (X, Y) if sample_weight is None else (X, Y, sample_weight)
            split = train_test_split(*arrays, random_state=self._random_state, test_size=self.validation_fraction,
                                     stratify=stratify)
            X, X_val, Y, Y_val = split[:4]
            if sample_weight is not None:
                sample_weight, sw_val = split[4:]
            if X_val.shape[0] < 2:
                raise ValueError("The validation set is too small; increase validation_fraction or the data size.")
        batch_size = self._batch_size(X.shape[0])
        self.n_iter_ = 0
        with blas_context(self._net, batch_size):
            self._epochs(X, Y, sample_weight, X_val, Y_val, sw_val, incremental, batch_size)
        if self.early_stopping:
            self._net.theta[:] = self._best_theta

    def _epochs(self, X, Y, sample_weight, X_val, Y_val, sw_val, incremental, batch_size):
        n = X.shape[0]
        loss = get_loss(self._loss_name())
        shuffle = self.shuffle and self.solver != "gd"
        order = np.arange(n)
        buffer = None if scipy.sparse.issparse(X) or not shuffle else np.empty_like(X)
        decoupled = getattr(self, "weight_decay", "coupled") == "decoupled"
        per_epoch = getattr(self, "forward_per", "batch") == "epoch"
        log = IterationLog(self.verbose)
        for _ in range(self.max_iter):
            if shuffle:
                order = order[self._random_state.permutation(n)]  # scikit-learn's shuffle(order)
            self.loss_ = _train_epoch(self._net, loss, self._optimizer, X, Y, sample_weight, order if shuffle else None,
                                      batch_size, self.alpha if decoupled else self._alpha(), decoupled, per_epoch,
                                      buffer)
            self.n_iter_ += 1
            self.t_ += n
            self.loss_curve_.append(self.loss_)
            log.iteration(self.n_iter_, loss=self.loss_)
            self._update_no_improvement_count(X_val, Y_val, sw_val)
            self._optimizer.iteration_ends(self.t_)
            if self._no_improvement_count > self.n_iter_no_change:
                if self._optimizer.trigger_stopping():
                    break
                self._no_improvement_count = 0
            if incremental:
                break
            if self.n_iter_ == self.max_iter:
                warnings.warn(f"Stochastic optimizer: maximum iterations ({self.max_iter}) reached and the "
                              "optimization hasn't converged yet.", ConvergenceWarning)

    def _batch_size(self, n):
        if self.solver == "gd":
            return n
        if self.batch_size == "auto":
            return min(200, n)
        if self.batch_size > n:
            warnings.warn(f"batch_size={self.batch_size} is larger than the {n} samples; it is clipped to {n}.")
        return min(self.batch_size, n)

    def _update_no_improvement_count(self, X_val, Y_val, sw_val):
        """scikit-learn's stopping rule: count epochs that improve the tracked figure by less than tol."""
        if self.early_stopping:
            score = self._validation_score(X_val, Y_val, sw_val)
            self.validation_scores_.append(score)
            self._no_improvement_count = 0 if score >= self.best_validation_score_ + self.tol \
                else self._no_improvement_count + 1
            if score > self.best_validation_score_:
                self.best_validation_score_ = score
                self._best_theta = self._net.theta.copy()
        else:
            last = self.loss_curve_[-1]
            self._no_improvement_count = 0 if last <= self.best_loss_ - self.tol else self._no_improvement_count + 1
            self.best_loss_ = min(self.best_loss_, last)

    def _alpha(self):
        """α for the penalty α/Σsᵢ on weights divided by ``_weight_unit``: the same penalty."""
        return self.alpha / self._weight_unit

    def _fit_lbfgs(self, X, Y, sample_weight):
        net, loss, curve = self._net, get_loss(self._loss_name()), []

        def fun(theta):
            raise_if_cancelled()
            net.theta[:] = theta
            value = net.loss_and_grad(X, Y, loss, self._alpha(), sample_weight)
            return value, net.grad.astype(np.float64)

        with blas_context(net, X.shape[0]):
            result = self._minimize(fun, curve)
        if not np.isfinite(result.fun):
            raise ValueError(f"L-BFGS ended at a loss of {result.fun}: the targets or the features are too large for "
                             "the network's arithmetic; scale them (e.g. StandardScaler).")
        net.theta[:] = result.x
        self.n_iter_, self.loss_, self.loss_curve_ = int(result.nit), float(result.fun), curve
        if result.status == 1:
            warnings.warn(f"L-BFGS stopped at max_iter={self.max_iter} or max_fun={self.max_fun} before converging.",
                          ConvergenceWarning)
        elif result.status != 0:  # its line search failed (status 2): the loss is not minimized
            warnings.warn(f"L-BFGS stopped before converging ({result.message}); the loss is {self.loss_:.4g}. Scale "
                          "the features and targets, or raise tol.", ConvergenceWarning)

    def _minimize(self, fun, curve):
        log = IterationLog(self.verbose)

        def record(intermediate_result):  # after every L-BFGS iteration
            curve.append(float(intermediate_result.fun))
            log.iteration(len(curve), loss=curve[-1])

        return scipy.optimize.minimize(
            fun, self._net.theta.astype(np.float64), jac=True, method="L-BFGS-B",
            options={"maxiter": self.max_iter, "maxfun": self.max_fun, "gtol": self.tol},
            callback=record if self.verbose else lambda intermediate_result: curve.append(
                float(intermediate_result.fun)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accept_sparse
        return tags


class _ClassifierNetwork(_BaseNetwork):
    """Labels ↔ output units, as scikit-learn's MLPClassifier: one logistic unit for two classes,
    softmax units for more, independent logistic units for multilabel indicator targets."""

    def _encode_targets(self, y, first, incremental):
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if first and not incremental:
            self._label_binarizer = LabelBinarizer().fit(y)
            self.classes_ = self._label_binarizer.classes_
        elif self.warm_start and not incremental:
            if set(unique_labels(y)) != set(self.classes_):
                raise ValueError(f"warm_start needs the same classes as the previous fit: {self.classes_}; "
                                 f"y has {unique_labels(y)}.")
        elif len(np.setdiff1d(unique_labels(y), self.classes_)):
            raise ValueError(f"y has labels outside the classes given at the first partial_fit, {self.classes_}: "
                             f"{np.setdiff1d(unique_labels(y), self.classes_)}.")
        if len(self.classes_) < 2:
            raise ValueError(f"The classifier needs at least 2 classes; got one class: {self.classes_}.")
        if first:
            multiclass = self._label_binarizer.y_type_ == "multiclass"
            self.out_activation_ = "softmax" if multiclass and getattr(self, "output", "auto") == "auto" else "logistic"
        return self._label_binarizer.transform(y).astype(self._fit_dtype, copy=False)

    def _validate_input(self, X, y, reset):
        X, y = super()._validate_input(X, y, reset)
        self._fit_dtype = X.dtype
        return X, y

    def _loss_name(self):
        return "log_loss" if self.out_activation_ == "softmax" else "binary_log_loss"

    def _start_partial_fit(self, y, classes):
        """The first call fixes the classes (from ``classes``, or from y for multilabel targets)."""
        if not hasattr(self, "classes_"):
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            self._label_binarizer = LabelBinarizer().fit(y if np.ndim(y) == 2 and np.shape(y)[1] > 1 else classes)
            self.classes_ = self._label_binarizer.classes_
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={classes} differs from the classes of the first call, {self.classes_}.")

    def _labels(self, out):
        return self._label_binarizer.inverse_transform(out.ravel() if self.n_outputs_ == 1 else out)

    def predict(self, X):
        """The predicted class (or label set) of each sample."""
        return self._labels(self._predicted(X))

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``."""
        out = self._predicted(X)
        if self.n_outputs_ == 1:
            return np.hstack([1 - out, out])
        if self.out_activation_ == "logistic" and self._label_binarizer.y_type_ == "multiclass":
            out /= out.sum(axis=1, keepdims=True)  # output="sigmoid": independent units, normalized
        return out

    def predict_log_proba(self, X):
        """log of :meth:`predict_proba`."""
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return np.log(proba, out=proba)

    def _validation_score(self, X, Y, sample_weight):
        return accuracy_score(self._labels(Y), self._labels(self._output(X)), sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags


# Largest penalty coefficient α/Σsᵢ a fit takes: beyond it the penalty of any weights overflows the loss
# (weights of 1e-300 with α = 1e-4 gave 3e293, a NaN loss blamed on the features).
_MAX_PENALTY = 1e100


def _train_epoch(net, loss, optimizer, X, Y, sample_weight, order, batch_size, alpha, decoupled, per_epoch, buffer):
    """One epoch of mini-batch descent; returns the epoch's mean loss (with the penalty).

    For each batch B: L_B(θ) = (1/|B|) Σ_{i∈B} ℓ(yᵢ, f(xᵢ; θ)) + (α / 2|B|) ‖W‖², g = ∇L_B by
    back-propagation, then one optimizer step. ``decoupled`` instead shrinks the weights after
    the step, W ← W − αW (seed 000 §5.3); ``per_epoch`` runs the forward pass once per epoch and
    back-propagates every batch through those stored activations (000's ``train_neural_network``).
    """
    if order is not None:  # gather the shuffled rows once per epoch; batches are then contiguous slices
        X = X[order] if buffer is None else np.take(X, order, axis=0, out=buffer)
        Y = Y[order]
        sample_weight = None if sample_weight is None else sample_weight[order]
    n, total, counted = X.shape[0], 0.0, 0
    coupled_alpha = 0.0 if decoupled else alpha
    cancel = cancel_flag()  # Ctrl-C between batches (utils._interrupt)
    if per_epoch:
        A_all = get_activation(net.output).apply_(net.forward(X, training=True))
    for start in range(0, n, batch_size):
        raise_if_cancelled(cancel)
        rows = slice(start, min(start + batch_size, n))
        sw = None if sample_weight is None else sample_weight[rows]
        if sw is not None and not sw.any():
            continue  # a batch of zero weight has no loss to descend (its mean would be 0/0)
        if per_epoch:
            for layer in net.layers:
                layer.use_rows(rows)
            A = A_all[rows].copy()
            value = loss.value(A, Y[rows], sw)
            net.backward(loss.delta_(A, Y[rows], sw))
            if coupled_alpha:
                value += net.add_l2(coupled_alpha / (A.shape[0] if sw is None else sw.sum()))
        else:
            value = net.loss_and_grad(X[rows], Y[rows], loss, coupled_alpha, sw)
        optimizer.step(net.theta, net.grad)
        if decoupled and alpha:
            weights = net.theta[: net.n_weights]
            value += 0.5 * alpha * float(weights @ weights)
            weights *= 1.0 - alpha
        total += value * (rows.stop - rows.start)
        counted += rows.stop - rows.start
    return total / max(counted, 1)
