"""A small convolutional network classifier for images."""

from numbers import Integral
from typing import ClassVar

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if

from ..utils import Interval, Options
from ._mlp_base import COMMON_CONSTRAINTS, STOCHASTIC_SOLVERS, _ClassifierNetwork
from .conv import Conv2D
from .dense import Dense
from .flatten import Flatten
from .pooling import AvgPool2D, MaxPool2D

__all__ = ["CNNClassifier"]


class CNNClassifier(_ClassifierNetwork, ClassifierMixin, BaseEstimator):
    """Convolutional network classifier: [conv → pool] × k → flatten → dense layers → softmax.

    Each block is a Conv2D layer (cross-correlation by im2col, see
    :class:`lucidml.neural.conv.Conv2D`) with the hidden activation, followed by a
    non-overlapping pooling layer; then optional fully connected hidden layers and the output
    layer, trained on the log-loss (LeCun et al. 1998; Goodfellow et al. 2016 ch. 9; the notes
    name CNNs only: seed 002 §9.4 and 004 §16 are titles). Back-propagation runs through
    every layer: the kernel gradient is the input correlated with δ, the input gradient the full
    convolution of δ with the flipped kernel, and pooling routes δ to each window's argmax.
    Training, parameters and stopping rule are those of
    :class:`lucidml.neural.mlp.MLPClassifier` (scikit-learn's MLP meanings).

    Images. ``X`` may be (n, h, w) grey images, (n, c, h, w) channels-first images, or flat rows
    (n, d) read as images of ``image_shape``. With flat rows and ``image_shape=None`` the shape is
    inferred: a square d = s² is one s × s grey image (8 × 8 digits, 28 × 28 MNIST), any other d
    a 1 × d strip (so the convolution becomes a 1-D one along the features); flat rows of
    several channels need ``image_shape``. A 4-D array that looks channels-last (last axis ≤ 4,
    second > 4) is refused rather than misread. Kernels and pools larger than the image shrink to
    fit it.

    Parameters
    ----------
    filters : array-like of int, default=(16, 32)
        Filters of each convolution block. The spec's single 8-filter block reaches about 97.5 %
        test accuracy on the 8 × 8 digits; two blocks of 16 and 32 reach 98–99 %, so they are
        the default.
    kernel_size : int or (int, int), default=3
    stride : int, default=1
    padding : {"same", "valid"} or int, default="same"
    pool : {"max", "avg"} or None, default="max"
        The pooling after each convolution (None: no pooling).
    pool_size : int or (int, int), default=2
    hidden_layer_sizes : array-like of int, default=()
        Fully connected hidden layers between the last block and the output.
    image_shape : (h, w) or (c, h, w), default=None
        How to read flat rows; None infers it as above.
    activation : {"relu", "logistic", "tanh", "identity"}, default="relu"
    solver, alpha, batch_size, learning_rate, learning_rate_init, power_t, max_iter, shuffle,
    random_state, tol, verbose, warm_start, momentum, nesterovs_momentum, early_stopping,
    validation_fraction, beta_1, beta_2, epsilon, n_iter_no_change, max_fun, init
        As in :class:`lucidml.neural.mlp.MLPClassifier`.

    Attributes
    ----------
    classes_ : ndarray
    image_shape_ : tuple (c, h, w)
        The image shape the network was built for.
    coefs_, intercepts_ : list of ndarray
        Per layer with weights: convolution kernels as (kh·kw·c, filters) matrices, dense
        weights as (inputs, units).
    layers_ : list
        The layers, in order (``layers_[0].kernel`` has shape (kh, kw, c, filters)).
    loss_, loss_curve_, best_loss_, validation_scores_, best_validation_score_, n_iter_, t_,
    n_layers_, n_outputs_, out_activation_, n_features_in_
        As in :class:`lucidml.neural.mlp.MLPClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.cnn import CNNClassifier
    >>> rng = np.random.default_rng(0)
    >>> images = rng.normal(0, 0.1, size=(60, 6, 6))
    >>> y = np.arange(60) % 2
    >>> images[y == 1, :, 2:4] += 1.0           # class 1: a vertical bar
    >>> clf = CNNClassifier(filters=(4,), learning_rate_init=0.01, max_iter=30, random_state=0).fit(images, y)
    >>> float(clf.score(images, y))
    1.0
    >>> clf.image_shape_
    (1, 6, 6)
    """

    _parameter_constraints: ClassVar[dict] = {
        **COMMON_CONSTRAINTS,
        "filters": ["array-like", Interval(Integral, 1, None, closed="left")],
        "kernel_size": [Interval(Integral, 1, None, closed="left"), tuple],
        "stride": [Interval(Integral, 1, None, closed="left"), tuple],
        "padding": [Options({"same", "valid"}), Interval(Integral, 0, None, closed="left")],
        "pool": [Options({"max", "avg"}), None],
        "pool_size": [Interval(Integral, 1, None, closed="left"), tuple],
        "hidden_layer_sizes": ["array-like", Interval(Integral, 1, None, closed="left")],
        "image_shape": [tuple, list, None],
    }

    def __init__(self, *, filters=(16, 32), kernel_size=3, stride=1, padding="same", pool="max", pool_size=2,
                 hidden_layer_sizes=(), image_shape=None, activation="relu", solver="adam", alpha=0.0001,
                 batch_size="auto", learning_rate="constant", learning_rate_init=0.001, power_t=0.5, max_iter=200,
                 shuffle=True, random_state=None, tol=1e-4, verbose=False, warm_start=False, momentum=0.9,
                 nesterovs_momentum=True, early_stopping=False, validation_fraction=0.1, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-8, n_iter_no_change=10, max_fun=15000, init="glorot"):
        self.filters = filters
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.pool = pool
        self.pool_size = pool_size
        self.hidden_layer_sizes = hidden_layer_sizes
        self.image_shape = image_shape
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

    def fit(self, X, y, sample_weight=None):
        """Fit on images X ((n, h, w), (n, c, h, w) or flat rows) and labels y."""
        return self._fit(X, y, sample_weight, incremental=False)

    @available_if(lambda est: est._check_solver())
    def partial_fit(self, X, y, sample_weight=None, classes=None):
        """One epoch over (X, y); ``classes`` is required on the first call."""
        self._start_partial_fit(y, classes)
        return self._fit(X, y, sample_weight, incremental=True)

    def _check_solver(self):
        if self.solver not in STOCHASTIC_SOLVERS:
            raise AttributeError(f"partial_fit is only available for the stochastic solvers, not {self.solver!r}.")
        return True

    @property
    def layers_(self):
        return self._net.layers

    # -- images ↔ rows --------------------------------------------------------------------------
    def _flatten_input(self, X, reset):
        """Image arrays become rows (their shape remembered); flat rows pass through unchanged."""
        ndim = len(X.shape) if hasattr(X, "shape") else np.asarray(X).ndim
        if scipy.sparse.issparse(X) or ndim not in (3, 4):
            if reset:
                self._array_image_shape = None
            return X
        X = np.asarray(X)
        if X.ndim == 4 and X.shape[3] <= 4 < X.shape[1]:
            raise ValueError(f"X of shape {X.shape} looks channels-last (n, h, w, c); CNNClassifier reads "
                             "(n, c, h, w): pass X.transpose(0, 3, 1, 2).")
        image = (1,) + X.shape[1:] if X.ndim == 3 else X.shape[1:]
        if reset:
            self._array_image_shape = tuple(int(s) for s in image)
        elif tuple(image) != self.image_shape_:
            raise ValueError(f"X holds images of shape {tuple(image)} (channels, height, width); "
                             f"the classifier was fitted on {self.image_shape_}.")
        return X.reshape(X.shape[0], -1)

    def _validate_input(self, X, y, reset):
        X, y = super()._validate_input(X, y, reset)
        if reset:
            self.image_shape_ = self._resolve_image_shape(self.n_features_in_)
        return X, y

    def _resolve_image_shape(self, d):
        given = self.image_shape
        if given is not None:
            given = tuple(int(s) for s in given)
            if len(given) == 2:
                given = (1,) + given
            if len(given) != 3 or min(given) < 1 or int(np.prod(given)) != d:
                raise ValueError(f"image_shape={self.image_shape} does not hold the {d} values of each sample.")
            if self._array_image_shape is not None and given != self._array_image_shape:
                raise ValueError(f"image_shape={self.image_shape} contradicts the shape of X, {self._array_image_shape}.")
            return given
        if self._array_image_shape is not None:
            return self._array_image_shape
        side = round(float(np.sqrt(d)))
        return (1, side, side) if side * side == d else (1, 1, d)

    def _input_shape(self):
        c, h, w = self.image_shape_
        return h, w, c

    def _to_network(self, X):
        if scipy.sparse.issparse(X):
            raise TypeError("CNNClassifier needs dense images.")
        c, h, w = self.image_shape_
        return np.ascontiguousarray(X.reshape(X.shape[0], c, h, w).transpose(0, 2, 3, 1))

    def _hidden_layers(self):
        filters = np.atleast_1d(np.asarray(self.filters))
        hidden = np.atleast_1d(np.asarray(self.hidden_layer_sizes, dtype=np.int64))
        for name, sizes in (("filters", filters), ("hidden_layer_sizes", hidden)):
            if sizes.ndim != 1 or sizes.size and (not np.issubdtype(sizes.dtype, np.integer) or np.any(sizes <= 0)):
                raise ValueError(f"{name} must be positive integers; got {sizes.tolist()}.")
        pool = {"max": MaxPool2D, "avg": AvgPool2D, None: None}[self.pool]
        layers = []
        for f in filters:
            layers.append(Conv2D(int(f), self.kernel_size, self.stride, self.padding, activation=self.activation))
            if pool is not None:
                layers.append(pool(self.pool_size))
        layers.append(Flatten())
        layers += [Dense(int(units), activation=self.activation) for units in hidden]
        return layers
