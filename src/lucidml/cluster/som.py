"""Kohonen's self-organizing map: online (stochastic) and batch training."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ..utils.validation import check_fit_data, check_magnitude, check_predict_data
from ._som_kernels import Schedule, nearest_units, sum_by_unit, train_online

# The notes' ordering phase: about 1000 steps (online); the batch map orders in half its epochs.
ORDERING_STEPS = 1000
# Epochs of the batch map when n_iter is None.
BATCH_EPOCHS = 50
# loss_curve_ of the online map has at most this many entries (means over blocks of steps).
CURVE_POINTS = 100


class SelfOrganizingMap(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):
    """Self-organizing (Kohonen) map: units on a 1-D or 2-D lattice whose weights fit the data.

    Each unit k has a lattice position r_k (row, column) and a weight vector w_k in data space.
    Online training (002 §8.6, Alg 8.12) repeats, for t = 0, 1, …, n_iter − 1, with x drawn at
    random from the data:

        competition    bmu = argmin_k ‖x − w_k‖²
        cooperation    h_k(t) = exp(−‖r_k − r_bmu‖² / 2σ(t)²)      ("gaussian", (8.20))
                       h_k(t) = 1 if ‖r_k − r_bmu‖ ≤ σ(t) else 0    ("bubble", a step)
        adaptation     w_k ← w_k + η(t) h_k(t) (x − w_k)            for every unit k   (8.22)

    The batch map (Kohonen 1995; ``batch=True``) replaces each epoch's sample-by-sample moves
    with their fixed point: with every sample's bmu_i found for the current weights,

        w_k = Σ_i h(k, bmu_i) x_i / Σ_i h(k, bmu_i),

    which needs no learning rate and is deterministic given the initial weights.

    Schedules: two phases, each an exponential decay v(t) = v_start e^{−(t − t_start)/τ}, with
    τ = (phase length) / ln(v_start / v_end) so that v reaches v_end at the end of the phase
    ((8.21)):

        ordering (the first min(1000, n_iter) steps; batch: the first half of the epochs)
            σ: σ₀ → 1 (the nearest lattice neighbours; stays σ₀ if σ₀ < 1)     η: η₀ → η₀/10
        convergence (the remaining steps, by default 500 per unit)
            σ: 1 → ½ (Gaussian: the nearest neighbours fade to h = e⁻² ≈ 0.14)    η: η₀/10 → η₀/100
            σ = 1 (bubble: exactly the nearest neighbours)

    so with η₀ = 0.1 the learning rate is about 0.01 during convergence, as the notes advise.

    Parameters
    ----------
    shape : tuple of int, default=(10, 10)
        The lattice: ``(rows, cols)``, or ``(n_units,)`` for a chain (the same as
        ``(1, n_units)``). Units are numbered row by row.
    neighborhood : {"gaussian", "bubble"}, default="gaussian"
        The neighbourhood function h.
    learning_rate : float, default=0.1
        η₀, the initial learning rate of online training (unused by the batch map).
    sigma : float, default=None
        σ₀, the initial neighbourhood radius in lattice units; None means max(shape)/2.
    n_iter : int, default=None
        Online: training steps (one sample each), default 1000 + 500·n_units (the notes'
        ordering plus convergence phases). Batch: epochs, default 50.
    batch : bool, default=False
        Train with the batch map instead of the online (stochastic) rule.
    init : {"random", "sample", "pca"}, default="random"
        Initial weights: ``"random"``, small random values (the data mean plus uniform noise of
        ±10% of each feature's standard deviation), as in the notes; ``"sample"``, distinct
        random training points; ``"pca"``, a regular grid on the plane of the first two
        principal components (±1 standard deviation), which starts the map already ordered.
    random_state : int, RandomState instance or None, default=None
        The initial weights and the order in which online training draws samples.
    verbose : int, default=0
        Progress on standard output. Batch training prints ``Iteration t, quantization_error = …``
        after every epoch (the values of ``loss_curve_``); online training, whose steps run inside
        one compiled kernel, prints one line once it returns: ``Online training, n_iter = …,
        quantization_error = …`` (the last entry of ``loss_curve_``). 0 prints nothing.

    Attributes
    ----------
    weights_ : ndarray of shape (n_units, n_features)
        w_k, units in lattice order (unit k is at row k // cols, column k % cols).
    cluster_centers_ : ndarray of shape (n_units, n_features)
        The same array as ``weights_`` (each unit is a cluster: the samples it is the BMU of).
    lattice_ : ndarray of shape (n_units, 2)
        Lattice position (row, column) of each unit.
    labels_ : ndarray of shape (n_samples,)
        Best-matching unit of each training sample.
    quantization_error_ : float
        Mean distance from the training samples to their best-matching unit.
    topographic_error_ : float
        Fraction of training samples whose best and second-best units are not lattice
        neighbours (lattice distance 1: left, right, up, down); 0 for a single unit.
    n_iter_ : int
        Steps (online) or epochs (batch) run.
    loss_curve_ : ndarray
        Online: the mean of ‖x − w_bmu‖ over consecutive blocks of ⌈n_iter/100⌉ steps, each x
        measured before its update. Batch: the quantization error at the start of each epoch.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Notes
    -----
    scikit-learn has no self-organizing map, so there is no reference implementation to match;
    the tests check the properties the notes state (ordering, quantization, topology).

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.som import SelfOrganizingMap
    >>> X = np.linspace(0.0, 1.0, 200)[:, None]
    >>> som = SelfOrganizingMap(shape=(5,), random_state=0).fit(X)
    >>> steps = np.diff(som.weights_.ravel())
    >>> bool(np.all(steps > 0) or np.all(steps < 0))      # the chain has ordered itself
    True
    >>> round(som.quantization_error_, 2)   # 5 prototypes on [0, 1]: at best 1/20
    0.06
    >>> som.transform([[0.5]]).shape
    (1, 5)
    """

    _parameter_constraints: ClassVar[dict] = {
        "shape": ["array-like"],
        "neighborhood": [Options({"gaussian", "bubble"})],
        "learning_rate": [Interval(Real, 0, 1, closed="right")],
        "sigma": [Interval(Real, 0, None, closed="neither"), None],
        "n_iter": [Interval(Integral, 1, None, closed="left"), None],
        "batch": ["boolean"],
        "init": [Options({"random", "sample", "pca"})],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, shape=(10, 10), *, neighborhood="gaussian", learning_rate=0.1, sigma=None, n_iter=None,
                 batch=False, init="random", random_state=None, verbose=0):
        self.shape = shape
        self.neighborhood = neighborhood
        self.learning_rate = learning_rate
        self.sigma = sigma
        self.n_iter = n_iter
        self.batch = batch
        self.init = init
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Train the map on X."""
        validate_params(self)
        X = check_fit_data(self, X, order="C")
        check_magnitude(X, self)
        rows, cols = _lattice_shape(self.shape)
        rng = check_random_state(self.random_state)
        lattice = np.array([(r, c) for r in range(rows) for c in range(cols)], dtype=np.float64)
        sigma0 = max(rows, cols) / 2.0 if self.sigma is None else float(self.sigma)
        W = _initial_weights(X, rows, cols, self.init, rng)
        gaussian = self.neighborhood == "gaussian"
        log = IterationLog(self.verbose)
        if self.batch:
            n_iter = BATCH_EPOCHS if self.n_iter is None else self.n_iter
            sigma, _ = _schedules(n_iter, -(-n_iter // 2), sigma0, self.learning_rate, gaussian)
            W, curve = _train_batch(X, W, lattice, sigma, gaussian, log)
        else:
            n_iter = ORDERING_STEPS + 500 * len(W) if self.n_iter is None else self.n_iter
            sigma, eta = _schedules(n_iter, min(ORDERING_STEPS, n_iter), sigma0, self.learning_rate, gaussian)
            samples = rng.randint(0, X.shape[0], size=n_iter)
            block = -(-n_iter // CURVE_POINTS)
            curve = np.zeros(-(-n_iter // block))
            train_online(X, W, lattice, Schedule(samples, sigma, eta), gaussian, block, curve)
            curve /= np.bincount(np.arange(n_iter) // block)
            log.summary("Online training", n_iter=n_iter, quantization_error=curve[-1])

        self.weights_ = self.cluster_centers_ = W
        self.lattice_ = lattice
        self.n_iter_ = n_iter
        self.loss_curve_ = curve
        self.labels_, self.quantization_error_, self.topographic_error_ = _map_quality(X, W, lattice)
        return self

    def predict(self, X):
        """Index of the best-matching unit of each sample."""
        check_is_fitted(self)
        X = check_predict_data(self, X, order="C", bounded=True)
        return nearest_units(X, self.weights_)[0]

    def transform(self, X):
        """Euclidean distance from each sample to each unit, shape (n_samples, n_units)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, bounded=True)
        return cdist(X, self.weights_)

    @property
    def _n_features_out(self):
        return self.weights_.shape[0]


def _lattice_shape(shape):
    """(rows, cols) from ``shape``; a 1-D chain is one row."""
    shape = tuple(shape)
    if len(shape) not in (1, 2) or not all(isinstance(s, Integral) and not isinstance(s, bool) and s >= 1
                                           for s in shape):
        raise ValueError(f"shape must be (n_units,) or (rows, cols) of positive integers; got {shape!r}.")
    return (1, int(shape[0])) if len(shape) == 1 else (int(shape[0]), int(shape[1]))


def _schedules(n_steps, n_ordering, sigma0, eta0, gaussian):
    """σ(t) and η(t) for t = 0 … n_steps − 1: an exponential decay in each phase (see the class)."""
    sigma1 = min(sigma0, 1.0)
    sigma_end = sigma1 / 2 if gaussian else sigma1
    n_convergence = n_steps - n_ordering
    sigma = np.concatenate([np.geomspace(sigma0, sigma1, n_ordering, endpoint=False),
                            np.geomspace(sigma1, sigma_end, n_convergence, endpoint=False)])
    eta = np.concatenate([np.geomspace(eta0, eta0 / 10, n_ordering, endpoint=False),
                          np.geomspace(eta0 / 10, eta0 / 100, n_convergence, endpoint=False)])
    return sigma, eta


def _initial_weights(X, rows, cols, init, rng):
    n_units = rows * cols
    mean, std = X.mean(axis=0), X.std(axis=0)
    if init == "random":
        return mean + 0.1 * std * rng.uniform(-1.0, 1.0, size=(n_units, X.shape[1]))
    if init == "sample":
        pick = rng.choice(X.shape[0], size=n_units, replace=n_units > X.shape[0])
        return X[pick].copy()
    # "pca": the longer lattice side along the first principal axis.
    _, s, Vt = np.linalg.svd(X - mean, full_matrices=False)
    scale = s / np.sqrt(X.shape[0])
    axes = [scale[i] * Vt[i] if i < len(s) else np.zeros(X.shape[1]) for i in range(2)]
    long_side, short_side = (cols, rows) if cols >= rows else (rows, cols)
    a = np.linspace(-1.0, 1.0, long_side) if long_side > 1 else np.zeros(1)
    b = np.linspace(-1.0, 1.0, short_side) if short_side > 1 else np.zeros(1)
    W = np.empty((rows, cols, X.shape[1]))
    for r in range(rows):
        for c in range(cols):
            u, v = (a[c], b[r]) if cols >= rows else (a[r], b[c])
            W[r, c] = mean + u * axes[0] + v * axes[1]
    return W.reshape(n_units, X.shape[1])


def _train_batch(X, W, lattice, sigma, gaussian, log):
    """Kohonen's batch map: w_k = Σ_l h_kl S_l / Σ_l h_kl n_l, one update per epoch.

    S_l and n_l are the sum and number of the samples whose BMU is unit l, so one epoch costs a
    BMU search (n·K·d) and two products with the K × K neighbourhood matrix. A unit with no
    sample in its neighbourhood (possible with "bubble") keeps its weights. ``log`` (an
    ``IterationLog``) prints each epoch's mean distance to the BMU.
    """
    g2 = ((lattice[:, None, :] - lattice[None, :, :]) ** 2).sum(axis=2)
    curve = np.empty(len(sigma))
    for epoch, s in enumerate(sigma):
        bmu, _, dist = nearest_units(X, W)
        curve[epoch] = dist.mean()
        log.iteration(epoch + 1, quantization_error=curve[epoch])
        H = np.exp(-g2 / (2 * s * s)) if gaussian else (g2 <= s * s).astype(np.float64)
        sums, counts = sum_by_unit(X, bmu, len(W))
        mass = H @ counts
        W = np.where(mass[:, None] > 0, (H @ sums) / np.where(mass > 0, mass, 1.0)[:, None], W)
    return W, curve


def _map_quality(X, W, lattice):
    """BMU labels, quantization error and topographic error of the map W on X."""
    best, second, dist = nearest_units(X, W)
    if len(W) == 1:
        return best, float(dist.mean()), 0.0
    gap = np.sqrt(((lattice[best] - lattice[second]) ** 2).sum(axis=1))
    return best, float(dist.mean()), float(np.mean(gap > 1.0 + 1e-9))
