"""What the benchmark measures: one case per (registered estimator, parameters, data set, sizes).

The scikit-learn counterpart and the parameters that make the two comparable come from the
registry (``lucidml.registry``); ``params`` here are applied to both sides on top. ``sizes``
are total sample counts of a synthetic data set (80 % train, 20 % test, so 62,500 gives
50,000 × 12,500), or ``None`` for a bundled data set at its own size; ``--quick`` runs only
the first size of each case. ``target`` is the speed goal: the lucidml / scikit-learn ratio of
the ``stage`` ("fit" or "predict") median time at most this. ``memory_queries``: also report
the peak memory of one brute-force neighbour search over that many queries. ``fit_memory``: also
report the peak resident memory one fit adds, for both libraries, each in a fresh process.
``noise``: the synthetic generator's noise (e.g. the blobs' standard deviation). ``versus``:
compare with this scikit-learn class (dotted path, built with ``versus_params`` plus ``params``)
instead of the registry's counterpart, e.g. gradient boosting against the histogram version.
``dtype``: the data's dtype (e.g. ``"float32"``; default as generated, float64 or sparse CSR of
float64). ``max_test``: use only the first rows of the test set (a brute-force neighbour search
over 100,000 training documents for every one of 25,000 test ones would take the run's hour).
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    name: str
    estimator: str
    dataset: str
    sizes: tuple | None = None
    n_features: int | None = None
    params: dict = field(default_factory=dict)
    target: float = 1.0
    stage: str = "fit"
    memory_queries: int | None = None
    fit_memory: bool = False
    noise: float | None = None
    versus: str | None = None
    versus_params: dict = field(default_factory=dict)
    dtype: str | None = None
    max_test: int | None = None


CASES = (
    Case("linear_regression", "LinearRegression", "regression", sizes=(1_000, 10_000, 100_000), n_features=20),
    Case("linear_regression_diabetes", "LinearRegression", "diabetes"),
    Case("linear_regression_1m", "LinearRegression", "regression", sizes=(1_250_000,), n_features=50),
    Case("ridge", "Ridge", "regression", sizes=(12_500, 125_000, 1_250_000), n_features=50),
    Case("lasso", "Lasso", "regression", sizes=(12_500,), n_features=1_000),
    Case("elastic_net", "ElasticNet", "regression", sizes=(12_500,), n_features=1_000),
    Case("logistic_digits", "LogisticRegression", "digits"),
    Case("logistic_binary", "LogisticRegression", "classification", sizes=(12_500, 125_000), n_features=50),
    Case("logistic_multinomial", "LogisticRegression", "multiclass", sizes=(12_500, 125_000), n_features=50),
    Case("softmax_digits", "SoftmaxRegression", "digits"),
    Case("perceptron", "Perceptron", "classification", sizes=(12_500, 125_000), n_features=50),
    Case("perceptron_multiclass", "Perceptron", "multiclass", sizes=(125_000,), n_features=50),
    Case("adaline", "Adaline", "classification", sizes=(125_000,), n_features=50),
    Case("poisson_diabetes", "PoissonRegressor", "diabetes"),
    Case("glm_gaussian", "GLMRegressor", "regression", sizes=(125_000,), n_features=50),
    Case("lad", "LADRegression", "regression", sizes=(2_500,), n_features=10),
    Case("least_squares_classifier", "LeastSquaresClassifier", "classification", sizes=(125_000,), n_features=50),
    Case("gaussian_nb", "GaussianNB", "classification", sizes=(1_000, 10_000, 125_000), n_features=50),
    Case("gaussian_nb_digits", "GaussianNB", "digits"),
    Case("bernoulli_nb", "BernoulliNB", "classification", sizes=(1_000, 10_000, 125_000), n_features=50),
    Case("multinomial_nb", "MultinomialNB", "counts", sizes=(1_000, 10_000, 125_000), n_features=50),
    Case("lda", "LinearDiscriminantAnalysis", "classification", sizes=(1_000, 10_000, 125_000), n_features=50),
    Case("lda_digits", "LinearDiscriminantAnalysis", "digits"),
    # The generator adds redundant (collinear) features: QDA needs regularization, on both sides.
    Case("qda", "QuadraticDiscriminantAnalysis", "classification", sizes=(1_000, 10_000, 125_000), n_features=50,
         params={"reg_param": 0.01}),
    # Clustering (issue 7). KMeans(8) on 100,000 × 20 (3 blobs: the fit has to place 8 centres in them).
    Case("kmeans", "KMeans", "blobs", sizes=(12_500, 125_000), n_features=20, fit_memory=True),
    Case("bisecting_kmeans", "BisectingKMeans", "blobs", sizes=(125_000,), n_features=20),
    # DBSCAN on 3 Gaussian blobs of std 0.3 in 2-D. eps shrinks as 1/√n so that a neighbourhood holds
    # about 350 points at both sizes; dbscan_dense keeps eps = 0.1 at 100,000 points (about 1,800).
    Case("dbscan", "DBSCAN", "blobs", sizes=(25_000,), n_features=2, params={"eps": 0.1, "min_samples": 10},
         fit_memory=True, noise=0.3),
    Case("dbscan_100k", "DBSCAN", "blobs", sizes=(125_000,), n_features=2, params={"eps": 0.045, "min_samples": 10},
         fit_memory=True, noise=0.3),
    Case("dbscan_dense", "DBSCAN", "blobs", sizes=(125_000,), n_features=2, params={"eps": 0.1, "min_samples": 10},
         fit_memory=True, noise=0.3),
    Case("agglomerative_ward", "AgglomerativeClustering", "blobs", sizes=(6_250, 25_000), n_features=10,
         params={"n_clusters": 8, "linkage": "ward"}, fit_memory=True),
    Case("agglomerative_single", "AgglomerativeClustering", "blobs", sizes=(6_250, 25_000), n_features=10,
         params={"n_clusters": 8, "linkage": "single"}, fit_memory=True),
    # Kernels and SVMs (issue 5): SVC(rbf) on digits and on 20,000 × 20 (--full), LinearSVC on 100,000 × 50.
    Case("svc_digits", "SVC", "digits"),
    Case("svc", "SVC", "classification", sizes=(2_500, 25_000), n_features=20),
    Case("svr", "SVR", "regression", sizes=(6_250,), n_features=20),
    Case("linear_svc", "LinearSVC", "classification", sizes=(12_500, 125_000), n_features=50),
    Case("kernel_ridge", "KernelRidge", "regression", sizes=(2_500,), n_features=20),
    # Trees and ensembles (issue 6): 50,000 × 20, and 500,000 × 20 for the single tree in --full.
    Case("decision_tree", "DecisionTreeClassifier", "classification", sizes=(6_250, 62_500, 625_000), n_features=20),
    Case("decision_tree_regressor", "DecisionTreeRegressor", "regression", sizes=(6_250, 62_500), n_features=20),
    Case("random_forest", "RandomForestClassifier", "classification", sizes=(6_250, 62_500), n_features=20,
         params={"n_jobs": 1}),
    Case("random_forest_2_jobs", "RandomForestClassifier", "classification", sizes=(6_250, 62_500), n_features=20,
         params={"n_jobs": 2}),
    Case("random_forest_predict", "RandomForestClassifier", "classification", sizes=(62_500,), n_features=20,
         params={"n_estimators": 20}, stage="predict"),
    Case("adaboost", "AdaBoostClassifier", "classification", sizes=(62_500,), n_features=20),
    Case("gradient_boosting", "GradientBoostingClassifier", "classification", sizes=(6_250, 62_500), n_features=20,
         target=0.1),
    *(Case(f"gradient_boosting{suffix}_vs_hist", f"GradientBoosting{kind}", task, sizes=(62_500, 625_000),
           n_features=20, versus=f"sklearn.ensemble.HistGradientBoosting{kind}",
           versus_params={"max_iter": 100, "max_depth": 3, "max_leaf_nodes": None, "min_samples_leaf": 1,
                          "early_stopping": False, "random_state": 0})
      for suffix, kind, task in (("", "Classifier", "classification"), ("_regressor", "Regressor", "regression"))),
    # Wide dense tables (issue 26): 2,000 × 5,000 word counts as a dense array (documents on 5 topics,
    # Zipf-like vocabulary, about 100 words each; topics drawn with concentration 10, close enough that
    # trees reach about 0.7 accuracy, as on real text), the fit's peak memory beside scikit-learn's.
    *(Case(f"wide_{name}", estimator, "word_counts", sizes=(2_500,), n_features=5_000, params=params, noise=10.0,
           fit_memory=True, versus=versus, versus_params=versus_params)
      for name, estimator, params, versus, versus_params in (
          ("decision_tree", "DecisionTreeClassifier", {}, None, {}),
          ("random_forest", "RandomForestClassifier", {"n_estimators": 100, "n_jobs": 1}, None, {}),
          ("adaboost", "AdaBoostClassifier", {}, None, {}),
          ("gradient_boosting", "GradientBoostingClassifier", {}, "sklearn.ensemble.HistGradientBoostingClassifier",
           {"max_iter": 100, "max_depth": 3, "max_leaf_nodes": None, "min_samples_leaf": 1, "early_stopping": False,
            "random_state": 0}),
      )),
    # Mixtures and decompositions (issue 8).
    Case("pca", "PCA", "classification", sizes=(125_000,), n_features=100),
    Case("gaussian_mixture", "GaussianMixture", "blobs", sizes=(125_000,), n_features=20),
    Case("kernel_pca", "KernelPCA", "classification", sizes=(2_500,), n_features=20),
    Case("truncated_svd", "TruncatedSVD", "documents", sizes=(125_000,), n_features=10_000),
    Case("factor_analysis", "FactorAnalysis", "classification", sizes=(125_000,), n_features=20),
    # Neural networks (issue 9): equal epochs and architecture (100 hidden units, adam, batches of 200).
    Case("mlp_digits", "MLPClassifier", "digits",
         params={"batch_size": 200, "max_iter": 20, "tol": 0.0, "n_iter_no_change": 1000}),
    Case("mlp", "MLPClassifier", "multiclass", sizes=(62_500,), n_features=100,
         params={"batch_size": 200, "max_iter": 20, "tol": 0.0, "n_iter_no_change": 1000}),
    Case("knn_digits", "KNeighborsClassifier", "digits", stage="predict"),
    Case("knn_20d", "KNeighborsClassifier", "classification", sizes=(12_500, 62_500), n_features=20,
         params={"algorithm": "brute"}, stage="predict", memory_queries=200_000),
    Case("knn_200d", "KNeighborsClassifier", "classification", sizes=(12_500, 62_500), n_features=200,
         stage="predict"),
    Case("knn_regressor", "KNeighborsRegressor", "regression", sizes=(12_500, 62_500), n_features=20, stage="predict"),
    # Sparse input (issue 21): 100,000 × 50,000 document–term counts (CSR, about 80 stored entries per
    # row, Zipf-like vocabulary, 5 topics), the fit's peak memory beside scikit-learn's.
    *(Case(f"sparse_{name}", estimator, "documents", sizes=(125_000,), n_features=50_000, params=params,
           fit_memory=True, stage=stage, max_test=max_test)
      for name, estimator, params, stage, max_test in (
          ("logistic", "LogisticRegression", {}, "fit", None),
          ("linear_svc", "LinearSVC", {}, "fit", None),
          ("multinomial_nb", "MultinomialNB", {}, "fit", None),
          ("ridge", "Ridge", {}, "fit", None),  # regressing the topic index: a timing, R² is incidental
          ("kmeans", "KMeans", {"n_clusters": 5, "n_init": 1}, "fit", None),
          ("knn", "KNeighborsClassifier", {"algorithm": "brute"}, "predict", 2_000),
          ("truncated_svd", "TruncatedSVD", {"n_components": 100}, "fit", None),
      )),
    # Gradient boosting's histograms on the codes of the stored entries only (_sparse_bins): 20,000
    # training rows of the same documents (scikit-learn's exact GradientBoostingClassifier on its sparse
    # splitter; HistGradientBoosting takes no sparse X).
    Case("sparse_gradient_boosting", "GradientBoostingClassifier", "documents", sizes=(25_000,), n_features=50_000,
         params={"n_estimators": 20}, fit_memory=True),
    # float32 end to end (issue 21): the same estimators on 1,000,000 × 50 dense data, float32 beside
    # float64, the fit's peak memory beside scikit-learn's.
    *(Case(f"{name}_1m_{dtype}", estimator, dataset, sizes=(1_250_000,), n_features=50, params=params,
           fit_memory=True, dtype=dtype, stage=stage, max_test=max_test)
      for dtype in ("float32", "float64")
      for name, estimator, dataset, params, stage, max_test in (
          ("logistic", "LogisticRegression", "multiclass", {}, "fit", None),
          ("linear_svc", "LinearSVC", "classification", {}, "fit", None),
          ("multinomial_nb", "MultinomialNB", "counts", {}, "fit", None),
          ("ridge", "Ridge", "regression", {}, "fit", None),
          ("kmeans", "KMeans", "blobs", {"n_clusters": 8, "n_init": 1}, "fit", None),
          ("knn", "KNeighborsClassifier", "classification", {"algorithm": "brute"}, "predict", 2_000),
          ("truncated_svd", "TruncatedSVD", "classification", {"n_components": 10}, "fit", None),
      )),
)
