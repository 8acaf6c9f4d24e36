"""lucidml.dask gradient boosting against the in-memory boosters, and its awkward inputs.

On small data the quantile sketch is exact, so the bins, the splits and the node layout are the
in-memory ones: the trees agree record by record, up to the order of float sums (gains, leaf
values, losses). On data larger than the sketch, the edges are approximate and the accuracy
is compared instead.
"""

import os
import signal
import tempfile
import time

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import lucidml
import lucidml.dask as ld
from lucidml.dask._rounds import Rounds, balanced
from lucidml.dask._sketch import chunk_summary, merge_summaries, summary_edges
from lucidml.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from lucidml.tree._binning import fit_bin_edges
from lucidml.utils import InvalidParameterError


def _data(seed=0, n=600, n_classes=2, nan=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = rng.integers(0, 6, n)  # few distinct values: one bin each
    if nan:
        X[rng.random(n) < 0.05, 1] = np.nan
    score = X[:, 0] + np.nan_to_num(X[:, 1]) ** 2 - 0.3 * X[:, 3]
    y_reg = score + 0.3 * rng.normal(size=n)
    y_cls = np.digitize(score + rng.normal(size=n), np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y_reg, y_cls


def _assert_same_model(local, expected):
    assert type(local) is type(expected)
    assert set(vars(local)) == set(vars(expected))
    for name in ("feature", "left_child", "right_child", "missing_go_to_left", "n_node_samples"):
        np.testing.assert_array_equal(local.nodes_[name], expected.nodes_[name], err_msg=name)
    for name in ("threshold", "weighted_n_node_samples", "improvement"):
        np.testing.assert_allclose(local.nodes_[name], expected.nodes_[name], rtol=1e-9, atol=1e-9, err_msg=name)
    np.testing.assert_array_equal(local.tree_roots_, expected.tree_roots_)
    np.testing.assert_allclose(local.node_values_, expected.node_values_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(local.train_score_, expected.train_score_, rtol=1e-9)
    np.testing.assert_allclose(local.baseline_prediction_, expected.baseline_prediction_, rtol=1e-12)
    for a, b in zip(local._bin_edges, expected._bin_edges):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_classes, params", [
    (2, {}),
    (3, {"criterion": "newton", "l2_regularization": 1.0, "min_samples_leaf": 5}),
])
def test_classifier_grows_the_in_memory_trees(client, n_classes, params):
    X, _, y = _data(n_classes=n_classes)
    params = {"n_estimators": 8, "random_state": 0, **params}
    fitted = ld.GradientBoostingClassifier(**params).fit(da.from_array(X, chunks=(170, -1)),
                                                         da.from_array(y, chunks=170))
    expected = GradientBoostingClassifier(**params).fit(X, y)
    _assert_same_model(fitted.to_local(), expected)
    np.testing.assert_array_equal(fitted.classes_, expected.classes_)
    dX = da.from_array(X, chunks=(250, -1))
    np.testing.assert_allclose(fitted.predict_proba(dX).compute(), expected.predict_proba(X), rtol=1e-9)
    np.testing.assert_array_equal(fitted.predict(dX).compute(), expected.predict(X))


@pytest.mark.parametrize("params", [{}, {"max_leaf_nodes": 5, "max_depth": 4, "learning_rate": 0.3, "init": "zero"}])
def test_regressor_grows_the_in_memory_trees(client, params):
    X, y, _ = _data(seed=1)
    params = {"n_estimators": 8, "random_state": 0, **params}
    # Columns in two chunks and y chunked unlike X: merged and rechunked, the same model.
    fitted = ld.GradientBoostingRegressor(**params).fit(da.from_array(X, chunks=(97, 2)), da.from_array(y, chunks=250))
    expected = GradientBoostingRegressor(**params).fit(X, y)
    _assert_same_model(fitted.to_local(), expected)
    np.testing.assert_allclose(fitted.predict(da.from_array(X, chunks=(300, -1))).compute(), expected.predict(X),
                               rtol=1e-9, atol=1e-12)


def test_balanced_moves_only_the_states_beyond_each_workers_share():
    ab = ["a", "b"]
    assert balanced(["a"] * 5 + ["b"] * 3, [1] * 8, ab) == ["a"] * 4 + ["b"] * 4
    assert balanced(["a"] * 8, [1] * 8, ab) == ["a"] * 4 + ["b"] * 4  # computed on one worker, spread on two
    assert balanced(["a"] * 8, [1] * 8, ["a"]) == ["a"] * 8  # one worker: nowhere to go
    assert balanced(["a", "b", "a", "b"], [1, 1, 1, 1], ab) == ["a", "b", "a", "b"]  # already even: nothing moves
    assert balanced(["a", "a", "b"], [10, 1, 1], ab) == ["a", "b", "b"]  # the big state stays, the small one moves
    assert balanced(["a", "b", "b", "b"], [3, 1, 1, 1], ab) == ["a", "b", "b", "b"]  # 3 against 3
    assert balanced(["a", "a"], [1, 1], ["a", "b", "c"]) == ["a", "b"]  # more workers than states
    rng = np.random.default_rng(0)
    for _ in range(50):
        sizes = list(rng.integers(1, 100, 12))
        homes = list(rng.choice(["a", "b", "c"], 12, p=[0.7, 0.2, 0.1]))
        places = balanced(homes, sizes, ["a", "b", "c"])
        load = {w: sum(s for s, p in zip(sizes, places) if p == w) for w in "abc"}
        # largest-first greedy: no worker ends above its share by more than the largest state
        assert max(load.values()) <= sum(sizes) / len(load) + max(sizes)
        assert max(load.values()) <= max(sum(s for s, h in zip(sizes, homes) if h == w) for w in set(homes))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_chunk_states_keep_their_working_memory_from_stage_to_stage_and_share_it(n_classes):
    """Each stage's state writes its gradients into the arrays of the stage before and refills its
    row orders, and the states of a worker share one scratch (a Dask worker would fault new
    arrays' pages in at every stage and round); what they hold is what new states hold."""
    from lucidml.dask._boost_chunk import ChunkState, advance, histograms, init_state
    from lucidml.dask._rounds import _share_working_memory

    X, _, y = _data(n=500, n_classes=n_classes, nan=False)
    edges = fit_bin_edges(X, 255)
    n_trees = 1 if n_classes == 2 else n_classes
    states = [init_state(X[rows], y[rows], edges, ("log_loss", n_classes), np.arange(n_classes),
                         np.zeros(n_trees)) for rows in (slice(0, 300), slice(300, 500))]
    _share_working_memory(states)
    assert states[0].scratch is states[1].scratch
    splits = [(0, 0, 100, False, 1, 2)]  # the root split on feature 0, children keyed 1 and 2
    request = [(k, splits, [1]) for k in range(n_trees)]
    for state in states:
        histograms(state, request)  # gathers the left child
    state = states[0]
    stage = [(k, splits, {1: 0.3, 2: -0.2 * (k + 1)}) for k in range(n_trees)]
    last_orders = [cached[1] for cached in state._cache.values()]  # the row orders of the stage's trees
    after = advance(state, stage)
    assert after.scratch is state.scratch
    assert after._gradients.g is state._gradients.g and np.shares_memory(after.target, state._gradients.g)
    assert any(np.shares_memory(after.partition(0, splits)[0], rows) for rows in last_orders)
    fresh = ChunkState(after.data, after.y, after.raw.copy(), after.loss_spec)
    np.testing.assert_array_equal(after.target, fresh.target)
    np.testing.assert_array_equal(after.h, fresh.h)
    assert after.loss_sum == fresh.loss_sum
    np.testing.assert_array_equal(histograms(after, request), histograms(fresh, request))
    assert after.nbytes() == fresh.nbytes()  # the shared scratch is working memory, not the state's


def test_a_rounds_sum_writes_into_none_of_its_parts():
    from lucidml.dask._rounds import _sum

    parts = [np.arange(3.0) for _ in range(3)]
    for part in parts:
        part.setflags(write=False)  # as received from a worker
    np.testing.assert_array_equal(_sum(*parts), 3 * np.arange(3.0))
    np.testing.assert_array_equal(parts[0], np.arange(3.0))
    assert _sum(2.0, 3.0, 4.0) == 9.0
    np.testing.assert_array_equal(_sum(parts[0]), np.arange(3.0))  # one part: itself


def _chunk_state(i):
    return np.full(1000, float(i))


def test_states_computed_on_one_worker_are_spread_over_the_workers(client):
    workers = sorted(client.nthreads())
    with dask.annotate(workers=[workers[0]], allow_other_workers=False):
        states = [dask.delayed(_chunk_state)(i) for i in range(8)]
    rounds = Rounds()
    rounds.start(states)
    try:
        assert len(rounds.holders) == 2  # without balancing: one holder, on workers[0]
        np.testing.assert_array_equal(rounds.total(np.add, 1.0), np.full(1000, 28.0 + 8))
    finally:
        rounds.close()


def test_rounds_go_straight_to_workers_the_client_reaches_and_leave_its_setting_as_it_was(client, monkeypatch):
    """The client reaches the local workers, so the rounds skip the scheduler (each round switches
    ``direct_to_workers`` on and back off); a worker the client cannot reach keeps them on the
    scheduler, with the same results."""
    from lucidml.dask import _rounds

    workers = sorted(client.nthreads())
    assert _rounds._reaches(client, workers)
    assert not _rounds._reaches(client, ["tcp://127.0.0.1:9"])  # nothing listens there: refused at once
    sent_direct = []
    original = Rounds.totals

    def spying(self, calls):
        result = original(self, calls)
        sent_direct.append((self.direct, client.direct_to_workers))
        return result

    monkeypatch.setattr(Rounds, "totals", spying)
    setting = client.direct_to_workers  # Dask's default: None
    for reachable in (True, False):
        monkeypatch.setattr(_rounds, "_reaches", lambda client, addresses, reachable=reachable: reachable)
        rounds = Rounds()
        rounds.start([dask.delayed(_chunk_state)(i) for i in range(4)])
        try:
            np.testing.assert_array_equal(rounds.total(np.add, 1.0), np.full(1000, 6.0 + 4))
        finally:
            rounds.close()
        assert sent_direct.pop() == (reachable, setting)  # the client's own setting is back after the round
    assert client.direct_to_workers is setting


def _set_inline_bytes(value):
    from lucidml.dask import _rounds

    previous, _rounds.INLINE_BYTES = _rounds.INLINE_BYTES, value
    return previous


def test_rounds_on_states_too_large_for_the_event_loop_run_in_the_actor_thread(client):
    """Above ``INLINE_BYTES`` of states a worker runs its rounds in the actor's own thread (here the
    limit is set to 0 on the workers): the same model as in memory, states replaced between rounds."""
    previous = client.run(_set_inline_bytes, 0)
    try:
        X, _, y = _data(seed=3)
        params = {"n_estimators": 5, "random_state": 0}
        rounds = Rounds()
        rounds.start([dask.delayed(_chunk_state)(i) for i in range(4)])
        try:
            assert rounds.inline == [False, False]
            rounds.replace(np.multiply, 2.0)
            np.testing.assert_array_equal(rounds.total(np.add, 1.0), np.full(1000, 2.0 * 6 + 4))
        finally:
            rounds.close()
        fitted = ld.GradientBoostingClassifier(**params).fit(da.from_array(X, chunks=(150, -1)),
                                                             da.from_array(y, chunks=150))
        _assert_same_model(fitted.to_local(), GradientBoostingClassifier(**params).fit(X, y))
    finally:
        client.run(_set_inline_bytes, next(iter(previous.values())))


def test_sketch_edges_equal_the_binning_when_exact_and_stay_within_a_bin_when_not():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.normal(size=5000), rng.exponential(size=5000), rng.integers(0, 9, 5000)])
    X[::7, 0] = np.nan
    chunks = [X[i:i + 700] for i in range(0, 5000, 700)]
    exact = chunk_summary(chunks[0], 5000)  # room for every value: exact
    for part in chunks[1:]:
        exact = merge_summaries(exact, chunk_summary(part, 5000), 5000)
    for edges, expected in zip(summary_edges(exact, 64), fit_bin_edges(X, 64)):
        np.testing.assert_array_equal(edges, expected)
    small = chunk_summary(chunks[0], 100)
    for part in chunks[1:]:
        small = merge_summaries(small, chunk_summary(part, 100), 100)
    for j, (edges, expected) in enumerate(zip(summary_edges(small, 32), fit_bin_edges(X, 32))):
        column = np.sort(X[~np.isnan(X[:, j]), j])
        ranks = np.searchsorted(column, edges) / column.size
        expected_ranks = np.searchsorted(column, expected) / column.size
        assert len(edges) == len(expected)
        assert np.max(np.abs(ranks - expected_ranks)) < 0.5 / 32, j  # within half a bin


def test_larger_data_with_an_approximate_sketch_match_in_memory_accuracy(client):
    X, _, y = _data(seed=3, n=24_000, nan=False)
    X[:, 2] = X[:, 0] * 1e3 + X[:, 2]  # a wide range as well
    fitted = ld.GradientBoostingClassifier(n_estimators=15, random_state=0).fit(
        da.from_array(X, chunks=(5000, -1)), da.from_array(y, chunks=5000))
    expected = GradientBoostingClassifier(n_estimators=15, random_state=0).fit(X, y)
    accuracy = (fitted.to_local().predict(X) == y).mean()
    assert abs(accuracy - (expected.predict(X) == y).mean()) < 0.005
    assert abs(fitted.train_score_[-1] - expected.train_score_[-1]) < 0.01 * expected.train_score_[-1]


def test_categorical_columns_of_a_dask_dataframe_split_on_their_codes(client):
    X, y, _ = _data(seed=4, nan=False)
    names = np.array(["red", "green", "blue", "cyan", "black", "white"])
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2],
                          "colour": pd.Categorical(names[X[:, 3].astype(int)], categories=sorted(names))})
    frame.loc[::50, "colour"] = None  # missing categories: NaN codes
    # Unknown categories (as after reading files): computed over the partitions.
    dframe = dd.from_pandas(frame, npartitions=4)
    dframe["colour"] = dframe["colour"].cat.as_unknown()
    fitted = ld.GradientBoostingRegressor(n_estimators=10, random_state=0).fit(dframe, dd.from_pandas(
        pd.Series(y), npartitions=4))
    assert list(fitted.categories_["colour"]) == sorted(names)
    codes = frame.assign(colour=frame["colour"].cat.codes.replace(-1, np.nan).astype(float))
    expected = GradientBoostingRegressor(n_estimators=10, random_state=0).fit(codes, y)
    local = fitted.to_local()
    _assert_same_model(local, expected)
    np.testing.assert_array_equal(local.feature_names_in_, ["a", "b", "c", "colour"])
    # A frame whose dtype lists the categories in another order is coded by the fitted ones.
    reordered = frame.assign(colour=frame["colour"].cat.reorder_categories(names))
    predicted = fitted.predict(dd.from_pandas(reordered, npartitions=3)).compute()
    np.testing.assert_allclose(predicted, expected.predict(codes), rtol=1e-9, atol=1e-12)


def test_to_local_round_trips_through_lucidml_io(client):
    X, _, y = _data(seed=5, n=400)
    fitted = ld.GradientBoostingClassifier(n_estimators=5).fit(da.from_array(X, chunks=(100, -1)),
                                                                da.from_array(y, chunks=100))
    with tempfile.TemporaryDirectory() as folder:
        loaded = lucidml.load(lucidml.save(fitted.to_local(), os.path.join(folder, "model.lucid")))
    assert type(loaded) is GradientBoostingClassifier
    np.testing.assert_array_equal(loaded.predict(X), fitted.predict(da.from_array(X, chunks=(100, -1))).compute())


def test_bad_inputs_raise_clear_errors(client):
    X, y, labels = _data(seed=6, n=300)
    dX, dy = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    filtered = dX[dX[:, 0] > -10]
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        ld.GradientBoostingRegressor(n_estimators=2).fit(filtered, dy)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        ld.GradientBoostingRegressor(n_estimators=2).fit(dX, dy[dy > -100])
    with pytest.raises(ValueError, match="different numbers of samples"):
        ld.GradientBoostingRegressor(n_estimators=2).fit(dX, dy[:-3])
    infinite = X.copy()
    infinite[250, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ld.GradientBoostingRegressor(n_estimators=2).fit(da.from_array(infinite, chunks=(100, -1)), dy)
    with pytest.raises(ValueError, match="NaN"):
        ld.GradientBoostingRegressor(n_estimators=2).fit(dX, da.from_array(np.where(y > 2, np.nan, y), chunks=100))
    with pytest.raises(ValueError, match="at least 2 classes"):
        ld.GradientBoostingClassifier(n_estimators=2).fit(dX, da.zeros(300, chunks=100))
    with pytest.raises(ValueError, match="continuous"):
        ld.GradientBoostingClassifier(n_estimators=2).fit(dX, dy)
    with pytest.raises(InvalidParameterError):
        ld.GradientBoostingRegressor(loss="huber").fit(dX, dy)
    with pytest.raises(TypeError, match="numbers"):
        ld.GradientBoostingClassifier(n_estimators=2).fit(dd.from_pandas(pd.DataFrame(
            {"a": X[:, 0], "s": np.array(["x", "y", "z"])[labels]}).astype({"s": object}), npartitions=3),
            da.from_array(labels, chunks=100))
    fitted = ld.GradientBoostingClassifier(n_estimators=2).fit(dX, da.from_array(labels, chunks=100))
    with pytest.raises(ValueError, match="3 features, but GradientBoostingClassifier is expecting 4"):
        fitted.predict(dX[:, :3]).compute()


def test_a_worker_lost_during_the_rounds_ends_the_fit_with_a_clear_error(monkeypatch):
    """The boosting states live in actors, which Dask does not recompute: a worker killed between two
    rounds makes the next one raise a RuntimeError that says so, and no model is returned."""
    X, _, y = _data(seed=7, n=400)
    calls = []

    def kill_on_third_round(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            victim = sorted(self.client.nthreads())[0]
            pid = self.client.run(os.getpid, workers=[victim])[victim]
            os.kill(pid, signal.SIGKILL)  # the worker process, started by this test's cluster
            time.sleep(1.0)
        return totals(self, *args, **kwargs)

    totals = Rounds.totals
    monkeypatch.setattr(Rounds, "totals", kill_on_third_round)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster):
        model = ld.GradientBoostingClassifier(n_estimators=20)
        with pytest.raises(RuntimeError, match="worker holding boosting state was lost"):
            model.fit(da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100))
    assert len(calls) == 3 and not hasattr(model, "nodes_")


def test_the_first_pass_sketches_a_share_of_the_rows_only_beyond_the_in_memory_bin_subsample():
    """Beyond BIN_SUBSAMPLE rows in all, each chunk's sketch is made of that share of its rows (a
    draw fixed by the seed and the chunk's index); the targets' summary always counts every row."""
    from lucidml.dask.gradient_boosting import _first_pass

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40_000, 3)), rng.integers(0, 2, 40_000)
    whole, (labels, counts) = _first_pass(X, y, True, 1.0, 5, 0)
    assert [w.sum() for _, w, _ in whole] == [40_000.0] * 3 and counts.sum() == 40_000
    share, (_, counts) = _first_pass(X, y, True, 0.25, 5, 0)
    kept = share[0][1].sum()
    assert abs(kept - 10_000) < 500 and all(w.sum() == kept for _, w, _ in share) and counts.sum() == 40_000
    again, _ = _first_pass(X, y, True, 0.25, 5, 0)
    other, _ = _first_pass(X, y, True, 0.25, 5, 1)
    np.testing.assert_array_equal(again[0][0], share[0][0])
    assert not np.array_equal(other[0][0], share[0][0])
    regression, (total, count) = _first_pass(X, y.astype(float), False, 0.25, 5, 0)
    assert count == 40_000 and total == y.sum() and regression[0][1].sum() == kept
