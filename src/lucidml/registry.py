"""The one list of lucidml's public estimators.

Every public estimator has exactly one :class:`EstimatorEntry` here. The common tests, the
benchmarks and ``lucidml compare`` all read this list: the tests run scikit-learn's estimator
checks with ``check_params``, the benchmarks and the compare command put each estimator beside
its scikit-learn counterpart, built with ``params`` and ``sklearn_params`` so that the two fit
the same model. A test fails when a public estimator is missing from the list.

Classes are named by dotted path and imported only when asked for, so ``import lucidml`` stays
cheap. The tree models' entries live in ``_registry_trees`` and are listed here in their place.
"""

from ._estimator_entry import KINDS, EstimatorEntry, weight_equivalence_failures
from ._registry_trees import TREE_ENTRIES

__all__ = ["EstimatorEntry", "REGISTRY", "KINDS", "get_entry", "entries"]


REGISTRY = (
    EstimatorEntry(
        "lucidml.discriminant.LinearDiscriminantAnalysis",
        kind="classifier", float32=True,
        sklearn="sklearn.discriminant_analysis.LinearDiscriminantAnalysis",
    ),
    EstimatorEntry(
        "lucidml.discriminant.QuadraticDiscriminantAnalysis",
        kind="classifier",
        sklearn="sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis",
        expected_failures={
            "check_array_api_input": "its data (make_classification with redundant features) makes every class "
            "covariance singular; QDA refuses that without reg_param, exactly as scikit-learn's own QDA does",
        },
    ),
    EstimatorEntry(
        "lucidml.linear.LinearRegression",
        kind="regressor", float32=True,
        sklearn="sklearn.linear_model.LinearRegression",
    ),
    EstimatorEntry(
        "lucidml.linear.Ridge",
        kind="regressor", float32=True,
        sklearn="sklearn.linear_model.Ridge",
    ),
    EstimatorEntry(
        "lucidml.linear.Lasso",
        kind="regressor",
        sklearn="sklearn.linear_model.Lasso",
        compiled=True, float32=True,
    ),
    EstimatorEntry(
        "lucidml.linear.ElasticNet",
        kind="regressor",
        sklearn="sklearn.linear_model.ElasticNet",
        compiled=True, float32=True,
    ),
    EstimatorEntry(
        # The exact LP solution of the same problem as the median QuantileRegressor without penalty.
        "lucidml.linear.LADRegression",
        kind="regressor",
        sklearn="sklearn.linear_model.QuantileRegressor",
        params={"solver": "lp"},
        sklearn_params={"quantile": 0.5, "alpha": 0.0, "solver": "highs"},
    ),
    EstimatorEntry(
        "lucidml.linear.LocallyWeightedRegression",
        kind="regressor",
        expected_failures={
            "check_non_transformer_estimators_n_iter": "a lazy learner: fit only stores the data, and the "
            "iterations of solver='gd' (whose cap is max_iter) run per query in predict, so fit has no n_iter_",
        },
    ),
    EstimatorEntry(
        "lucidml.linear.GLMRegressor",
        kind="regressor", float32=True,
        sklearn="sklearn.linear_model.TweedieRegressor",
        params={"family": "gaussian", "alpha": 1.0},
        sklearn_params={"power": 0, "link": "identity", "alpha": 1.0},
    ),
    EstimatorEntry(
        "lucidml.linear.PoissonRegressor",
        kind="regressor", float32=True,
        sklearn="sklearn.linear_model.PoissonRegressor",
    ),
    EstimatorEntry(
        "lucidml.linear.LogisticRegression",
        kind="classifier", float32=True,
        sklearn="sklearn.linear_model.LogisticRegression",
    ),
    EstimatorEntry(
        "lucidml.linear.SoftmaxRegression",
        kind="classifier", float32=True,
        sklearn="sklearn.linear_model.LogisticRegression",
    ),
    EstimatorEntry(
        # Both fit one-hot (lucidml) or ±1 (scikit-learn) indicator targets by ridge: the same argmax.
        "lucidml.linear.LeastSquaresClassifier",
        kind="classifier", float32=True,
        sklearn="sklearn.linear_model.RidgeClassifier",
        params={"alpha": 1.0},
        sklearn_params={"alpha": 1.0},
    ),
    EstimatorEntry(
        # scikit-learn's settings on both sides (lucidml's own defaults are the notes'): identical coef_.
        "lucidml.linear.Perceptron",
        kind="classifier", float32=True,
        sklearn="sklearn.linear_model.Perceptron",
        params={"eta0": 1.0, "max_iter": 1000, "tol": 1e-3, "shuffle": False},
        sklearn_params={"eta0": 1.0, "max_iter": 1000, "tol": 1e-3, "shuffle": False},
        compiled=True,
        expected_failures={
            "check_sample_weight_equivalence_on_dense_data": "an online learner: a sample of weight 2 makes one "
            "step of double size, not two visits at different times (scikit-learn's Perceptron fails it too)",
            "check_sample_weight_equivalence_on_sparse_data": "as on dense data: the same steps on the stored entries",
        },
    ),
    EstimatorEntry(
        # Least squares on ±1 targets by SGD, as SGDClassifier(loss="squared_error"): identical coef_.
        "lucidml.linear.Adaline",
        kind="classifier", float32=True,
        sklearn="sklearn.linear_model.SGDClassifier",
        params={"solver": "sgd", "eta0": 0.001, "learning_rate": "constant", "max_iter": 1000, "tol": 1e-4,
                "shuffle": False},
        sklearn_params={"loss": "squared_error", "penalty": None, "learning_rate": "constant", "eta0": 0.001,
                        "max_iter": 1000, "tol": 1e-4, "shuffle": False},
        check_params={"standardize": True},
        compiled=True,
        expected_failures=weight_equivalence_failures(
            "an online learner: a sample of weight 2 makes one step of double size, not two visits at different "
            "times (scikit-learn lists both checks as expected failures of its SGDClassifier)"),
    ),
    EstimatorEntry(
        # PAM; scikit-learn has no k-medoids (scikit-learn-extra's is not a dependency).
        "lucidml.cluster.KMedoids",
        kind="cluster",
        check_params={"n_clusters": 3},
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.cluster.CLARA",
        kind="cluster",
        check_params={"n_clusters": 3, "random_state": 0},
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.cluster.CLARANS",
        kind="cluster",
        check_params={"n_clusters": 3, "random_state": 0},
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.cluster.DBSCAN",
        kind="cluster",
        sklearn="sklearn.cluster.DBSCAN",
        compiled=True,
    ),
    EstimatorEntry(
        # Kohonen's map has no scikit-learn counterpart. A 3-unit chain for the checks: with 50
        # samples a 10 × 10 map leaves units empty, so its labels cannot match 3 blobs.
        "lucidml.cluster.SelfOrganizingMap",
        kind="cluster",
        check_params={"shape": (3,)},
        expected_failures={
            "check_clustering": "labels_ are map units: the default 10 x 10 map gives the check's 50 points up to 100 "
            "labels, with gaps at empty units, not its 3 blobs (passes with shape=(3,); no scikit-learn counterpart)",
        },
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.cluster.AgglomerativeClustering",
        kind="cluster",
        sklearn="sklearn.cluster.AgglomerativeClustering",
        compiled=True,
    ),
    EstimatorEntry(
        # Divisive analysis (Kaufman & Rousseeuw); scikit-learn has none.
        "lucidml.cluster.DIANA",
        kind="cluster",
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.cluster.KMeans",
        kind="cluster",
        sklearn="sklearn.cluster.KMeans",
        params={"n_clusters": 8, "n_init": 10, "random_state": 0},
        sklearn_params={"n_clusters": 8, "n_init": 10, "random_state": 0, "algorithm": "lloyd"},
        check_params={"n_clusters": 3, "n_init": 2, "max_iter": 20},
        expected_failures=weight_equivalence_failures(
            "k-means++ seeding draws random numbers per sample, so weighted and repeated samples seed differently "
            "(scikit-learn lists this check as an expected failure of its own KMeans)"),
        compiled=True, float32=True,
    ),
    EstimatorEntry(
        # tol=0 on both sides: scikit-learn passes tol to its inner 2-means runs unscaled, lucidml scales it by
        # the feature variance as KMeans does, so only tol=0 makes the two do the same work.
        "lucidml.cluster.BisectingKMeans",
        kind="cluster",
        sklearn="sklearn.cluster.BisectingKMeans",
        params={"n_clusters": 8, "n_init": 1, "tol": 0.0, "random_state": 0},
        sklearn_params={"n_clusters": 8, "n_init": 1, "tol": 0.0, "random_state": 0},
        check_params={"n_clusters": 3, "n_init": 2, "max_iter": 20},
        expected_failures=weight_equivalence_failures(
            "the 2-means seeding draws random numbers per sample, so weighted and repeated samples seed differently "
            "(scikit-learn lists this check as an expected failure of its own BisectingKMeans)"),
        compiled=True, float32=True,
    ),
    EstimatorEntry(
        "lucidml.naive_bayes.GaussianNB",
        kind="classifier",
        sklearn="sklearn.naive_bayes.GaussianNB",
        compiled=True, float32=True,
    ),
    EstimatorEntry(
        "lucidml.neighbors.KNeighborsClassifier",
        kind="classifier",
        sklearn="sklearn.neighbors.KNeighborsClassifier",
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.neighbors.KNeighborsRegressor",
        kind="regressor",
        sklearn="sklearn.neighbors.KNeighborsRegressor",
        compiled=True,
    ),
    # Meta-estimator: the default k-NN fitted on the rows a clustering keeps; no scikit-learn counterpart.
    # check_params: k-means distances with every cluster kept whole (the default, a DBSCAN whose eps follows the
    # data's k-distances, is checked by tests/test_common_defaults.py).
    EstimatorEntry(
        "lucidml.preprocessing.ClusterOutlierFilter",
        kind="classifier",
        check_params={"method": "distance", "quantile": 0.9, "min_cluster_size": 1, "random_state": 0},
        compiled=True,
    ),
    # Chained-equation imputation; scikit-learn's IterativeImputer does the same rounds but lives in
    # sklearn.experimental, so it is not named as the counterpart here (tests/preprocessing compares them).
    EstimatorEntry(
        "lucidml.preprocessing.ModelImputer",
        kind="transformer",
        expected_failures={
            "check_transformer_n_iter": "n_iter_ counts imputation rounds, and the check's table has no missing "
            "value, so no round runs and n_iter_ is 0 (scikit-learn's IterativeImputer fits its column models on "
            "complete columns too, so it reports 1 round that changes nothing)",
        },
    ),
    EstimatorEntry(
        "lucidml.naive_bayes.BernoulliNB",
        kind="classifier",
        sklearn="sklearn.naive_bayes.BernoulliNB",
    ),
    EstimatorEntry(
        "lucidml.naive_bayes.MultinomialNB",
        kind="classifier",
        sklearn="sklearn.naive_bayes.MultinomialNB",
    ),    EstimatorEntry(
        "lucidml.kernels.KernelRidge",
        kind="regressor", float32=True,
        sklearn="sklearn.kernel_ridge.KernelRidge",
        params={"alpha": 1.0, "kernel": "rbf"},
        sklearn_params={"alpha": 1.0, "kernel": "rbf"},
    ),
    EstimatorEntry("lucidml.kernels.KernelLMS", kind="regressor", compiled=True),
    *TREE_ENTRIES,
    EstimatorEntry("lucidml.gam.GAMRegressor", kind="regressor", check_params={"max_iter": 20}),
    EstimatorEntry("lucidml.gam.GAMClassifier", kind="classifier", check_params={"max_iter": 20}),
    EstimatorEntry(
        "lucidml.svm.SVC",
        kind="classifier",
        sklearn="sklearn.svm.SVC",
        # SMO solved to the optimum, so that sparse and dense fits (whose kernel columns round differently
        # and may steer SMO through different working sets) agree to rounding.
        check_params={"tol": 1e-10},
        expected_failures=weight_equivalence_failures(
            "gamma='scale' depends on the variance of the repeated data, so weighted and repeated fits solve "
            "different problems (scikit-learn lists the same expected failure for its SVC); with a fixed gamma "
            "a test shows the equivalence"),
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.svm.SVR",
        kind="regressor",
        sklearn="sklearn.svm.SVR",
        check_params={"tol": 1e-10},  # as for SVC
        expected_failures=weight_equivalence_failures(
            "as for SVC: gamma='scale' depends on the variance of the repeated data (scikit-learn lists the same "
            "expected failure for its SVR)"),
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.mixture.GaussianMixture",
        kind="density", float32=True,
        sklearn="sklearn.mixture.GaussianMixture",
        params={"n_components": 8, "covariance_type": "full", "init_params": "kmeans", "random_state": 0},
        sklearn_params={"n_components": 8, "covariance_type": "full", "init_params": "kmeans", "random_state": 0},
        check_params={"n_components": 2, "max_iter": 20},
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.mixture.BernoulliMixture",
        kind="density",
        check_params={"n_components": 2, "max_iter": 20},
        expected_failures={
            "check_estimator_sparse_array": "the check reads classifier tags of any estimator with predict_proba; "
            "a density estimator has none, so the check itself raises AttributeError (sparse input is supported "
            "and tested)",
            "check_estimator_sparse_matrix": "as check_estimator_sparse_array",
        },
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.decomposition.FactorAnalysis",
        kind="transformer",
        sklearn="sklearn.decomposition.FactorAnalysis",
        params={"n_components": 2},
        sklearn_params={"n_components": 2, "svd_method": "lapack"},
        check_params={"n_components": 2, "max_iter": 50},
    ),
    EstimatorEntry(
        "lucidml.neural.MLPClassifier",
        kind="classifier", float32=True,
        sklearn="sklearn.neural_network.MLPClassifier",
        params={"random_state": 0},
        sklearn_params={"random_state": 0},
        check_params={"hidden_layer_sizes": (10,), "max_iter": 100},
    ),
    EstimatorEntry(
        "lucidml.neural.MLPRegressor",
        kind="regressor", float32=True,
        sklearn="sklearn.neural_network.MLPRegressor",
        params={"random_state": 0},
        sklearn_params={"random_state": 0},
        # (10,) and 100 epochs underfit check_regressors_train's data; scikit-learn's MLP needs the same.
        check_params={"hidden_layer_sizes": (20,), "max_iter": 200},
    ),
    EstimatorEntry(
        "lucidml.neural.CNNClassifier",
        kind="classifier",
        params={"random_state": 0},
        check_params={"filters": (4,), "max_iter": 50, "learning_rate_init": 0.01, "random_state": 0},
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.neural.GCNClassifier",
        kind="classifier",
        params={"random_state": 0},
        check_params={"max_iter": 50, "random_state": 0},
        expected_failures={
            "check_classifiers_classes": "the check uses -1 as a class label, which GCNClassifier reads as an "
            "unlabelled node (the semi-supervised convention; scikit-learn exempts its own LabelSpreading by name)",
        },
    ),
    EstimatorEntry(
        "lucidml.decomposition.PCA",
        kind="transformer", float32=True,
        sklearn="sklearn.decomposition.PCA",
        params={"n_components": 10},
        sklearn_params={"n_components": 10},
        check_params={"n_components": 2},
    ),
    EstimatorEntry(
        "lucidml.decomposition.KernelPCA",
        kind="transformer", float32=True,
        sklearn="sklearn.decomposition.KernelPCA",
        params={"n_components": 10, "kernel": "rbf"},
        sklearn_params={"n_components": 10, "kernel": "rbf"},
        check_params={"n_components": 2},
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.decomposition.TruncatedSVD",
        kind="transformer", float32=True,
        sklearn="sklearn.decomposition.TruncatedSVD",
        params={"n_components": 10, "random_state": 0},
        sklearn_params={"n_components": 10, "random_state": 0},
    ),
    # FastICA estimates the same model by a different contrast and algorithm: no like-for-like counterpart.
    EstimatorEntry(
        "lucidml.decomposition.ICA",
        kind="transformer", float32=True,
        check_params={"max_iter": 5},
        expected_failures={
            "check_array_api_input": "its data has redundant (collinear) features, so X cannot be whitened to full "
            "rank; ICA raises a clear error rather than divide by a zero singular value",
        },
        compiled=True,
    ),
    EstimatorEntry("lucidml.decomposition.LatentSemanticIndexing", kind="transformer"),
    EstimatorEntry(
        "lucidml.svm.LinearSVC",
        kind="classifier",
        sklearn="sklearn.svm.LinearSVC",
        # Solved to the optimum, so that the primal (dense, n > d) and the dual (sparse) agree to rounding.
        check_params={"tol": 1e-10},
        expected_failures=weight_equivalence_failures(
            "at the default tol=1e-4 weighted and repeated fits stop at different iterates (decision values 6e-5 "
            "apart; passes at tol=1e-10); scikit-learn lists both checks as expected failures of its LinearSVC"),
        compiled=True,
    ),
    # Wrapper feature selectors. scikit-learn's SequentialFeatureSelector(direction="backward") selects what SBS
    # selects (tests/model_selection), but needs a model instance, which an entry does not hold; cv=3 keeps the
    # estimator checks cheap.
    EstimatorEntry("lucidml.model_selection.SequentialBackwardSelection", kind="transformer", check_params={"cv": 3}),
    EstimatorEntry("lucidml.model_selection.StepwiseSelection", kind="transformer", check_params={"cv": 3}),
)


def entries(type_filter=None):
    """Registry entries, optionally only those of the given kind(s), sorted by name."""
    if type_filter is None:
        kinds = set(KINDS)
    else:
        kinds = {type_filter} if isinstance(type_filter, str) else set(type_filter)
        unknown = kinds - set(KINDS)
        if unknown:
            raise ValueError(f"type_filter must be None or among {KINDS}; got {sorted(unknown)}.")
    return sorted((e for e in REGISTRY if e.kind in kinds), key=lambda e: e.name)


def get_entry(name):
    """The entry of the estimator called ``name`` (class name, case-insensitive)."""
    for entry in REGISTRY:
        if entry.name.lower() == name.lower():
            return entry
    raise KeyError(f"no lucidml estimator named {name!r}; known: {', '.join(e.name for e in entries())}")
