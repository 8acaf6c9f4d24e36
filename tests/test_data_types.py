"""Sparse and float32 input across the registry (issue 21).

Which estimators take sparse input is each estimator's scikit-learn tag ``input_tags.sparse``;
which keep float32 is the registry's ``float32`` flag. For those, a fit on sparse data must give
the dense fit's results to rounding (also from a messy matrix: duplicate, unsorted and explicit-zero
entries, 64-bit indices), and a float32 fit float32 results close to the float64 fit's. Every other
estimator refuses sparse input with scikit-learn's ``TypeError``.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.utils import get_tags

from lucidml.registry import REGISTRY

SPARSE = [entry for entry in REGISTRY if entry.accepts_sparse]
DENSE_ONLY = [entry for entry in REGISTRY if not entry.accepts_sparse]
FLOAT32 = [entry for entry in REGISTRY if entry.float32]
# Outputs compared between two fits, in this order of preference.
METHODS = ("decision_function", "predict_proba", "transform", "predict")
# Fitted arrays that follow the input's precision where they exist.
FITTED_FLOATS = ("coef_", "intercept_", "cluster_centers_", "components_", "means_", "singular_values_")


def _data(n_samples=90, n_features=12, seed=0):
    """Non-negative data (the naive Bayes models need counts) with 60% zeros, and targets that depend on it."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(0.0, 1.0, (n_samples, n_features))
    X[X < 0.6] = 0.0
    score = X @ rng.normal(size=n_features)
    y_class = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    y_reg = score + 0.1 * rng.normal(size=n_samples)
    return X, y_class, y_reg


def _estimator(entry):
    estimator = entry.make_for_checks()
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=0)
    return estimator


def _target(entry, estimator, y_class, y_reg):
    tags = get_tags(estimator)
    if entry.kind == "classifier":
        return y_class if tags.classifier_tags.multi_class else (y_class > 0).astype(int)
    if entry.kind == "regressor" or tags.target_tags.required:  # a supervised transformer: the feature selectors
        return y_reg - y_reg.min() + 0.1 if tags.target_tags.positive_only else y_reg
    return None


def _fit_outputs(entry, X, y_class, y_reg, **params):
    """(fitted estimator, {method: output on X})."""
    estimator = _estimator(entry).set_params(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, _target(entry, estimator, y_class, y_reg))
    outputs = {method: getattr(estimator, method)(X) for method in METHODS if hasattr(estimator, method)}
    if hasattr(estimator, "labels_"):
        outputs["labels_"] = estimator.labels_
    return estimator, outputs


def _dense(array):
    return array.toarray() if scipy.sparse.issparse(array) else np.asarray(array)


def _assert_close(actual, expected, rtol, what):
    actual, expected = _dense(actual), _dense(expected)
    assert actual.shape == expected.shape, what
    if actual.dtype.kind not in "fc":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    if actual.ndim == 2 and what.endswith("transform"):
        # Components are defined up to sign: align each column with the reference's.
        signs = np.sign(np.sum(actual * expected, axis=0))
        actual = actual * np.where(signs == 0, 1.0, signs)
    scale = max(float(np.max(np.abs(expected))), 1.0)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale, err_msg=what)


def _messy_csr(X):
    """X as a CSR matrix with each stored value split in two duplicate entries, its indices reversed
    within rows, explicit zeros, and 64-bit index arrays: the same matrix to SciPy's arithmetic."""
    canonical = scipy.sparse.csr_matrix(X)
    data, indices, indptr = [], [], [0]
    for row in range(X.shape[0]):
        start, stop = canonical.indptr[row], canonical.indptr[row + 1]
        for value, column in zip(canonical.data[start:stop][::-1], canonical.indices[start:stop][::-1]):
            data += [0.5 * value, 0.0, 0.5 * value]
            indices += [column, column, column]
        indptr.append(len(data))
    messy = scipy.sparse.csr_matrix((np.array(data), np.array(indices, dtype=np.int64),
                                     np.array(indptr, dtype=np.int64)), shape=X.shape)
    assert not messy.has_canonical_format
    return messy


@pytest.mark.parametrize("entry", SPARSE, ids=lambda e: e.name)
@pytest.mark.parametrize("container", ["csr_matrix", "csc_matrix", "csr_array", "messy"])
def test_sparse_fit_equals_dense_fit(entry, container):
    X, y_class, y_reg = _data()
    _, expected = _fit_outputs(entry, X, y_class, y_reg)
    X_sparse = _messy_csr(X) if container == "messy" else getattr(scipy.sparse, container)(X)
    before = X_sparse.copy()
    _, actual = _fit_outputs(entry, X_sparse, y_class, y_reg)
    for method, output in expected.items():
        _assert_close(actual[method], output, 1e-6, f"{entry.name}.{method}")
    # Nothing the user passed is mutated (the messy matrix is canonicalized on a copy).
    assert (X_sparse != before).nnz == 0 and X_sparse.has_canonical_format == before.has_canonical_format


@pytest.mark.parametrize("entry", SPARSE, ids=lambda e: e.name)
def test_sparse_with_nan(entry):
    """NaN stored in a sparse matrix is refused, or, by the estimators that take missing values
    (the trees), treated as the same NaN in dense X is."""
    X, y_class, y_reg = _data()
    X_sparse = scipy.sparse.csr_matrix(X)
    X_sparse.data[3] = np.nan
    estimator = _estimator(entry)
    if not get_tags(estimator).input_tags.allow_nan:
        with pytest.raises(ValueError, match="NaN"):
            estimator.fit(X_sparse, _target(entry, estimator, y_class, y_reg))
        return
    _, expected = _fit_outputs(entry, X_sparse.toarray(), y_class, y_reg)
    _, actual = _fit_outputs(entry, X_sparse, y_class, y_reg)
    for method, output in expected.items():
        _assert_close(actual[method], output, 1e-6, f"{entry.name}.{method}")


@pytest.mark.parametrize("entry", SPARSE, ids=lambda e: e.name)
def test_sparse_zero_rows_and_columns(entry):
    X, y_class, y_reg = _data()
    X[:, 2] = 0.0
    X[[5, 40], :] = 0.0
    _, expected = _fit_outputs(entry, X, y_class, y_reg)
    _, actual = _fit_outputs(entry, scipy.sparse.csr_matrix(X), y_class, y_reg)
    for method, output in expected.items():
        _assert_close(actual[method], output, 1e-6, f"{entry.name}.{method}")


@pytest.mark.parametrize("entry", DENSE_ONLY, ids=lambda e: e.name)
def test_dense_only_estimators_refuse_sparse_input(entry):
    X, y_class, y_reg = _data()
    estimator = _estimator(entry)
    with pytest.raises(TypeError, match="dense data is required"):
        estimator.fit(scipy.sparse.csr_matrix(X), _target(entry, estimator, y_class, y_reg))


@pytest.mark.parametrize("entry", FLOAT32, ids=lambda e: e.name)
def test_float32_is_kept(entry):
    X, y_class, y_reg = _data(n_samples=150)
    _, expected = _fit_outputs(entry, X, y_class, y_reg)
    estimator, actual = _fit_outputs(entry, X.astype(np.float32), y_class, y_reg)
    for method, output in actual.items():
        if method in ("predict", "labels_") and entry.kind != "regressor":
            continue  # labels are compared through the scores
        assert output.dtype == np.float32, f"{entry.name}.{method} gave {output.dtype}"
        _assert_close(output.astype(np.float64), expected[method], 2e-3, f"{entry.name}.{method}")
    for name in FITTED_FLOATS:
        value = getattr(estimator, name, None)
        if isinstance(value, np.ndarray):
            assert value.dtype == np.float32, f"{entry.name}.{name} is {value.dtype}"
    if entry.accepts_sparse:
        _, sparse_outputs = _fit_outputs(entry, scipy.sparse.csr_matrix(X.astype(np.float32)), y_class, y_reg)
        for method, output in actual.items():
            assert sparse_outputs[method].dtype == output.dtype


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_float16_is_converted_with_a_note(entry):
    """float16 is never refused: it is computed in float32 where the estimator reads float32 as it is,
    in float64 elsewhere, and the warning says which."""
    X, y_class, y_reg = _data(n_samples=300)  # enough samples for every class covariance (QDA)
    estimator = _estimator(entry)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(DataConversionWarning, match="float16 input X is computed in float(32|64)"):
            estimator.fit(X.astype(np.float16), _target(entry, estimator, y_class, y_reg))


def test_output_dtypes_follow_the_callers_precision():
    """A network fitted on float32 answered float64 queries in float32; PCA scored a float32 frame in
    float64; DBSCAN kept float32 core samples in float64; the subset selections' tags said they did
    not preserve float32 (their transform does). scikit-learn's dtypes in every case."""
    import pandas as pd
    from sklearn.datasets import load_iris
    from sklearn.utils import get_tags

    from lucidml.cluster import DBSCAN
    from lucidml.decomposition import PCA
    from lucidml.model_selection import SequentialBackwardSelection
    from lucidml.neural import MLPClassifier, MLPRegressor

    X, y = load_iris(return_X_y=True)
    X32 = X.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        classifier = MLPClassifier(hidden_layer_sizes=(5,), max_iter=50, random_state=0).fit(X32, y)
        regressor = MLPRegressor(hidden_layer_sizes=(5,), max_iter=50, random_state=0).fit(X32, y.astype(float))
    assert classifier.predict_proba(X).dtype == regressor.predict(X).dtype == np.float64
    assert classifier.predict_proba(X32).dtype == regressor.predict(X32).dtype == np.float32
    frame = pd.DataFrame(X32, columns=list("abcd"))
    assert PCA(2).fit(frame).score_samples(frame).dtype == np.float32
    assert DBSCAN(eps=0.5).fit(X32).components_.dtype == np.float32
    assert "float32" in get_tags(SequentialBackwardSelection(cv=3)).transformer_tags.preserves_dtype
