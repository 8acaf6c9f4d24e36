"""lucidml.dask estimators fitted on multi-chunk dask arrays equal the in-memory lucidml estimators."""

import os
import subprocess
import sys
import tempfile
import warnings

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import lucidml
import lucidml.dask as ld
from lucidml.cluster import KMeans
from lucidml.discriminant import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from lucidml.linear import LinearRegression, LogisticRegression, Ridge
from lucidml.naive_bayes import GaussianNB
from lucidml.utils import InvalidParameterError

CHUNKS = (170, -1)  # 6 uneven row chunks of the 1,000 rows


def _classification(seed=0, n=1000, d=4, offset=1e3):
    """Three overlapping Gaussian classes far from the origin (a large mean tests the centred merge)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, d)) * np.linspace(0.5, 3.0, d) + y[:, None] * 0.8 + offset
    return X, y


def _regression(seed=0, n=1000, d=5, targets=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([1, 10, 100, 0.1, 1])[:d] + 50
    Y = X @ rng.normal(size=(d, targets)) + rng.normal(size=(n, targets))
    return X, (Y[:, 0] if targets == 1 else Y)


def _assert_same_fit(dask_model, memory_model, rtol=1e-9, atol=1e-12):
    """``to_local()`` has exactly the in-memory model's attributes, with equal values."""
    local = dask_model.to_local()
    assert type(local) is type(memory_model)
    assert set(vars(local)) == set(vars(memory_model))
    for name, expected in vars(memory_model).items():
        got = vars(local)[name]
        if isinstance(expected, (np.ndarray, float, np.floating)) and np.asarray(expected).dtype.kind == "f":
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=name)
            assert np.asarray(got).dtype == np.asarray(expected).dtype, name
        elif isinstance(expected, np.ndarray):
            np.testing.assert_array_equal(got, expected, err_msg=name)
    # The public fitted attributes are also the dask estimator's own.
    for name, value in vars(local).items():
        if name.endswith("_") and not name.startswith("_") and name != "labels_":
            np.testing.assert_array_equal(getattr(dask_model, name), value)


def test_import_lucidml_does_not_import_dask():
    code = "import sys, lucidml; lucidml.all_estimators(); print(sorted(m for m in sys.modules " \
           "if m.split('.')[0] in ('dask', 'distributed') or m.startswith('lucidml.dask')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", [n for n in ld.__all__ if hasattr(getattr(ld, n), "_parameter_constraints")])
def test_constraints_name_only_own_parameters(name):
    """A constraint copied from the in-memory twin for a parameter the Dask class lacks (e.g. its
    ``verbose``) would make every fit fail in ``validate_params``."""
    estimator = getattr(ld, name)()
    assert set(estimator._parameter_constraints) <= set(estimator.get_params())


@pytest.mark.parametrize("dask_class, memory_class, params", [
    (ld.GaussianNB, GaussianNB, {}),
    (ld.GaussianNB, GaussianNB, {"priors": [0.2, 0.3, 0.5], "var_smoothing": 1e-3}),
    (ld.LinearDiscriminantAnalysis, LinearDiscriminantAnalysis, {}),
    (ld.LinearDiscriminantAnalysis, LinearDiscriminantAnalysis, {"shrinkage": 0.3, "n_components": 1}),
    (ld.QuadraticDiscriminantAnalysis, QuadraticDiscriminantAnalysis, {}),
    (ld.QuadraticDiscriminantAnalysis, QuadraticDiscriminantAnalysis, {"reg_param": 0.1, "priors": [0.5, 0.25, 0.25]}),
])
def test_generative_classifiers_match_in_memory(client, dask_class, memory_class, params):
    X, y = _classification()
    fitted = dask_class(**params).fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    expected = memory_class(**params).fit(X, y)
    _assert_same_fit(fitted, expected)
    dX = da.from_array(X, chunks=(300, -1))
    proba = fitted.predict_proba(dX)
    assert isinstance(proba, da.Array) and proba.chunks == ((300, 300, 300, 100), (3,))
    np.testing.assert_allclose(proba.compute(), expected.predict_proba(X), rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(fitted.predict(dX).compute(), expected.predict(X))


@pytest.mark.parametrize("dask_class, memory_class", [
    (ld.GaussianNB, GaussianNB), (ld.LinearDiscriminantAnalysis, LinearDiscriminantAnalysis),
    (ld.QuadraticDiscriminantAnalysis, QuadraticDiscriminantAnalysis)])
def test_float32_data_give_the_in_memory_float32_model(client, dask_class, memory_class):
    X, y = _classification(seed=10, offset=5.0)
    X = X.astype(np.float32)
    fitted = dask_class().fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    # The statistics are float64 on both sides; only the float32 products of QDA's in-memory
    # scatter differ, at float32 precision.
    _assert_same_fit(fitted, memory_class().fit(X, y), rtol=1e-4, atol=1e-6)


def test_lda_transform_and_decision_function_are_lazy(client):
    X, y = _classification(seed=1)
    fitted = ld.LinearDiscriminantAnalysis().fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    expected = LinearDiscriminantAnalysis().fit(X, y)
    dX = da.from_array(X, chunks=CHUNKS)
    for method in ("transform", "decision_function", "predict_log_proba"):
        lazy = getattr(fitted, method)(dX)
        assert isinstance(lazy, da.Array)
        np.testing.assert_allclose(lazy.compute(), getattr(expected, method)(X), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("n_features", [4, 30])
def test_lda_auto_shrinkage_matches_in_memory(client, n_features):
    X, y = _classification(seed=9, n=300 if n_features == 30 else 1000, d=n_features)
    fitted = ld.LinearDiscriminantAnalysis(shrinkage="auto").fit(da.from_array(X, chunks=(70, -1)),
                                                                 da.from_array(y, chunks=70))
    _assert_same_fit(fitted, LinearDiscriminantAnalysis(shrinkage="auto").fit(X, y), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("params", [{}, {"fit_intercept": False}, {"solver": "normal"}])
@pytest.mark.parametrize("targets", [1, 2])
def test_linear_regression_matches_in_memory(client, params, targets):
    X, y = _regression(targets=targets)
    fitted = ld.LinearRegression(**params).fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=250))
    _assert_same_fit(fitted, LinearRegression(**params).fit(X, y), rtol=1e-9, atol=1e-10)


def test_linear_regression_rank_deficient_gives_the_minimum_norm_solution(client):
    X, y = _regression()
    X = np.c_[X[:, :2], 2.0 * X[:, 0]]  # the third column repeats the first
    fitted = ld.LinearRegression().fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    expected = LinearRegression().fit(X, y)
    assert fitted.rank_ == expected.rank_ == 2
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6)
    np.testing.assert_allclose(fitted.intercept_, expected.intercept_, rtol=1e-6)


@pytest.mark.parametrize("params, targets", [({}, 1), ({"alpha": 10.0}, 2), ({"alpha": [0.5, 20.0]}, 2),
                                             ({"fit_intercept": False}, 1)])
def test_ridge_matches_in_memory(client, params, targets):
    X, y = _regression(seed=2, targets=targets)
    fitted = ld.Ridge(**params).fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    _assert_same_fit(fitted, Ridge(**params).fit(X, y), rtol=1e-9, atol=1e-10)


def test_ridge_local_model_gives_predictive_std(client):
    X, y = _regression(seed=3)
    local = ld.Ridge(alpha=2.0).fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170)).to_local()
    expected = Ridge(alpha=2.0).fit(X, y)
    for got, want in zip(local.predict(X[:50], return_std=True), expected.predict(X[:50], return_std=True)):
        np.testing.assert_allclose(got, want, rtol=1e-9)


@pytest.mark.parametrize("params", [{}, {"multi_class": "ovr"}, {"C": 0.05, "fit_intercept": False},
                                    {"penalty": "none"}])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_logistic_regression_matches_in_memory(client, params, n_classes):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(1000, 4))
    y = np.digitize(X @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.normal(size=1000), [-1.0, 1.0][: n_classes - 1])
    fitted = ld.LogisticRegression(**params).fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    expected = LogisticRegression(**params).fit(X, y)
    np.testing.assert_array_equal(fitted.n_iter_, expected.n_iter_)  # the same L-BFGS iterates
    _assert_same_fit(fitted, expected, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fitted.predict_proba(da.from_array(X, chunks=CHUNKS)).compute(),
                               expected.predict_proba(X), rtol=1e-8, atol=1e-12)


def test_logistic_regression_warns_like_in_memory(client):
    X = np.r_[np.linspace(-3, -1, 50), np.linspace(1, 3, 50)][:, None]
    y = np.repeat([0, 1], 50)
    with pytest.warns(UserWarning, match="linearly separable"):
        ld.LogisticRegression(penalty="none", max_iter=500).fit(da.from_array(X, chunks=(30, 1)), y)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        ld.LogisticRegression(max_iter=2).fit(da.from_array(X, chunks=(30, 1)), y)


def _blobs(seed=0, n=2000):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(m, 1.0, (n // 4, 3)) for m in (0.0, 4.0, 8.0, 12.0)])
    return X[rng.permutation(n)]


def test_kmeans_from_the_same_centres_equals_in_memory(client):
    X = _blobs()
    init = X[:4].copy()
    fitted = ld.KMeans(4, init=init).fit(da.from_array(X, chunks=(300, -1)))
    expected = KMeans(4, init=init, n_init=1).fit(X)
    assert fitted.n_iter_ == expected.n_iter_
    _assert_same_fit(fitted, expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(fitted.labels_.compute(), expected.labels_)


def test_kmeans_reseeds_an_empty_cluster_as_in_memory(client):
    X = _blobs(seed=1)
    init = np.vstack([X[:3], [[1e3, 1e3, 1e3]]])  # the last centre wins no point
    fitted = ld.KMeans(4, init=init).fit(da.from_array(X, chunks=(300, -1)))
    expected = KMeans(4, init=init, n_init=1).fit(X)
    np.testing.assert_allclose(fitted.cluster_centers_, expected.cluster_centers_, rtol=1e-10)
    assert fitted.n_iter_ == expected.n_iter_
    assert np.isclose(fitted.inertia_, expected.inertia_, rtol=1e-10)


def test_kmeans_warns_at_max_iter_and_seeds_well(client):
    X = _blobs(seed=2)
    init = X[:4].copy()
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        fitted = ld.KMeans(4, init=init, max_iter=2).fit(da.from_array(X, chunks=(300, -1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        expected = KMeans(4, init=init, n_init=1, max_iter=2).fit(X)
    np.testing.assert_allclose(fitted.cluster_centers_, expected.cluster_centers_, rtol=1e-10)
    np.testing.assert_allclose(fitted.inertia_, expected.inertia_, rtol=1e-10)
    # Sampled k-means++ finds the four blobs: the SSE of the in-memory k-means++ fit, within 1 %.
    seeded = ld.KMeans(4, random_state=0, init_sample_size=400).fit(da.from_array(X, chunks=(300, -1)))
    best = KMeans(4, random_state=0, n_init=5).fit(X)
    assert seeded.inertia_ <= 1.01 * best.inertia_


def test_kmeans_inertia_matches_dask_ml(client):
    dask_ml_cluster = pytest.importorskip("dask_ml.cluster")
    X = da.from_array(_blobs(seed=3), chunks=(300, -1))
    ours = ld.KMeans(4, random_state=0).fit(X)
    theirs = dask_ml_cluster.KMeans(n_clusters=4, random_state=0).fit(X)
    assert ours.inertia_ <= 1.001 * theirs.inertia_


def test_dask_dataframe_input_with_string_labels(client):
    X, y = _classification(seed=4)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    labels = pd.Series(np.array(["a", "b", "c"])[y], name="label")
    fitted = ld.GaussianNB().fit(dd.from_pandas(frame, npartitions=4), dd.from_pandas(labels, npartitions=4))
    expected = GaussianNB().fit(frame, labels)
    np.testing.assert_array_equal(fitted.classes_, expected.classes_)
    np.testing.assert_array_equal(fitted.feature_names_in_, expected.feature_names_in_)
    np.testing.assert_allclose(fitted.theta_, expected.theta_, rtol=1e-12)
    np.testing.assert_allclose(fitted.var_, expected.var_, rtol=1e-9)
    predicted = fitted.predict(dd.from_pandas(frame, npartitions=3))
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), expected.predict(frame))


def test_column_chunks_and_unaligned_y_chunks_are_rechunked(client):
    X, y = _regression(seed=5)
    fitted = ld.Ridge().fit(da.from_array(X, chunks=(200, 2)), da.from_array(y, chunks=333))
    _assert_same_fit(fitted, Ridge().fit(X, y), rtol=1e-9, atol=1e-10)


def test_bad_inputs_raise_clear_errors(client):
    X, y = _classification()
    dX, dy = da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170)
    with_nan = X.copy()
    with_nan[700, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ld.LinearDiscriminantAnalysis().fit(da.from_array(with_nan, chunks=CHUNKS), dy)
    with pytest.raises(ValueError, match="NaN"):
        ld.Ridge().fit(da.from_array(with_nan, chunks=CHUNKS), dy)
    with pytest.raises(ValueError, match="different numbers of samples"):
        ld.GaussianNB().fit(dX, dy[:-5])
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        ld.GaussianNB().fit(dX[dX[:, 0] > 1000], dy)
    with pytest.raises(ValueError, match="2-D"):
        ld.KMeans(2).fit(da.from_array(X[:, 0], chunks=100))
    with pytest.raises(ValueError, match="at least two classes"):
        ld.QuadraticDiscriminantAnalysis().fit(dX, da.zeros(1000, chunks=170))
    with pytest.raises(ValueError, match="continuous"):
        ld.GaussianNB().fit(dX, da.from_array(X[:, 0], chunks=170))
    with pytest.raises(TypeError, match="numbers"):
        ld.KMeans(2).fit(da.from_array(np.array([["a", "b"]] * 10), chunks=(5, 2)))
    fitted = ld.GaussianNB().fit(dX, dy)
    with pytest.raises(ValueError, match="3 features, but GaussianNB is expecting 4"):
        fitted.predict(dX[:, :3])
    with pytest.raises(InvalidParameterError):
        ld.Ridge(alpha=-1.0).fit(dX, dy)


def test_parallel_post_fit_runs_any_fitted_estimator_lazily(client):
    from lucidml.decomposition import PCA
    from lucidml.linear import LogisticRegression
    from lucidml.mixture import GaussianMixture

    X, y = _classification(seed=6, offset=0.0)
    dX = da.from_array(X, chunks=CHUNKS)
    cases = [(LogisticRegression(max_iter=500).fit(X, y), ("predict", "predict_proba", "decision_function")),
             (PCA(n_components=2).fit(X), ("transform",)),
             (GaussianMixture(n_components=2, random_state=0).fit(X), ("score_samples", "predict")),
             (KMeans(3, random_state=0, n_init=1).fit(X), ("predict", "transform"))]
    for model, methods in cases:
        wrapped = ld.ParallelPostFit(model)
        for method in methods:
            lazy = getattr(wrapped, method)(dX)
            expected = getattr(model, method)(X)
            assert isinstance(lazy, da.Array), (model, method)
            assert lazy.chunks[0] == dX.chunks[0] and lazy.dtype == expected.dtype and lazy.ndim == expected.ndim
            np.testing.assert_allclose(lazy.compute(), expected, rtol=1e-10, atol=1e-12)
    assert not hasattr(ld.ParallelPostFit(PCA()), "predict_proba")
    # A model fitted on named columns gets its blocks as data frames with those names.
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    named = GaussianNB().fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names"
        lazy = ld.ParallelPostFit(named).predict_proba(dd.from_pandas(frame, npartitions=3))
        np.testing.assert_allclose(lazy.compute(), named.predict_proba(frame))
    with pytest.raises(ValueError, match="feature names"):
        ld.ParallelPostFit(named).predict(dd.from_pandas(frame[["d", "c", "b", "a"]], npartitions=3))
    with pytest.raises(NotFittedError):
        ld.ParallelPostFit(GaussianNB()).predict(dX)
    fitted = ld.ParallelPostFit(GaussianNB()).fit(X, y)
    np.testing.assert_array_equal(fitted.predict(dX).compute(), GaussianNB().fit(X, y).predict(X))
    with pytest.raises(TypeError, match="in memory"):
        ld.ParallelPostFit(GaussianNB()).fit(dX, y)


@pytest.mark.parametrize("make", [
    lambda X, y: ld.GaussianNB().fit(X, y),
    lambda X, y: ld.LinearDiscriminantAnalysis().fit(X, y),
    lambda X, y: ld.QuadraticDiscriminantAnalysis().fit(X, y),
    lambda X, y: ld.LinearRegression().fit(X, y.astype(float)),
    lambda X, y: ld.Ridge(alpha=3.0).fit(X, y.astype(float)),
    lambda X, y: ld.KMeans(3, random_state=0).fit(X),
    lambda X, y: ld.LogisticRegression().fit(X, y),
    lambda X, y: ld.SoftmaxRegression().fit(X, y),
    lambda X, y: ld.PoissonRegressor().fit(X, y),
    lambda X, y: ld.GaussianMixture(3, random_state=0).fit(X),
], ids=["GaussianNB", "LDA", "QDA", "LinearRegression", "Ridge", "KMeans", "LogisticRegression", "SoftmaxRegression",
        "PoissonRegressor", "GaussianMixture"])
def test_to_local_round_trips_through_lucidml_io(client, make):
    X, y = _classification(seed=7, n=400, offset=0.0)
    fitted = make(da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100))
    local = fitted.to_local()
    with tempfile.TemporaryDirectory() as folder:
        loaded = lucidml.load(lucidml.save(local, os.path.join(folder, "model.lucid")))
    assert type(loaded) is type(local)
    np.testing.assert_array_equal(loaded.predict(X), local.predict(X))
    np.testing.assert_array_equal(loaded.predict(X), fitted.predict(da.from_array(X, chunks=(100, -1))).compute())
