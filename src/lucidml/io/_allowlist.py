"""The classes a model file may name, and the attributes it may set on them.

A class is named in a file by its defining module and qualified name
(``lucidml.tree._tree.Tree``). Loading constructs only classes listed here, resolving each by
importing its own module (lucidml's, scikit-learn's, NumPy's or SciPy's: never a module named
only by the file).

The schema of a listed class, what :func:`settable` accepts:

- an estimator's constructor parameters go through its constructor and its parameter
  validation, never through attribute assignment;
- an estimator's fitted state is the attributes named like fitted state in scikit-learn
  (``coef_``) or private to the class (``_tree``) that the class itself does not define;
- other objects' state is any attribute name that is not a method, property or other
  descriptor of the class (a class-level default value may be replaced);
- in every case the name is an identifier and not a dunder: a file can set data, never
  replace behaviour.
"""

import functools
import inspect
from importlib import import_module

from ._legacy import RETIRED_CLASSES

__all__ = ["CLASS_VALUES", "ESTIMATORS", "OBJECTS", "PARAMETER_VALUES", "class_path", "resolve", "settable"]

# Estimators: built with their constructor from validated parameters.
ESTIMATORS = frozenset({
    # lucidml (every class of the registry; tests/io checks the list is complete)
    "lucidml.cluster.agglomerative.AgglomerativeClustering",
    "lucidml.cluster.bisecting_kmeans.BisectingKMeans",
    "lucidml.cluster.clara.CLARA",
    "lucidml.cluster.clarans.CLARANS",
    "lucidml.cluster.dbscan.DBSCAN",
    "lucidml.cluster.diana.DIANA",
    "lucidml.cluster.kmeans.KMeans",
    "lucidml.cluster.kmedoids.KMedoids",
    "lucidml.cluster.som.SelfOrganizingMap",
    "lucidml.decomposition.factor_analysis.FactorAnalysis",
    "lucidml.decomposition.ica.ICA",
    "lucidml.decomposition.kernel_pca.KernelPCA",
    "lucidml.decomposition.lsi.LatentSemanticIndexing",
    "lucidml.decomposition.pca.PCA",
    "lucidml.decomposition.truncated_svd.TruncatedSVD",
    "lucidml.discriminant.linear.LinearDiscriminantAnalysis",
    "lucidml.discriminant.quadratic.QuadraticDiscriminantAnalysis",
    "lucidml.ensemble.adaboost.AdaBoostClassifier",
    "lucidml.ensemble.bagging.BaggingClassifier",
    "lucidml.ensemble.bagging.BaggingRegressor",
    "lucidml.ensemble.gradient_boosting.GradientBoostingClassifier",
    "lucidml.ensemble.gradient_boosting.GradientBoostingRegressor",
    "lucidml.ensemble.random_forest.RandomForestClassifier",
    "lucidml.ensemble.random_forest.RandomForestRegressor",
    "lucidml.gam.gam_classifier.GAMClassifier",
    "lucidml.gam.gam_regressor.GAMRegressor",
    "lucidml.kernels.kernel_lms.KernelLMS",
    "lucidml.kernels.kernel_ridge.KernelRidge",
    "lucidml.linear.adaline.Adaline",
    "lucidml.linear.elastic_net.ElasticNet",
    "lucidml.linear.elastic_net.Lasso",
    "lucidml.linear.glm.GLMRegressor",
    "lucidml.linear.glm.PoissonRegressor",
    "lucidml.linear.lad.LADRegression",
    "lucidml.linear.least_squares_classifier.LeastSquaresClassifier",
    "lucidml.linear.linear_regression.LinearRegression",
    "lucidml.linear.locally_weighted.LocallyWeightedRegression",
    "lucidml.linear.logistic.LogisticRegression",
    "lucidml.linear.perceptron.Perceptron",
    "lucidml.linear.ridge.Ridge",
    "lucidml.linear.softmax.SoftmaxRegression",
    "lucidml.mixture.bernoulli_mixture.BernoulliMixture",
    "lucidml.mixture.gaussian_mixture.GaussianMixture",
    "lucidml.model_selection.backward_selection.SequentialBackwardSelection",
    "lucidml.model_selection.stepwise_selection.StepwiseSelection",
    "lucidml.naive_bayes.bernoulli.BernoulliNB",
    "lucidml.naive_bayes.gaussian.GaussianNB",
    "lucidml.naive_bayes.multinomial.MultinomialNB",
    "lucidml.neighbors.classification.KNeighborsClassifier",
    "lucidml.neighbors.regression.KNeighborsRegressor",
    "lucidml.neural.cnn.CNNClassifier",
    "lucidml.neural.gcn.GCNClassifier",
    "lucidml.neural.mlp.MLPClassifier",
    "lucidml.neural.mlp.MLPRegressor",
    "lucidml.preprocessing.model_imputer.ModelImputer",
    "lucidml.preprocessing.outlier_filter.ClusterOutlierFilter",
    "lucidml.svm.linear_svc.LinearSVC",
    "lucidml.svm.svc.SVC",
    "lucidml.svm.svr.SVR",
    "lucidml.tree.decision_tree.DecisionTreeClassifier",
    "lucidml.tree.decision_tree.DecisionTreeRegressor",
    # scikit-learn's pipelines and preprocessing around them
    "sklearn.compose._column_transformer.ColumnTransformer",
    "sklearn.impute._base.SimpleImputer",
    "sklearn.pipeline.Pipeline",
    "sklearn.preprocessing._data.MinMaxScaler",
    "sklearn.preprocessing._data.StandardScaler",
    "sklearn.preprocessing._encoders.OneHotEncoder",
    "sklearn.preprocessing._encoders.OrdinalEncoder",
    "sklearn.preprocessing._function_transformer.FunctionTransformer",
    "sklearn.preprocessing._label.LabelBinarizer",
    "sklearn.preprocessing._label.LabelEncoder",
})

# Parameters of listed estimators whose other values would be code run on the data: the only
# values a file may give them (a ColumnTransformer's "passthrough" is such a FunctionTransformer).
PARAMETER_VALUES = {
    "sklearn.preprocessing._function_transformer.FunctionTransformer": {
        "func": (None,), "inverse_func": (None,), "feature_names_out": (None, "one-to-one")},
}

# Other objects: created without their constructor, then given their saved attributes.
OBJECTS = frozenset({
    # what fitted estimators hold
    "lucidml.ensemble._forest_predict.FlatForest",
    "lucidml.gam._smoothers._Constant",
    "lucidml.gam._smoothers._Linear",
    "lucidml.gam._smoothers._Loess",
    "lucidml.gam._smoothers._Spline",
    "lucidml.gam.gam_classifier._Blend",
    "lucidml.neighbors._search.BruteSearch",
    "lucidml.neighbors._search.KDTreeSearch",
    "lucidml.neural._layer.Workspace",
    "lucidml.neural._network.Sequential",
    "lucidml.neural.conv.Conv2D",
    "lucidml.neural.dense.Dense",
    "lucidml.neural.dropout.Dropout",
    "lucidml.neural.flatten.Flatten",
    "lucidml.neural.graph_conv.GraphConv",
    "lucidml.neural.optimizers.Adam",
    "lucidml.neural.optimizers.SGD",
    "lucidml.neural.pooling.AvgPool2D",
    "lucidml.neural.pooling.MaxPool2D",
    "lucidml.tree._traversal.Categories",
    "lucidml.tree._traversal.Splits",  # retired: files of an earlier release (see _legacy)
    "lucidml.tree._tree.Tree",
    # results that users keep
    "lucidml.graph.pagerank.PageRankResult",
    "lucidml.optim.qp.problem.QPResult",
    "lucidml.optim.result.OptimizeResult",
    "lucidml.rl.learning.MDPEnvironment",
    "lucidml.rl.learning.ModelBasedLearner",
    "lucidml.rl.learning.QLearning",
    "lucidml.rl.learning.SARSA",
    "lucidml.rl.mdp.MDP",
    "lucidml.rl.planning.PlanningResult",
})

# Classes a file may refer to as values (never instantiated): the neural layers' activations.
CLASS_VALUES = frozenset({
    "lucidml.neural.activations._Exp",
    "lucidml.neural.activations._Identity",
    "lucidml.neural.activations._Logistic",
    "lucidml.neural.activations._ReLU",
    "lucidml.neural.activations._Softmax",
    "lucidml.neural.activations._Tanh",
})


def class_path(cls):
    """How a file names ``cls``."""
    return f"{cls.__module__}.{cls.__qualname__}"


def resolve(path):
    """The class an allowed path names (its module is imported; nothing else is)."""
    if path in RETIRED_CLASSES:  # named by files of an earlier release only (see _legacy)
        return RETIRED_CLASSES[path]
    module, _, name = path.rpartition(".")
    cls = getattr(import_module(module), name, None)
    if not isinstance(cls, type) or class_path(cls) != path:
        raise RuntimeError(f"lucidml's allow-list names {path}, which does not exist")  # a bug, not a bad file
    return cls


def settable(cls, name, estimator, params=()):
    """Whether a file may set attribute ``name`` of a ``cls`` instance (see the module docstring)."""
    if not isinstance(name, str) or name in params:
        return False
    return _settable(cls, name, estimator)


@functools.lru_cache(maxsize=4096)
def _settable(cls, name, estimator):
    if not name.isidentifier() or name.startswith("__"):
        return False
    missing = object()
    member = inspect.getattr_static(cls, name, missing)
    if estimator:  # fitted state only, shadowing nothing of the class (not even its data)
        return (name.endswith("_") or name.startswith("_")) and member is missing
    return member is missing or not (callable(member) or hasattr(type(member), "__get__"))
