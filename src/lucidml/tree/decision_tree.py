"""CART decision trees: DecisionTreeClassifier and DecisionTreeRegressor."""

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.class_weight import compute_sample_weight

from ..utils import Options
from ..utils.validation import check_classification_targets
from ._base import _BaseDecisionTree
from ._criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA

_PARAMETERS_DOC = """
    splitter : {"best", "random"}, default="best"
        "best" scores every candidate threshold of each drawn feature; "random" scores one
        threshold drawn uniformly between the node's smallest and largest value (a random bin
        boundary when ``max_bins`` is set), as in scikit-learn.
    max_depth : int or None, default=None
        Depth limit (000 uses 5); None grows until the leaves are pure or too small (001).
    min_samples_split : int or float, default=2
        Fewest samples a node needs to be split (a float is a fraction of n_samples).
    min_samples_leaf : int or float, default=1
        Fewest samples in each child; a node with n ≤ 2·min_samples_leaf − 1 is a leaf (000).
    min_weight_fraction_leaf : float, default=0.0
        Fewest total weight in each child, as a fraction of the total weight.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn without replacement at every node (None: all of them).
        Features constant in the node count as drawn; when every feature drawn was constant,
        the drawing goes on until one is not (scikit-learn's rule).
    random_state : int, RandomState or None, default=None
        Draws the feature order (ties between equally good splits go to the first drawn), the
        features of ``max_features`` and the thresholds of the "random" splitter.
    max_leaf_nodes : int or None, default=None
        Grow best-first (largest weighted impurity decrease first) up to this many leaves. A
        multiway categorical split needs one leaf per branch: a node whose best split has more
        branches than the budget has room for stays a leaf (a smaller split is not searched for),
        and the other nodes go on growing; with few leaves to spend, a categorical feature of many
        categories may be better one-hot encoded.
    min_impurity_decrease : float, default=0.0
        Split only if (W_node/W)·(I − Σ_c (W_c/W_node) I_c) ≥ this value (000 suggests 0.01).
    ccp_alpha : float, default=0.0
        Cost-complexity pruning: keep the subtree minimising C_α(T) = Σ_k W_k Q_k/W + α|T|
        (000 §7.6), found by weakest-link pruning; see ``cost_complexity_pruning_path``.
    max_bins : int or None, default=None
        None: exact search over the midpoints of consecutive distinct values (004 §12). An int:
        histogram search over at most ``max_bins`` quantile bins computed once per fit, with
        histogram subtraction (faster on large data). A threshold sits midway between the
        largest training value of the bin left of it and the smallest of the bin right of it
        (the bins occupied in the node), as in gradient boosting. A sparse X (CSR or CSC) with
        None is searched exactly, the same tree as for the dense X, from a dense copy when that
        copy takes at most 1 GiB; a larger one is grown on 255 histogram bins (exact for features
        with at most 255 distinct values), its columns binned one by one into a dense uint8
        copy of n_samples × n_features bytes. Prediction walks the CSR rows without densifying
        them.
    categorical_features : array-like of int or bool mask, default=None
        Features split multiway, one child per value observed at the node (004 §12); such a
        feature is then constant below and never reused on the path. A value unseen at a node
        (at predict time) stops there and gets that node's prediction (its majority class,
        the smallest label on ties). NaN counts as a category of its own.
    error_prune_lambda : float or None, default=None
        After growing (and ccp pruning), 004 §12's bottom-up pruning of
        C(T) = Error(T) + λ·#leaves, Error the weighted training mistakes (regression: the
        training squared or absolute error): a node whose children are all leaves is collapsed
        iff C drops strictly.
"""

_ATTRIBUTES_DOC = """
    tree_ : Tree
        Parallel node arrays in scikit-learn's layout: ``children_left``, ``children_right``
        (−1 at leaves), ``feature``, ``threshold`` (−2 at leaves), ``impurity``,
        ``n_node_samples``, ``weighted_n_node_samples``, ``value`` (node_count, 1, n_values),
        ``missing_go_to_left``, ``node_count``, ``max_depth``, and the CSR arrays
        ``category_ptr``/``category_values``/``category_children`` of multiway nodes.
    max_features_ : int
        The resolved ``max_features``.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.
    n_outputs_ : int
        Always 1.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Total weighted impurity decrease per feature, normalised to sum to 1.
"""


class DecisionTreeClassifier(ClassifierMixin, _BaseDecisionTree):
    """CART classification tree, grown greedily by compiled split search.

    Each split minimises the weighted impurity of the children, Σ_c (W_c/W) I_c, i.e.
    maximises the information gain (002 (5.67)), over thresholds x_j ≤ t at the midpoints of
    consecutive distinct values (or multiway over categories), and is made only on a strict
    improvement (000 §7.6–7.7, 001 §10, 004 §12). Impurities of class frequencies p_k:
    gini 1 − Σ p_k², entropy −Σ p_k log₂ p_k, misclassification 1 − max p_k. Leaves predict
    the weighted class frequencies. NaN in X goes to the side learned at each split.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "misclassification"}, default="gini"
        Impurity; "log_loss" is scikit-learn's alias of "entropy" (base-2 logarithm, so
        ``min_impurity_decrease`` has scikit-learn's scale; 000 uses ln).
    {parameters}
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying ``sample_weight`` per class ("balanced": n / (n_classes · n_c)).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    {attributes}
    Notes
    -----
    ``_fit_validated(X, y, sample_weight)`` fits on already validated arrays (float32/float64
    X, no infinities), skipping the input checks: the fast path for ensembles.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lucidml.tree.decision_tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> clf.get_depth(), clf.get_n_leaves()
    (2, 3)
    >>> float(round(clf.score(X, y), 3))
    0.96
    >>> clf.predict_proba(X[:1]).round(2)
    array([[1., 0., 0.]])
    """

    _parameter_constraints = {
        **_BaseDecisionTree._parameter_constraints,
        "criterion": [Options(set(CLASSIFICATION_CRITERIA))],
        "class_weight": [dict, Options({"balanced"}), None],
    }
    _is_classifier = True

    def __init__(self, *, criterion="gini", splitter="best", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=None, random_state=None,
                 max_leaf_nodes=None, min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0, max_bins=None,
                 categorical_features=None, error_prune_lambda=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.error_prune_lambda = error_prune_lambda

    def _check_target(self, y):
        check_classification_targets(y)

    def _criterion_code(self):
        return CLASSIFICATION_CRITERIA[self.criterion]

    def _encode_target(self, y, sample_weight):
        classes, codes = np.unique(y, return_inverse=True)
        self.classes_ = classes
        self.n_classes_ = classes.size
        weight = np.ones(codes.size) if sample_weight is None else np.array(sample_weight, dtype=np.float64)
        if self.class_weight is not None:
            weight *= compute_sample_weight(self.class_weight, y)
        return codes.astype(np.int32), np.zeros(1), classes.size, weight

    def _n_classes_array(self):
        return np.array([self.n_classes_])

    def predict_proba(self, X):
        """Weighted class frequencies of the leaf each sample reaches, shape (n_samples, n_classes)."""
        X = self._prepare_X(X)
        return self.tree_.predict(X)[:, 0, :]

    def predict_log_proba(self, X):
        """Logarithm of ``predict_proba`` (−inf for a class absent from the leaf)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The most frequent class of the leaf (the smallest label on ties)."""
        X = self._prepare_X(X)
        return self.classes_.take(self.tree_.node_argmax()[self.tree_.apply(X)])


class DecisionTreeRegressor(RegressorMixin, _BaseDecisionTree):
    """CART regression tree, grown greedily by compiled split search.

    Each split minimises Σ_c W_c I_c with I the node's mean squared error about its mean
    (leaves predict the mean, 000 §7.6 Alg. 9) or its mean absolute error about its
    weighted median (leaves predict the median), over thresholds x_j ≤ t at midpoints of
    consecutive distinct values (or multiway over categories), only on strict improvement.

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error"}, default="squared_error"
        Node impurity. "absolute_error" (O(n log n) per feature and node, with a Fenwick tree)
        supports neither NaN in X nor ``max_bins``.
    {parameters}
    Attributes
    ----------
    {attributes}
    Notes
    -----
    ``_fit_validated(X, y, sample_weight)`` fits on already validated arrays (float32/float64
    X, no infinities), skipping the input checks: the fast path for ensembles.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.tree.decision_tree import DecisionTreeRegressor
    >>> X = np.arange(8, dtype=float).reshape(-1, 1)
    >>> y = np.array([1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 9.0, 9.0])
    >>> reg = DecisionTreeRegressor(max_depth=2).fit(X, y)
    >>> reg.tree_.threshold[0], reg.get_n_leaves()
    (np.float64(3.5), 3)
    >>> reg.predict([[2.0], [4.5], [7.0]])
    array([1., 5., 9.])
    """

    _parameter_constraints = {
        **_BaseDecisionTree._parameter_constraints,
        "criterion": [Options(set(REGRESSION_CRITERIA))],
    }
    _is_classifier = False

    def __init__(self, *, criterion="squared_error", splitter="best", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=None, random_state=None,
                 max_leaf_nodes=None, min_impurity_decrease=0.0, ccp_alpha=0.0, max_bins=None,
                 categorical_features=None, error_prune_lambda=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.error_prune_lambda = error_prune_lambda

    def _check_target(self, y):
        pass

    def _criterion_code(self):
        return REGRESSION_CRITERIA[self.criterion]

    def _encode_target(self, y, sample_weight):
        weight = np.ones(len(y)) if sample_weight is None else np.array(sample_weight, dtype=np.float64)
        return np.zeros(1, np.int32), np.ascontiguousarray(y, dtype=np.float64), 1, weight

    def _n_classes_array(self):
        return np.array([1])

    def predict(self, X):
        """The mean (squared error) or median (absolute error) of the leaf each sample reaches."""
        X = self._prepare_X(X)
        return self.tree_.predict(X)[:, 0, 0]


DecisionTreeClassifier.__doc__ = DecisionTreeClassifier.__doc__.replace("{parameters}", _PARAMETERS_DOC.strip("\n")[4:])
DecisionTreeClassifier.__doc__ = DecisionTreeClassifier.__doc__.replace("{attributes}", _ATTRIBUTES_DOC.strip("\n")[4:])
DecisionTreeRegressor.__doc__ = DecisionTreeRegressor.__doc__.replace("{parameters}", _PARAMETERS_DOC.strip("\n")[4:])
DecisionTreeRegressor.__doc__ = DecisionTreeRegressor.__doc__.replace("{attributes}", _ATTRIBUTES_DOC.strip("\n")[4:])
