"""Quantile binning: the contract every histogram tree relies on."""

import numpy as np
import pytest

from lucidml.tree._binning import apply_bins, bin_dtype, cell_pointers, fit_bin_edges


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    X[:, 1] = rng.integers(0, 5, size=3000)  # few distinct values
    X[::11, 2] = np.nan
    X[:, 3] = 7.0  # constant
    return X


def test_split_on_bins_equals_split_on_values(X):
    edges = fit_bin_edges(X, max_bins=32)
    B = apply_bins(X, edges, max_bins=32)
    for j in range(X.shape[1]):
        present = ~np.isnan(X[:, j])
        assert len(edges[j]) <= 31
        assert np.all(np.diff(edges[j]) > 0)
        for b in range(len(edges[j])):
            assert np.array_equal(B[present, j] <= b, X[present, j] <= edges[j][b])


def test_few_distinct_values_get_exact_midpoints(X):
    edges = fit_bin_edges(X)
    np.testing.assert_array_equal(edges[1], [0.5, 1.5, 2.5, 3.5])
    assert edges[3].size == 0


def test_missing_bin_and_dtype(X):
    """NaN goes to its feature's own missing bin, the one after its last value bin (a histogram
    keeps that many cells per feature: _binning.cell_pointers)."""
    edges = fit_bin_edges(X, max_bins=16)
    B = apply_bins(X, edges, max_bins=16)
    assert B.dtype == np.uint8 and B.flags.f_contiguous
    np.testing.assert_array_equal(np.isnan(X[:, 2]), B[:, 2] == len(edges[2]) + 1)
    assert B[~np.isnan(X[:, 2]), 2].max() <= len(edges[2])
    edges = fit_bin_edges(X, max_bins=1000)
    B16 = apply_bins(X, edges, max_bins=1000, order="C")
    assert B16.dtype == np.uint16 == bin_dtype(1000) and B16.flags.c_contiguous
    np.testing.assert_array_equal(B16[np.isnan(X[:, 2]), 2], len(edges[2]) + 1)
    cell_ptr = cell_pointers(np.cumsum([0] + [len(e) for e in edges]))
    np.testing.assert_array_equal(np.diff(cell_ptr), [len(e) + 2 for e in edges])  # value bins, missing bin
    assert cell_ptr[0] == 0 and cell_ptr.dtype == np.int64


def test_quantile_bins_are_balanced():
    x = np.random.default_rng(1).exponential(size=(20000, 1))
    B = apply_bins(x, fit_bin_edges(x, max_bins=10), max_bins=10)
    counts = np.bincount(B[:, 0], minlength=10)
    assert counts.min() > 0.7 * 20000 / 10 and counts.max() < 1.3 * 20000 / 10


def test_subsample_is_reproducible():
    X = np.random.default_rng(2).normal(size=(5000, 2))
    a = fit_bin_edges(X, max_bins=20, subsample=1000, random_state=0)
    b = fit_bin_edges(X, max_bins=20, subsample=1000, random_state=0)
    for ea, eb in zip(a, b):
        np.testing.assert_array_equal(ea, eb)


def test_bad_input():
    with pytest.raises(ValueError, match="max_bins"):
        fit_bin_edges(np.zeros((3, 1)), max_bins=1)
    with pytest.raises(ValueError, match="features"):
        apply_bins(np.zeros((3, 2)), [np.array([0.5])])
