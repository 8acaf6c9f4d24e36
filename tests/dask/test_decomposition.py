"""lucidml.dask.PCA and TruncatedSVD by TSQR equal the in-memory exact SVD."""

import dask.array as da
import numpy as np
import pytest

import lucidml.dask as ld
from lucidml.decomposition import PCA, TruncatedSVD

from .test_estimators import _assert_same_fit


def _correlated(seed=0, n=1500, d=8, offset=1e3):
    """Correlated features with a large mean and spread-out variances (a small last one)."""
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(d, d)) * np.logspace(0, -4, d)[:, None]
    return rng.normal(size=(n, d)) @ mixing + offset


@pytest.mark.parametrize("params", [{}, {"n_components": 3}, {"n_components": 0.99}, {"n_components": 3, "whiten": True},
                                    {"n_components": 4, "standardize": True}])
def test_pca_equals_the_in_memory_full_svd(client, params):
    X = _correlated()
    dX = da.from_array(X, chunks=(170, -1))
    fitted = ld.PCA(**params).fit(dX)
    expected = PCA(svd_solver="full", **params).fit(X)
    assert fitted.n_components_ == expected.n_components_
    # The spectrum spans 8 orders of magnitude: the small variances to a tolerance relative to the largest.
    atol = 1e-9 * float(expected.explained_variance_[0])
    if params.get("n_components"):  # the kept components are well separated: every attribute matches
        _assert_same_fit(fitted, expected, rtol=1e-7, atol=atol)
    np.testing.assert_allclose(fitted.explained_variance_, expected.explained_variance_, rtol=1e-8, atol=atol)
    k = min(fitted.n_components_, 4)  # well-separated leading components: the same vectors and signs
    np.testing.assert_allclose(fitted.components_[:k], expected.components_[:k], rtol=1e-6, atol=1e-8)
    scores = fitted.transform(dX).compute()
    np.testing.assert_allclose(scores[:, :k], expected.transform(X)[:, :k], rtol=1e-6, atol=1e-6)
    assert fitted.fit_transform(dX).chunks[0] == dX.chunks[0]


def test_truncated_svd_equals_the_in_memory_full_svd(client):
    X = _correlated(seed=1, offset=3.0)
    fitted = ld.TruncatedSVD(n_components=3).fit(da.from_array(X, chunks=(100, 4)))  # column chunks too
    expected = TruncatedSVD(n_components=3, algorithm="full").fit(X)
    _assert_same_fit(fitted, expected, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fitted.transform(da.from_array(X, chunks=(300, -1))).compute(),
                               expected.transform(X), rtol=1e-8, atol=1e-9)


def test_tiny_and_ragged_chunks_merge_exactly(client):
    """Chunks of 1, 2 and 3 rows (fewer rows than features) still give the exact factor."""
    X = _correlated(seed=2, n=60, d=5)
    chunks = ((1, 2, 3, 10, 44), (5,))
    fitted = ld.PCA().fit(da.from_array(X, chunks=chunks))
    expected = PCA(svd_solver="full").fit(X)
    np.testing.assert_allclose(fitted.singular_values_, expected.singular_values_, rtol=1e-8,
                               atol=1e-9 * expected.singular_values_[0])
    np.testing.assert_allclose(fitted.mean_, expected.mean_, rtol=1e-14)


def test_bad_inputs(client):
    X = _correlated(seed=3, n=100, d=4)
    X[50, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ld.PCA(2).fit(da.from_array(X, chunks=(30, -1)))
    with pytest.raises(ValueError, match="n_components=7"):
        ld.PCA(7).fit(da.ones((100, 4), chunks=(30, 4)))
    with pytest.raises(ValueError, match="n_components=5"):
        ld.TruncatedSVD(5).fit(da.ones((100, 4), chunks=(30, 4)))
