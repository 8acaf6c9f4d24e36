"""The exact search's two ways to order a node's samples (presorted columns, sorting at the nodes)
grow the same trees; the node sort itself; which way a table gets."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_wine, make_classification, make_regression

from lucidml.ensemble import AdaBoostClassifier, RandomForestClassifier, RandomForestRegressor
from lucidml.tree import DecisionTreeClassifier, DecisionTreeRegressor, _exact_data
from lucidml.tree._node_sort import gather_feature, sort_pairs, sort_values


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3) | st.floats(-1e3, 1e3, allow_nan=False), min_size=0, max_size=300))
def test_sort_pairs_sorts_and_moves_the_ids_along(values):
    values = np.array(values, dtype=np.float64)
    ids = np.arange(values.size, dtype=np.uint32)[::-1].copy()
    original = dict(zip(ids.tolist(), values.tolist()))
    sorted_values, sorted_ids = values.copy(), ids.copy()
    sort_pairs(sorted_values, sorted_ids, 0, values.size)
    np.testing.assert_array_equal(sorted_values, np.sort(values))
    assert sorted(sorted_ids.tolist()) == sorted(ids.tolist())
    assert all(original[i] == v for i, v in zip(sorted_ids.tolist(), sorted_values.tolist()))


def _extremes(values):
    return (values.min(), values.max()) if values.size else (np.inf, -np.inf)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([-1.5, 0.0, 1.0]), min_size=0, max_size=300), st.integers(0, 20))
def test_sort_values_of_two_values_by_the_branch_free_partition(choices, margin):
    # One-hot and binary columns take partition_two_values; three values the quicksort: both
    # must leave the segment sorted, each id beside its value, and nothing outside it touched.
    values = np.array(choices + [9.0] * margin, dtype=np.float64)
    end = len(choices)
    ids = np.arange(values.size, dtype=np.uint32)
    before = values.copy()
    sort_values(values, ids, 0, end, *_extremes(before[:end]))
    np.testing.assert_array_equal(values[:end], np.sort(before[:end]))
    np.testing.assert_array_equal(before[ids[:end]], values[:end])
    np.testing.assert_array_equal(values[end:], before[end:])
    np.testing.assert_array_equal(ids[end:], np.arange(end, values.size))
    assert sorted(ids[:end].tolist()) == list(range(end))


def test_sort_pairs_on_long_runs_of_ties_and_a_segment():
    rng = np.random.default_rng(0)
    values = rng.choice([0.0, 0.0, 0.0, 1.0, 2.0], size=5000)  # mostly zeros, as a count column
    ids = np.arange(values.size, dtype=np.uint32)
    before = values.copy()
    sort_pairs(values, ids, 100, 4000)
    np.testing.assert_array_equal(values[:100], before[:100])  # outside the segment: untouched
    np.testing.assert_array_equal(values[4000:], before[4000:])
    np.testing.assert_array_equal(values[100:4000], np.sort(before[100:4000]))
    np.testing.assert_array_equal(before[ids[100:4000]], values[100:4000])


def sort_feature(samples, xf, start, end, idx, values):
    """A node's feature as the splitter orders it: gathered (NaN last), then its values sorted."""
    end_nn, smallest, largest = gather_feature(samples, xf, start, end, idx, values)
    if end_nn >= 0:
        sort_values(values, idx, start, end_nn, smallest, largest)
    return end_nn


def test_gather_and_sort_put_nan_last_and_report_constant_features():
    x = np.array([3.0, np.nan, 1.0, 2.0, np.nan, 1.0])
    samples = np.arange(6, dtype=np.uint32)
    idx, values = np.empty(6, np.uint32), np.empty(6)
    end_nn = sort_feature(samples, x, 0, 6, idx, values)
    assert end_nn == 4
    np.testing.assert_array_equal(x[idx[:4]], [1.0, 1.0, 2.0, 3.0])
    assert np.isnan(x[idx[4:]]).all()
    assert sorted(idx.tolist()) == list(range(6))
    assert sort_feature(samples, np.full(6, 7.0), 0, 6, idx, values) == -1  # one value, no NaN
    assert sort_feature(samples, np.full(6, np.nan), 0, 6, idx, values) == -1  # all NaN
    with_nan = np.array([7.0, np.nan, 7.0, 7.0, 7.0, 7.0])  # one value and NaN: a split remains
    assert sort_feature(samples, with_nan, 0, 6, idx, values) == 5


@pytest.fixture
def force_mode(monkeypatch):
    def force(mode):
        monkeypatch.setattr(_exact_data, "node_sorted", lambda X, k: mode == "node")
    return force


def _same_fit(force_mode, make, X, y):
    fitted = {}
    for mode in ("presorted", "node"):
        force_mode(mode)
        fitted[mode] = make().fit(X, y)
    return fitted["presorted"], fitted["node"]


def _assert_same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    assert ta.node_count == tb.node_count
    np.testing.assert_array_equal(ta.feature, tb.feature)
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    np.testing.assert_array_equal(ta.children_left, tb.children_left)
    # Leaf values are sums taken in each search's own sample order: equal to rounding.
    np.testing.assert_allclose(ta.value, tb.value, rtol=1e-12, atol=1e-12 * np.abs(ta.value).max())


def _table_with_missing_values(seed=0):
    X, y = make_classification(600, 12, n_informative=6, n_classes=3, random_state=seed)
    rng = np.random.default_rng(seed)
    X = np.round(X, 1)  # ties
    X[rng.random(X.shape) < 0.08] = np.nan
    return X, y


@pytest.mark.parametrize("params", [
    {},
    {"criterion": "entropy", "max_features": 4},
    {"max_leaf_nodes": 20},
    {"min_samples_leaf": 5, "max_depth": 6},
    {"splitter": "random"},
    {"categorical_features": [12]},
])
def test_node_sorted_and_presorted_classifiers_grow_the_same_tree(force_mode, params):
    X, y = _table_with_missing_values()
    X = np.column_stack([X, np.random.default_rng(1).integers(0, 5, len(y))])  # a categorical feature
    a, b = _same_fit(force_mode, lambda: DecisionTreeClassifier(random_state=0, **params), X, y)
    _assert_same_tree(a, b)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("params", [{}, {"max_features": 0.3, "min_samples_leaf": 3},
                                    {"criterion": "absolute_error", "max_depth": 5}])
def test_node_sorted_and_presorted_regressors_grow_the_same_tree(force_mode, params):
    X, y = make_regression(400, 10, n_informative=5, noise=5.0, random_state=0)
    X = np.round(X, 1)
    y = np.round(y)  # integer targets: the sums are exact, so the two ways cannot differ by rounding
    a, b = _same_fit(force_mode, lambda: DecisionTreeRegressor(random_state=0, **params), X, y)
    _assert_same_tree(a, b)


def _one_hot_table(n=500, seed=0):
    """An encoded table: one-hot columns of four categorical variables (the first level dropped,
    so that no two columns split alike), a binary column with NaN, and two rounded continuous ones."""
    rng = np.random.default_rng(seed)
    codes = [rng.integers(0, k, n) for k in (3, 5, 7, 4)]
    one_hot = np.column_stack([code == level for code, k in zip(codes, (3, 5, 7, 4)) for level in range(1, k)])
    flag = rng.integers(0, 2, n).astype(float)
    flag[rng.random(n) < 0.1] = np.nan
    X = np.column_stack([one_hot.astype(float), flag, np.round(rng.normal(size=(n, 2)), 1)])
    score = codes[0] + 0.5 * (codes[1] % 2) - 0.3 * codes[2] + X[:, -1] + rng.normal(scale=0.5, size=n)
    return X, score


@pytest.mark.parametrize("task, params", [
    ("classifier", {}),
    ("classifier", {"criterion": "entropy", "min_samples_leaf": 4}),
    ("classifier", {"criterion": "misclassification", "max_depth": 6}),
    ("classifier", {"sample_weight": True, "min_weight_fraction_leaf": 0.01}),
    ("regressor", {}),
    ("regressor", {"sample_weight": True, "min_samples_leaf": 3}),
])
def test_one_hot_columns_scored_unsorted_grow_the_presorted_tree(force_mode, task, params):
    # Node-sorted, a feature with two values in the node and no NaN is scored without sorting
    # (_threshold_sweep.two_value_sweep); presorted, every feature is swept in order. Same trees.
    X, score = _one_hot_table()
    assert _exact_data.node_sorted(X, X.shape[1])  # the table takes the node-sorted search by itself
    params = dict(params)
    fit_params = {}
    if params.pop("sample_weight", False):
        fit_params["sample_weight"] = np.random.default_rng(2).integers(0, 4, len(score)).astype(float)
    if task == "classifier":
        y = np.digitize(score, np.quantile(score, [0.33, 0.66]))
        make = lambda: DecisionTreeClassifier(random_state=0, **params)  # noqa: E731
    else:
        y = np.round(4 * score)  # integer targets: sums exact in any order
        make = lambda: DecisionTreeRegressor(random_state=0, **params)  # noqa: E731
    fitted = {}
    for mode in ("presorted", "node"):
        force_mode(mode)
        fitted[mode] = make().fit(X, y, **fit_params)
    _assert_same_tree(fitted["presorted"], fitted["node"])
    assert fitted["node"].tree_.node_count > 15


def test_node_sorted_forest_without_bootstrap_is_the_presorted_forest(force_mode):
    X, y = load_wine(return_X_y=True)
    a, b = _same_fit(force_mode, lambda: RandomForestClassifier(15, bootstrap=False, random_state=0), X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def _word_counts(n=600, d=1500, seed=0):
    """Bag-of-words-like counts: a few classes, each raising the rate of its own words."""
    rng = np.random.default_rng(seed)
    rates = 0.5 / (1 + np.arange(d)) ** 0.8
    y = rng.integers(0, 3, n)
    X = rng.poisson(5 * rates[None, :] * (1 + 2 * (np.arange(d)[None, :] % 3 == y[:, None]))).astype(float)
    return X, y


def test_the_way_is_chosen_from_the_table():
    X, _ = _word_counts()
    assert _exact_data.node_sorted(X, X.shape[1])  # counts: few distinct values per column
    dense, _ = make_classification(2000, 20, random_state=0)
    assert not _exact_data.node_sorted(dense, 20)  # tall and continuous: presorted
    assert not _exact_data.node_sorted(dense, 4)
    wide, _ = make_classification(500, 400, random_state=0)
    assert _exact_data.node_sorted(wide, 20)  # a forest's √d of many continuous columns
    assert not _exact_data.node_sorted(wide, 400)


def test_the_column_table_is_float32_only_when_that_is_exact():
    counts, _ = _word_counts(50, 300)
    table = _exact_data.column_table(counts)
    assert table.dtype == np.float32 and table.shape == (300, 50)
    np.testing.assert_array_equal(table, counts.T)
    continuous = np.random.default_rng(0).normal(size=(50, 300))
    table = _exact_data.column_table(continuous)
    assert table.dtype == np.float64
    np.testing.assert_array_equal(table, continuous.T)


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(20, random_state=0),
    lambda: DecisionTreeClassifier(random_state=0),
    lambda: AdaBoostClassifier(n_estimators=20, random_state=0),
])
def test_trees_on_wide_word_counts_generalize(make):
    X, y = _word_counts()
    Xt, yt = _word_counts(seed=1)
    model = make().fit(X, y)
    assert model.score(Xt, yt) > 0.6  # chance is 1/3


def test_wide_regression_forest_on_counts(force_mode):
    X, y = _word_counts()
    target = X[:, :5].sum(axis=1) + y
    a, b = _same_fit(force_mode, lambda: RandomForestRegressor(10, bootstrap=False, max_features=0.2,
                                                               random_state=0), X, target)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.score(X, target) > 0.9


def test_max_features_counts_constant_features_as_drawn_but_searches_until_one_is_not():
    rng = np.random.default_rng(0)
    X = np.zeros((200, 50))
    X[:, 37] = rng.normal(size=200)  # the only feature that is not constant
    y = (X[:, 37] > 0).astype(int)
    tree = DecisionTreeClassifier(max_features=1, random_state=0).fit(X, y)
    assert tree.tree_.feature[0] == 37 and tree.score(X, y) == 1.0


def test_radix_sort_orders_signs_zeros_infinities_and_subnormals():
    # Segments of 64 values or more take the radix sort over the float64 bits (_radix_sort_pairs):
    # negative values, both zeros, infinities, subnormals and values of every magnitude.
    rng = np.random.default_rng(3)
    special = [-np.inf, np.inf, -0.0, 0.0, 5e-324, -5e-324, 1e308, -1e308, 1.0, -1.0]
    values = np.concatenate([special * 3, rng.standard_normal(200) * 10.0 ** rng.integers(-300, 300, 200)])
    rng.shuffle(values)
    ids = np.arange(values.size, dtype=np.uint32)
    before = values.copy()
    sort_values(values, ids, 0, values.size, before.min(), before.max())
    np.testing.assert_array_equal(values, np.sort(before))
    assert np.array_equal(before[ids].view(np.uint64), values.view(np.uint64))  # each value's own bits
    assert sorted(ids.tolist()) == list(range(values.size))
