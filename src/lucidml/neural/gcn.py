"""Graph convolutional network for semi-supervised node classification (Kipf & Welling 2017)."""

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ..utils.validation import FLOAT_DTYPES, check_classification_targets, check_fit_data, check_predict_data
from ._mlp_base import blas_context
from ._network import Sequential
from .activations import get_activation
from .dropout import Dropout
from .graph_conv import GraphConv, normalized_adjacency
from .initializers import check_init
from .losses import LogLoss
from .optimizers import Adam

__all__ = ["GCNClassifier"]


class GCNClassifier(ClassifierMixin, BaseEstimator):
    """Graph convolutional network: labels every node of a graph from a few labelled ones.

    With Â = D̃^(−½) (A + I) D̃^(−½) (D̃ the degrees of A + I, computed once per call), the
    default two-layer network is

        P = softmax(Â · dropout(relu(Â · dropout(X) · W¹ + b¹)) · W² + b²)

    (Kipf & Welling 2017; the notes name graph networks only: seed 004 §16 is empty). Each
    layer mixes a node's features with its neighbours', so labels spread along edges. Training
    minimizes the cross-entropy over the labelled nodes only, plus the weight decay
    (λ/2)‖W¹‖² on the first layer as in the paper,

        J = −1/|L| Σ_{i∈L} Σₖ yᵢₖ ln Pᵢₖ + (λ/2) ‖W¹‖²,

    by full-batch Adam for ``max_iter`` epochs (stopping earlier when J stalls, scikit-learn's
    ``tol``/``n_iter_no_change`` rule). Unlabelled nodes (y = −1) still shape the prediction
    through Â.

    ``adjacency=None`` stands for a graph without edges (Â = I), so the model is then a plain
    MLP with dropout; pass the graph again to ``predict``, which labels every node given (a model
    fitted on a graph refuses to predict without one).

    Parameters
    ----------
    hidden_layer_sizes : array-like of int, default=(16,)
        Units of each hidden graph-convolution layer.
    activation : {"relu", "tanh", "logistic", "identity"}, default="relu"
    dropout : float in [0, 1), default=0.5
        Drop probability applied to the input of every layer while training.
    learning_rate_init : float, default=0.01
        Adam's step size.
    weight_decay : float, default=5e-4
        λ above (Kipf & Welling's scale: not divided by the number of nodes).
    max_iter : int, default=200
        Epochs (full passes over the graph) at most.
    tol : float, default=1e-4
    n_iter_no_change : int, default=10
    beta_1, beta_2, epsilon : float, default=0.9, 0.999, 1e-8
        Adam's parameters.
    init : {"glorot", "he", "normal"} or ("uniform", r), default="glorot"
    random_state : int, RandomState instance or None, default=None
        Initial weights and dropout masks.
    verbose : int, default=0
        1 or more prints ``Iteration t, loss = J`` after every epoch on standard output (the
        values of ``loss_curve_``); 0 prints nothing.

    Attributes
    ----------
    classes_ : ndarray
        The labels seen on labelled nodes.
    fitted_on_graph_ : bool
        Whether ``fit`` was given an adjacency matrix (then ``predict`` needs one too).
    coefs_, intercepts_ : list of ndarray
        W and b of each layer.
    loss_ : float
    loss_curve_ : list of float
        J after each epoch.
    n_iter_ : int
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.gcn import GCNClassifier
    >>> A = np.zeros((6, 6))
    >>> for i, j in [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)]:
    ...     A[i, j] = A[j, i] = 1
    >>> X = np.eye(6)                       # no features: one-hot node identities
    >>> y = np.array([0, -1, -1, -1, -1, 1])  # one labelled node per community
    >>> gcn = GCNClassifier(dropout=0.0, random_state=0).fit(X, y, adjacency=A)
    >>> gcn.predict(X, adjacency=A)
    array([0, 0, 0, 1, 1, 1])
    """

    _parameter_constraints: ClassVar[dict] = {
        "hidden_layer_sizes": ["array-like", Interval(Integral, 1, None, closed="left")],
        "activation": [Options({"identity", "logistic", "tanh", "relu"})],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "learning_rate_init": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "beta_1": [Interval(Real, 0, 1, closed="left")],
        "beta_2": [Interval(Real, 0, 1, closed="left")],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "init": [str, tuple],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, hidden_layer_sizes=(16,), *, activation="relu", dropout=0.5, learning_rate_init=0.01,
                 weight_decay=5e-4, max_iter=200, tol=1e-4, n_iter_no_change=10, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-8, init="glorot", random_state=None, verbose=0):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.dropout = dropout
        self.learning_rate_init = learning_rate_init
        self.weight_decay = weight_decay
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.init = init
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, adjacency=None):
        """Fit on node features X (n_nodes, n_features), labels y (−1 = unlabelled) and the graph.

        Parameters
        ----------
        X : array-like of shape (n_nodes, n_features)
        y : array-like of shape (n_nodes,)
            Node labels; for numeric labels, −1 marks an unlabelled node.
        adjacency : array-like or sparse matrix of shape (n_nodes, n_nodes), default=None
            Edge weights (non-negative; symmetric for an undirected graph). None: no edges.
        """
        validate_params(self)
        check_init(self.init)
        X, y = check_fit_data(self, X, y, float32=True)
        labelled = np.ones(len(y), dtype=bool)
        if np.issubdtype(y.dtype, np.number):
            labelled = y != -1
        check_classification_targets(y[labelled])
        self.classes_, codes = np.unique(y[labelled], return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"GCNClassifier needs labelled nodes of at least 2 classes; got one class: {self.classes_}.")
        A_hat = self._graph(adjacency, X.shape[0])
        self.fitted_on_graph_ = adjacency is not None
        rng = check_random_state(self.random_state)
        self._net = self._build(X.shape[1], X.dtype, rng)
        self._set_graph(A_hat)
        Y = np.zeros((X.shape[0], len(self.classes_)), dtype=X.dtype)
        Y[np.flatnonzero(labelled), codes] = 1.0
        with blas_context(self._net, X.shape[0]):
            self.loss_curve_ = _train(self._net, X, Y, labelled.astype(X.dtype), self._make_adam(),
                                      self.weight_decay, self.max_iter, self.tol, self.n_iter_no_change,
                                      IterationLog(self.verbose))
        self._set_graph(None)  # keep no reference to the training graph
        self.n_iter_, self.loss_ = len(self.loss_curve_), self.loss_curve_[-1]
        if self.n_iter_ == self.max_iter:
            warnings.warn(f"GCNClassifier reached max_iter={self.max_iter} before the loss stopped improving.",
                          ConvergenceWarning)
        return self

    def predict_proba(self, X, adjacency=None):
        """Class probabilities of every node, columns in the order of ``classes_``."""
        check_is_fitted(self)
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES)
        if adjacency is None and self.fitted_on_graph_:
            raise ValueError("GCNClassifier was fitted on a graph: pass it again, predict(X, adjacency=A); "
                             "without it every node would be predicted as if it had no edges.")
        dtype = self._net.theta.dtype
        A_hat = self._graph(adjacency, X.shape[0]).astype(dtype)
        # The forward pass of prediction, with the graph passed along rather than set on the
        # shared layers (dropout is the identity here), so concurrent calls never mix graphs.
        H = X.astype(dtype, copy=False)
        for layer in self._net.layers:
            H = layer.apply(H, A_hat) if isinstance(layer, GraphConv) else layer.forward(H, training=False)
        return get_activation(self._net.output).apply_(H)

    def predict(self, X, adjacency=None):
        """The most probable class of every node."""
        proba = self.predict_proba(X, adjacency=adjacency)
        return self.classes_[np.argmax(proba, axis=1)]

    @property
    def coefs_(self):
        return self._net.coefs

    @property
    def intercepts_(self):
        return self._net.intercepts

    def _graph(self, adjacency, n_nodes):
        if adjacency is None:
            return scipy.sparse.eye_array(n_nodes, format="csr")
        if not scipy.sparse.issparse(adjacency):
            adjacency = np.asarray(adjacency, dtype=np.float64)
        if adjacency.ndim != 2 or adjacency.shape[0] != adjacency.shape[1]:
            raise ValueError(f"adjacency must be a square matrix; got shape {adjacency.shape}.")
        if adjacency.shape[0] != n_nodes:
            raise ValueError(f"adjacency has {adjacency.shape[0]} nodes but X has {n_nodes} rows.")
        return normalized_adjacency(adjacency)

    def _build(self, n_features, dtype, rng):
        sizes = np.atleast_1d(np.asarray(self.hidden_layer_sizes))
        if sizes.ndim != 1 or sizes.size and (not np.issubdtype(sizes.dtype, np.integer) or np.any(sizes <= 0)):
            raise ValueError(f"hidden_layer_sizes must be positive integers; got {self.hidden_layer_sizes}.")
        layers = []
        for units in list(sizes) + [len(self.classes_)]:
            layers += [Dropout(self.dropout), GraphConv(int(units), activation=self.activation)]
        layers[-1] = GraphConv(len(self.classes_))  # the output layer: softmax comes with the loss
        return Sequential(layers, output="softmax").build((n_features,), dtype=dtype, init=self.init,
                                                          random_state=rng, gain=self.activation)

    def _set_graph(self, A_hat):
        if A_hat is not None:
            A_hat = A_hat.astype(self._net.theta.dtype)
        for layer in self._net.layers:
            if isinstance(layer, GraphConv):
                layer.adjacency = A_hat

    def _make_adam(self):
        return Adam(self._net.theta.size, self._net.theta.dtype, self.learning_rate_init, self.beta_1, self.beta_2,
                    self.epsilon)


def _train(net, X, Y, mask, adam, weight_decay, max_iter, tol, n_iter_no_change, log):
    """Full-batch Adam on the masked cross-entropy plus (λ/2)‖W¹‖²; returns the loss curve (``log``, an
    ``IterationLog``, prints each epoch's loss)."""
    first = net.coefs[0].size  # θ starts with W¹
    curve, best, stall = [], np.inf, 0
    for _ in range(max_iter):
        value = net.loss_and_grad(X, Y, LogLoss, 0.0, sample_weight=mask)  # weights 0/1 = the mask
        W1 = net.theta[:first]
        net.grad[:first] += weight_decay * W1
        value += 0.5 * weight_decay * float(W1 @ W1)
        adam.step(net.theta, net.grad)
        curve.append(value)
        log.iteration(len(curve), loss=value)
        stall = 0 if value <= best - tol else stall + 1
        best = min(best, value)
        if stall > n_iter_no_change:
            break
    return curve
