"""Sparse and float32 X in the tree models (issue 21).

A sparse X is binned column by column (its unlisted zeros never materialized) into the same dense
bin matrix as the dense X, or, at most 25% nonzero, into codes of its stored entries only
(``_sparse_bins``), and prediction walks CSR rows. So a sparse fit must equal the dense fit with
the same histogram search, bin for bin; a float32 X is read as it is.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification

from lucidml.ensemble import (
    AdaBoostClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from lucidml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from lucidml.tree._binning import apply_bins, bin_value_ranges, cell_pointers, fit_bin_edges


def _sparse_data(n_samples=400, n_features=30, density=0.15, seed=0, distinct=None):
    """Sparse-looking data (mostly zeros, negative and positive values) and targets depending on it."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, n_features))
    if distinct is not None:
        X = np.round(X * distinct) / distinct
    X[rng.uniform(size=X.shape) > density] = 0.0
    score = X[:, :5].sum(axis=1) + 0.1 * rng.normal(size=n_samples)
    return X, (score > np.median(score)).astype(int), score


@settings(max_examples=40, deadline=None)
@given(n_samples=st.integers(1, 60), n_features=st.integers(1, 4), density=st.floats(0.0, 1.0),
       max_bins=st.sampled_from([2, 3, 8, 255]), seed=st.integers(0, 2**16), nan=st.booleans(),
       subsample=st.sampled_from([None, 7]), block=st.sampled_from([0, 1, 5, 1 << 18]))
def test_sparse_binning_equals_dense_binning(n_samples, n_features, density, max_bins, seed, nan, subsample, block):
    """Edges, bins and bin ranges of a sparse matrix are those of the same matrix dense, for any mix
    of negative, positive, explicit-zero and unlisted entries (the quantile path included). The
    edges of a sparse X of small columns are found a block of columns at a time
    (``_binning._small_sparse_column_edges``): blocks of about ``block`` stored values (0: a column
    at a time, as for large columns)."""
    from lucidml.tree import _binning

    rng = np.random.RandomState(seed)
    X = rng.choice([-2.0, -0.5, 0.0, 0.25, 1.0, 3.0], size=(n_samples, n_features)) * rng.uniform(1, 2, (n_samples, 1))
    X[rng.uniform(size=X.shape) > density] = 0.0
    if nan:
        X[0, 0] = np.nan
    sparse = scipy.sparse.csc_matrix(X)
    if sparse.nnz:
        sparse.data[0] = 0.0 if not np.isnan(sparse.data[0]) else sparse.data[0]  # an explicit zero
        X = sparse.toarray()
    dense_edges = fit_bin_edges(X, max_bins, subsample=subsample, random_state=0)
    defaults = _binning._EDGE_BLOCK, _binning._SMALL_COLUMNS
    _binning._EDGE_BLOCK, _binning._SMALL_COLUMNS = max(block, 1), defaults[1] if block else -1
    try:
        sparse_edges = fit_bin_edges(sparse, max_bins, subsample=subsample, random_state=0)
    finally:
        _binning._EDGE_BLOCK, _binning._SMALL_COLUMNS = defaults
    for dense_column, sparse_column in zip(dense_edges, sparse_edges):
        np.testing.assert_array_equal(sparse_column, dense_column)
    binned = apply_bins(X, dense_edges, max_bins)
    np.testing.assert_array_equal(apply_bins(sparse, dense_edges, max_bins), binned)
    np.testing.assert_array_equal(apply_bins(sparse.tocsr(), dense_edges, max_bins, order="C"), binned)
    cell_ptr = cell_pointers(np.cumsum([0] + [len(e) for e in dense_edges]))
    for dense_range, sparse_range in zip(bin_value_ranges(X, binned, cell_ptr),
                                         bin_value_ranges(sparse, binned, cell_ptr)):
        np.testing.assert_array_equal(sparse_range, dense_range)


def test_quantile_edges_of_a_sparse_column_count_its_zeros():
    """Many distinct values: the quantiles are those of the column with its zeros (70% here)."""
    X, _, _ = _sparse_data(n_samples=2_000, n_features=3, density=0.3)
    edges = fit_bin_edges(scipy.sparse.csr_matrix(X), max_bins=16)
    np.testing.assert_array_equal(edges[0], fit_bin_edges(X, max_bins=16)[0])
    assert np.sum(edges[0] < 0) < 3 and np.sum(edges[0] > 0) < 3  # most quantiles fall on the zeros


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_edges_sum_an_entry_stored_twice_and_leave_the_input_alone(fmt):
    """A matrix that lists a value twice (SciPy's non-canonical format) means their sum, as
    ``toarray`` does: the edges are the dense matrix's, and the caller's arrays stay as they were."""
    rng = np.random.default_rng(0)
    major, minor = (300, 4) if fmt == "csr" else (4, 300)
    outer = np.sort(rng.integers(0, major, 2_000))
    inner = rng.integers(0, minor, 2_000)  # many (row, column) pairs twice, in no order
    indptr = np.concatenate(([0], np.cumsum(np.bincount(outer, minlength=major))))
    X = getattr(scipy.sparse, f"{fmt}_matrix")((rng.normal(size=2_000), inner, indptr), shape=(300, 4))
    assert not X.has_canonical_format
    before = X.data.copy(), X.indices.copy(), X.indptr.copy()
    for edges, expected in zip(fit_bin_edges(X, max_bins=32), fit_bin_edges(X.toarray(), max_bins=32)):
        np.testing.assert_allclose(edges, expected, rtol=1e-14)  # (sums of 2–3 values in another order)
    for array, copy in zip((X.data, X.indices, X.indptr), before):
        np.testing.assert_array_equal(array, copy)


ESTIMATORS = {
    "tree_classifier": lambda: DecisionTreeClassifier(random_state=0, max_bins=255),
    "tree_regressor": lambda: DecisionTreeRegressor(random_state=0, max_bins=32, max_depth=6),
    "forest_classifier_oob": lambda: RandomForestClassifier(20, random_state=0, max_bins=255, oob_score=True),
    "forest_regressor": lambda: RandomForestRegressor(8, random_state=0, max_bins=255, max_features=0.5),
    "boosting_subsample": lambda: GradientBoostingClassifier(n_estimators=15, subsample=0.7, random_state=0),
    "boosting_early_stop": lambda: GradientBoostingRegressor(n_estimators=15, n_iter_no_change=3, random_state=0),
}


@pytest.mark.parametrize("density", [0.05, 0.3])  # histogram codes sparse (≤ MAX_DENSITY) or dense
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_sparse_fit_and_predict_equal_dense(name, density):
    make = ESTIMATORS[name]
    X, y_class, y_reg = _sparse_data(density=density)
    estimator = make()
    y = y_class if hasattr(estimator, "predict_proba") else y_reg
    dense = make().fit(X, y)
    sparse = estimator.fit(scipy.sparse.csc_matrix(X), y)
    rows = scipy.sparse.csr_matrix(X[:50])
    method = "predict_proba" if hasattr(dense, "predict_proba") else "predict"
    np.testing.assert_allclose(getattr(sparse, method)(rows), getattr(dense, method)(X[:50]), rtol=1e-12)
    # Sparse rows predict as their dense twins whatever the format (CSC and COO go through CSR).
    np.testing.assert_allclose(getattr(sparse, method)(scipy.sparse.coo_matrix(X[:50])),
                               getattr(sparse, method)(X[:50]), rtol=1e-12)
    if hasattr(dense, "oob_score_"):
        assert sparse.oob_score_ == dense.oob_score_


def test_default_tree_on_sparse_input_is_the_exact_tree_or_the_255_bin_tree(monkeypatch):
    """max_bins=None means the exact search: a sparse X is searched on its nonzeros
    (_sparse_columns), growing the dense X's tree. With categorical features the search reads
    dense columns: a dense copy, or 255 bins when that copy would exceed SPARSE_DENSE_BYTES."""
    from lucidml.tree import _exact_data

    X, y, _ = _sparse_data(n_samples=600, n_features=10, density=0.5)  # > 255 distinct values per column
    exact = DecisionTreeClassifier(random_state=0, max_depth=5).fit(X, y)
    sparse = DecisionTreeClassifier(random_state=0, max_depth=5).fit(scipy.sparse.csr_matrix(X), y)
    np.testing.assert_array_equal(sparse.tree_.threshold, exact.tree_.threshold)
    np.testing.assert_array_equal(sparse.tree_.feature, exact.tree_.feature)
    # Unit weights keep every sum exact, so ties between splits go the same way as dense (bootstrap
    # counts divided by the largest one would round differently in another order of summation).
    forest = RandomForestClassifier(5, bootstrap=False, random_state=0).fit(scipy.sparse.csc_matrix(X), y)
    np.testing.assert_array_equal(forest.predict_proba(X),
                                  RandomForestClassifier(5, bootstrap=False, random_state=0).fit(X, y).predict_proba(X))

    codes = X.copy()
    codes[:, 0] = np.round(np.abs(codes[:, 0]) * 3)  # a categorical feature (small non-negative codes)
    sparse_codes = scipy.sparse.csr_matrix(codes)
    dense = DecisionTreeClassifier(random_state=0, max_depth=5, categorical_features=[0]).fit(codes, y)
    copied = DecisionTreeClassifier(random_state=0, max_depth=5, categorical_features=[0]).fit(sparse_codes, y)
    np.testing.assert_array_equal(copied.tree_.feature, dense.tree_.feature)
    monkeypatch.setattr(_exact_data, "SPARSE_DENSE_BYTES", X.size * 8 - 1)  # one byte too few
    binned = DecisionTreeClassifier(random_state=0, max_depth=5, categorical_features=[0]).fit(sparse_codes, y)
    histogram = DecisionTreeClassifier(random_state=0, max_depth=5, max_bins=255, categorical_features=[0])
    histogram.fit(codes, y)
    np.testing.assert_array_equal(binned.tree_.threshold, histogram.tree_.threshold)
    np.testing.assert_array_equal(binned.apply(sparse_codes), histogram.apply(codes))
    paths = binned.decision_path(sparse_codes[:20])
    np.testing.assert_array_equal(paths.toarray(), histogram.decision_path(codes[:20]).toarray())


def test_sparse_exact_search_grows_the_dense_tree():
    """Negative values (zeros in the middle of the order), NaN among the nonzeros, columns of few or
    many nonzeros (walked or bisected), zero weights, the random splitter and max_features: the
    tree on the CSC nonzeros is the dense X's tree. Integer targets and weights that are powers
    of two keep every sum exact, so ties fall the same way."""
    rng = np.random.default_rng(1)
    for trial in range(40):
        n, d = int(rng.integers(5, 200)), int(rng.integers(1, 30))
        A = scipy.sparse.random(n, d, density=rng.uniform(0.02, 0.8), random_state=trial, format="csr")
        A.data = np.round(A.data * 5 - (2 if trial % 2 == 0 else 0), 1)
        if trial % 3 == 0:
            A.data[rng.random(A.data.size) < 0.1] = np.nan
        A.eliminate_zeros()
        w = rng.choice([0.0, 1.0, 2.0, 4.0], n) if trial % 4 == 0 else None
        if w is not None:
            w[0] = 1.0
        kw = dict(random_state=trial, max_features=[None, "sqrt", 0.5][trial % 3],
                  splitter=["best", "random"][trial % 2])
        for model, target in ((DecisionTreeClassifier, rng.integers(0, 3, n)),
                              (DecisionTreeRegressor, rng.integers(-3, 4, n).astype(float))):
            sparse = model(**kw).fit(A, target, sample_weight=w)
            dense = model(**kw).fit(A.toarray(), target, sample_weight=w)
            np.testing.assert_array_equal(sparse.tree_.feature, dense.tree_.feature)
            np.testing.assert_array_equal(sparse.tree_.threshold, dense.tree_.threshold)
            np.testing.assert_array_equal(sparse.tree_.missing_go_to_left, dense.tree_.missing_go_to_left)


def test_sparse_and_dense_search_break_rounded_ties_alike():
    """Continuous targets and bootstrap counts as weights: the sparse search sums a node's zeros as
    the node's sums minus the rest, the dense search one by one, so two features that split a node
    into the same children score equal to rounding only. Such ties must still go to the feature
    drawn first (``_criteria.beats``), so that forests and bagging grow the same trees on both."""
    X = np.random.RandomState(0).uniform(size=(90, 12))
    X[X < 0.6] = 0.0
    y = X @ np.random.RandomState(1).normal(size=12) + 1e3  # (far from 0: the targets are centred)
    rng = np.random.RandomState(0)
    for trial in range(20):
        counts = np.bincount(rng.randint(0, 90, 90), minlength=90).astype(float)
        for model, target in ((DecisionTreeRegressor, y), (DecisionTreeClassifier, np.digitize(y, [999.8, 1000.2]))):
            kw = dict(random_state=trial, max_features=[None, 0.33][trial % 2])
            sparse = model(**kw).fit(scipy.sparse.csr_matrix(X), target, sample_weight=counts)
            dense = model(**kw).fit(X, target, sample_weight=counts)
            np.testing.assert_array_equal(sparse.tree_.feature, dense.tree_.feature)
            np.testing.assert_array_equal(sparse.tree_.threshold, dense.tree_.threshold)
    forest = dict(n_estimators=10, random_state=0)
    np.testing.assert_allclose(RandomForestRegressor(**forest).fit(scipy.sparse.csr_matrix(X), y).predict(X),
                               RandomForestRegressor(**forest).fit(X, y).predict(X), rtol=1e-12)


def test_a_shifted_target_grows_the_same_regression_tree():
    """y and y + 10⁶ give one tree (leaf values shifted): the targets are centred before the search."""
    X, _, y = _sparse_data(300, 8, density=0.6)
    base = DecisionTreeRegressor(random_state=0).fit(X, y)
    shifted = DecisionTreeRegressor(random_state=0).fit(X, y + 1e6)
    np.testing.assert_array_equal(shifted.tree_.feature, base.tree_.feature)
    np.testing.assert_array_equal(shifted.tree_.threshold, base.tree_.threshold)
    np.testing.assert_allclose(shifted.predict(X) - 1e6, base.predict(X), atol=1e-8)


def test_adaboost_on_sparse_input():
    X, y, _ = _sparse_data(distinct=4)
    dense = AdaBoostClassifier(n_estimators=20, random_state=0).fit(X, y)
    sparse = AdaBoostClassifier(n_estimators=20, random_state=0).fit(scipy.sparse.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.decision_function(scipy.sparse.csr_matrix(X)), dense.decision_function(X))
    staged = list(sparse.staged_predict(scipy.sparse.csr_matrix(X)))
    np.testing.assert_array_equal(staged[-1], dense.predict(X))


def test_absolute_error_refuses_sparse_input_by_name():
    X, _, y = _sparse_data()
    with pytest.raises(TypeError, match="absolute_error.*dense data"):
        DecisionTreeRegressor(criterion="absolute_error").fit(scipy.sparse.csr_matrix(X), y)


def test_wide_sparse_input_with_64_bit_indices():
    """A CSR matrix with int64 index arrays predicts as its int32 twin (one compiled walk serves both)."""
    X, y, _ = _sparse_data(n_samples=200, n_features=500, density=0.02)
    tree = DecisionTreeClassifier(random_state=0, max_bins=255).fit(scipy.sparse.csr_matrix(X), y)
    wide = scipy.sparse.csr_matrix(X)
    wide.indices, wide.indptr = wide.indices.astype(np.int64), wide.indptr.astype(np.int64)
    np.testing.assert_array_equal(tree.predict_proba(wide), tree.predict_proba(X))


@pytest.mark.parametrize("max_bins", [None, 64])
def test_float32_is_read_as_it_is(max_bins):
    """A float32 X is neither copied to float64 nor split differently: the tree equals the float64
    fit on the same values, and the fit allocates far less than a float64 copy of X."""
    X, y = make_classification(4_000, 20, random_state=0)
    X32 = X.astype(np.float32)
    reference = DecisionTreeClassifier(random_state=0, max_depth=8, max_bins=max_bins).fit(X32.astype(np.float64), y)
    DecisionTreeClassifier(random_state=0, max_depth=8, max_bins=max_bins).fit(X32, y)  # compiled before measuring
    tracemalloc.start()
    try:
        tree = DecisionTreeClassifier(random_state=0, max_depth=8, max_bins=max_bins).fit(X32, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(tree.tree_.threshold, reference.tree_.threshold)
    np.testing.assert_array_equal(tree.predict_proba(X32), reference.predict_proba(X32.astype(np.float64)))
    if max_bins is None:  # the histogram mode's fixed pool of histograms would dominate this small X
        assert peak < 2 * X32.nbytes  # a float64 copy alone would be 2 × X32.nbytes


def test_forest_and_boosting_keep_float32():
    X, y = make_classification(2_000, 10, random_state=0)
    X32 = X.astype(np.float32)
    for make in (lambda: RandomForestClassifier(5, random_state=0, max_depth=6),
                 lambda: GradientBoostingClassifier(n_estimators=10, random_state=0)):
        np.testing.assert_array_equal(make().fit(X32, y).predict_proba(X32),
                                      make().fit(X32.astype(np.float64), y).predict_proba(X32.astype(np.float64)))


def test_a_mostly_zero_dense_table_is_searched_on_its_nonzeros(monkeypatch):
    """A dense bag of words (few nonzeros, node-sorted search) is searched as CSC; the tree is the
    one the dense search grows, and a table with many nonzeros, or categorical features, stays dense."""
    from lucidml.tree import _exact_data

    rng = np.random.default_rng(0)
    counts = rng.poisson(0.05, size=(400, 300)).astype(float)
    y = (counts[:, :5].sum(axis=1) > 0).astype(int) ^ (rng.random(400) < 0.1)
    tree = DecisionTreeClassifier(random_state=0)
    assert scipy.sparse.isspmatrix_csc(_exact_data.exact_search_input(tree, counts))
    assert not scipy.sparse.issparse(_exact_data.exact_search_input(tree, counts + 1.0))
    assert not scipy.sparse.issparse(
        _exact_data.exact_search_input(DecisionTreeClassifier(categorical_features=[0]), counts))
    on_nonzeros = DecisionTreeClassifier(random_state=0).fit(counts, y)
    forest = RandomForestClassifier(10, bootstrap=False, random_state=0).fit(counts, y)
    monkeypatch.setattr(_exact_data, "SPARSE_SEARCH_DENSITY", -1.0)  # never: the dense node-sorted search
    dense = DecisionTreeClassifier(random_state=0).fit(counts, y)
    np.testing.assert_array_equal(on_nonzeros.tree_.feature, dense.tree_.feature)
    np.testing.assert_array_equal(on_nonzeros.tree_.threshold, dense.tree_.threshold)
    dense_forest = RandomForestClassifier(10, bootstrap=False, random_state=0).fit(counts, y)
    np.testing.assert_array_equal(forest.predict_proba(counts), dense_forest.predict_proba(counts))


def test_read_only_tables_fit_in_every_exact_layout():
    """The dense exact search shares its compiled code with the sparse one, which writes scratch
    columns: a read-only X (presorted, node-sorted, forests) is copied, never refused."""
    rng = np.random.default_rng(0)
    narrow = rng.normal(size=(300, 4))  # presorted
    wide = rng.poisson(1.0, size=(120, 400)).astype(float)  # node-sorted
    for X in (narrow, wide):
        y = (X[:, 0] > np.median(X[:, 0])).astype(int)
        frozen = X.copy()
        frozen.setflags(write=False)
        for model in (DecisionTreeClassifier(random_state=0), RandomForestClassifier(5, random_state=0)):
            np.testing.assert_array_equal(model.fit(frozen, y).predict(frozen), model.fit(X, y).predict(X))


def test_a_deep_tree_on_a_wide_sparse_x_keeps_its_constant_feature_lists_bounded():
    """Each node on the depth-first stack kept the list of features found constant in it, up to
    all of them: a deep tree on a 5,000 × 20,000 bag of words (1.2 MB) peaked at 470 MB, and
    3,000 × 100,000 at 1.2 GB (scikit-learn: 1.3 and 4.3 MB). Finished subtrees release their
    lists, and at most 16 lists' worth are kept at once."""
    from ..memory import traced_peak

    rng = np.random.RandomState(0)
    X = scipy.sparse.random(3000, 20000, density=0.001, format="csc", random_state=rng,
                            data_rvs=lambda k: rng.uniform(0.1, 1.0, k))
    y = X @ rng.normal(size=20000) + 0.01 * rng.normal(size=3000)
    DecisionTreeRegressor(max_depth=2).fit(X[:200], y[:200])  # (the compile is not the fit's memory)
    tree, peak = traced_peak(lambda: DecisionTreeRegressor(random_state=0).fit(X, y))
    assert tree.tree_.max_depth > 100  # deep: one node on the stack per level
    assert peak < 40 * 2**20


def _node_histograms(X, stats, n_stats, rows):
    """A node's histogram from the sparse codes and from the dense codes of the same X."""
    from lucidml.tree._base import histogram_data
    from lucidml.tree._histogram import build_histogram

    edges = fit_bin_edges(X, 8)
    every = np.arange(X.shape[0], dtype=np.int32)
    out = []
    for table in (scipy.sparse.csr_matrix(X), X):
        data = histogram_data(table, edges, stats, n_stats, every, every)
        hist = np.full(data.scratch.shape, np.nan)
        build_histogram(data.binned, data.sparse, rows, (0, rows.size, False), stats, data.gathered, hist,
                        data.cell_ptr)
        out.append((data, hist))
    return out


@pytest.mark.parametrize("classes", [False, True])
def test_sparse_codes_keep_only_the_stored_entries_and_give_the_dense_histograms(classes):
    """At most 25% nonzero, a sparse X's histogram codes are one per stored entry (no n × d matrix:
    100 MB for 20,000 × 5,000, where the stored entries' codes took 0.5 MB); a node's histogram,
    its zero bins filled from the node's totals, and the bin ranges are the dense codes' ones."""
    from lucidml.tree._histogram import SampleStats

    X, y, score = _sparse_data(n_samples=300, n_features=12, density=0.08)
    X[3, 2] = np.nan
    rng = np.random.default_rng(0)
    weight = rng.integers(1, 4, X.shape[0]).astype(float)  # whole numbers: every sum exact, either way
    stats = SampleStats(code=y.astype(np.int64), weight=weight, target=np.round(score * 8) / 8, classes=classes,
                        unit_weight=False)
    rows = rng.choice(X.shape[0], 120, replace=False).astype(np.int32)
    (sparse, from_sparse), (dense, from_dense) = _node_histograms(X, stats, 3, rows)
    assert dense.sparse is None and dense.binned.shape == X.shape
    assert sparse.binned is None and sparse.sparse.codes.size == np.count_nonzero(X)
    np.testing.assert_array_equal(from_sparse, from_dense)
    np.testing.assert_array_equal(sparse.bin_lo, dense.bin_lo)
    np.testing.assert_array_equal(sparse.bin_hi, dense.bin_hi)


def test_boosting_on_sparse_codes_equals_dense_with_weights_nan_and_classes():
    """Gradient boosting (3 classes, weights, a NaN, subsampling) and a categorical tree on a sparse X
    of 3% nonzeros grow the dense X's trees: the splits read the chosen feature by bisecting each
    row's stored columns (_sparse_bins.node_column)."""
    X, _, score = _sparse_data(n_samples=800, n_features=40, density=0.03)
    X[5, 7] = np.nan
    y = np.digitize(score, np.quantile(score, [0.33, 0.66]))
    weight = np.random.default_rng(1).integers(1, 4, X.shape[0]).astype(float)
    sparse = scipy.sparse.csr_matrix(X)
    model = GradientBoostingClassifier(n_estimators=8, subsample=0.8, random_state=0)
    np.testing.assert_array_equal(model.fit(sparse, y, sample_weight=weight).predict_proba(sparse),
                                  model.fit(X, y, sample_weight=weight).predict_proba(X))
    # Predicting, each sparse row is scattered once into a dense row that all the trees read
    # (_traversal._sum_leaf_values_scattered): a stored NaN, an explicit zero and float32 values alike.
    rows = scipy.sparse.csr_matrix(X[:100])
    rows.data[:3] = [np.nan, 0.0, rows.data[2]]
    expected = model.predict_proba(rows.toarray())
    np.testing.assert_array_equal(model.predict_proba(rows), expected)
    np.testing.assert_array_equal(model.predict_proba(rows.astype(np.float32)),
                                  model.predict_proba(rows.toarray().astype(np.float32)))
    codes = X.copy()
    codes[:, 0] = np.where(codes[:, 0] != 0, np.round(np.abs(codes[:, 0]) * 3) + 1, 0)  # a categorical feature
    tree = DecisionTreeClassifier(random_state=0, max_bins=16, categorical_features=[0])
    np.testing.assert_array_equal(tree.fit(scipy.sparse.csc_matrix(codes), y).apply(codes),
                                  tree.fit(codes, y).apply(codes))


@pytest.mark.parametrize("zero_weight_zeros", [False, True])
def test_weighted_boosting_places_thresholds_as_the_dense_fit(zero_weight_zeros):
    """Weighted boosting counts a bin of no weight as empty where it centres a threshold
    (_histogram.gap_threshold). A node whose rows all store x0 (2, −1 or 1), or whose zeros weigh
    nothing, has an empty zero bin; filled from the node's totals (or made by subtraction), it kept a
    weight of rounding size (1e-16), counted as present: the threshold went to −0.5 instead of the
    dense fit's 0.0, and a 0 went the other way (a prediction of 15 for 5)."""
    X = np.zeros((200, 20))
    X[:40 + 5 * zero_weight_zeros, 1] = 1.0
    X[:40, 0] = np.resize([2.0, -1.0, 1.0], 40)
    y = np.where(X[:, 1] > 0, 5 + 10 * (X[:, 0] > 0), -40.0)
    model = GradientBoostingRegressor(n_estimators=1, max_depth=2, learning_rate=1.0, random_state=0)
    for seed in range(6):
        weight = np.random.default_rng(seed).random(200) + 0.5
        if zero_weight_zeros:
            weight[40:45] = 0.0
        dense = model.fit(X, y, sample_weight=weight).nodes_["threshold"].copy()
        sparse = model.fit(scipy.sparse.csr_matrix(X), y, sample_weight=weight).nodes_["threshold"]
        np.testing.assert_array_equal(sparse, dense)


def test_histograms_are_ragged_one_cell_per_bin_of_each_feature():
    """A histogram keeps each feature's own bins and its missing bin (_binning.cell_pointers), not the
    most bins of any feature for every feature: on 20,000 word-count columns of a few values each
    and one column of 255 bins, a histogram was 20,001 × 256 cells × 3 × 8 bytes = 123 MB (kept per
    level of the tree for subtraction), and is now 84,420 cells, 2.0 MB."""
    from ..memory import traced_peak

    rng = np.random.RandomState(0)
    X = scipy.sparse.random(2000, 20000, density=0.002, format="csr", random_state=rng,
                            data_rvs=lambda k: rng.randint(1, 4, k).astype(float))
    X = scipy.sparse.hstack([X, scipy.sparse.csr_matrix(rng.normal(size=(2000, 1)))], format="csr")
    y = (np.asarray(X[:, :200].sum(axis=1)).ravel() + X[:, -1].toarray().ravel() > 0.5).astype(int)
    model = GradientBoostingClassifier(n_estimators=2, max_depth=3, random_state=0)
    model.fit(X[:300], y[:300])  # (the compile is not the fit's memory)
    fitted, peak = traced_peak(lambda: model.fit(X, y))
    assert peak < 40 * 2**20
    assert fitted.score(X, y) > 0.8

    from lucidml.tree._base import histogram_data
    from lucidml.tree._histogram import SampleStats

    edges = fit_bin_edges(X[:, [0, 1, -1]], 255)
    stats = SampleStats(code=np.zeros(1, np.int64), weight=np.zeros(1), target=np.zeros(1), classes=False,
                        unit_weight=True)
    every = np.arange(X.shape[0], dtype=np.int32)
    data = histogram_data(X[:, [0, 1, -1]], edges, stats, 3, every, every)
    assert data.scratch.shape == (sum(len(e) + 2 for e in edges), 3)
    np.testing.assert_array_equal(data.cell_ptr, np.cumsum([0] + [len(e) + 2 for e in edges]))
    for no_columns in (np.zeros((5, 0)), scipy.sparse.csr_matrix((5, 0))):  # nothing to bin, no error
        empty = histogram_data(no_columns, [], stats, 3, every[:5], every[:5])
        assert empty.scratch.shape == (0, 3) and empty.cell_ptr.tolist() == [0]
