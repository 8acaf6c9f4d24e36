"""The interpreted tier of the kernels (lucidml.utils._numba): same answers, used only when it pays."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse
from sklearn.datasets import load_diabetes, load_iris, load_wine

import lucidml.utils._interpret_budget as budgets
import lucidml.utils._numba as tiers
from lucidml.ensemble import GradientBoostingRegressor
from lucidml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from lucidml.utils import kernel_tier, njit, set_kernel_tier

from ..compile_log import COMPILE_LOG
from ..ensemble.test_tree_bad_input import CLASSIFIERS as BAD_INPUT_CLASSIFIERS
from ..ensemble.test_tree_bad_input import REGRESSORS as BAD_INPUT_REGRESSORS


def _with_gaps(X, seed):
    """X with about 5 % of its values missing."""
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < 0.05] = np.nan
    return X


# The models of the bad-input tests, and the engine's other paths.
CLASSIFIERS = {
    **BAD_INPUT_CLASSIFIERS,
    "tree_entropy_best_first": lambda: DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=8, random_state=0),
    "tree_random_splitter": lambda: DecisionTreeClassifier(splitter="random", max_features=2, random_state=0),
    "tree_categorical": lambda: DecisionTreeClassifier(categorical_features=[0], max_depth=4, random_state=0),
    "tree_hist_sparse": lambda: DecisionTreeClassifier(max_bins=16, random_state=0),
}
REGRESSORS = {
    **BAD_INPUT_REGRESSORS,
    "tree_hist_best_first": lambda: DecisionTreeRegressor(max_bins=32, max_leaf_nodes=12, random_state=0),
    "boosting_huber_subsample": lambda: GradientBoostingRegressor(loss="huber", n_estimators=8, subsample=0.7,
                                                                  random_state=0),
    "boosting_quantile": lambda: GradientBoostingRegressor(loss="quantile", n_estimators=8, random_state=0),
    "boosting_sparse": lambda: GradientBoostingRegressor(n_estimators=8, subsample=0.7, random_state=0),
}


def _data(task, name):
    X, y = load_wine(return_X_y=True) if task == "classifier" else load_diabetes(return_X_y=True)
    if "categorical" in name:
        X = X.copy()
        X[:, 0] = np.round(X[:, 0])  # a few whole-number categories
    if name in ("tree", "tree_hist", "forest", "boosting", "boosting_huber"):
        X = _with_gaps(X, 0)
    if "sparse" in name:  # 5% of the values kept: the histograms' codes for the stored entries only
        X = scipy.sparse.csr_matrix(np.where(np.random.default_rng(0).random(X.shape) < 0.05, X, 0.0))
    return X, y


def _outputs(model, X):
    out = {"predict": model.predict(X)}
    if hasattr(model, "predict_proba"):
        out["proba"] = model.predict_proba(X)
    if hasattr(model, "apply"):
        out["apply"] = model.apply(X)
    return out


@pytest.mark.parametrize(
    "task, name, make",
    [("classifier", n, m) for n, m in CLASSIFIERS.items()] + [("regressor", n, m) for n, m in REGRESSORS.items()],
    ids=[f"classifier-{n}" for n in CLASSIFIERS] + [f"regressor-{n}" for n in REGRESSORS],
)
def test_both_tiers_grow_the_same_trees(task, name, make):
    X, y = _data(task, name)
    with kernel_tier("compiled"):
        compiled = _outputs(make().fit(X, y), X)
    with kernel_tier("interpreted"):
        interpreted = _outputs(make().fit(X, y), X)
    for key in compiled:
        np.testing.assert_allclose(interpreted[key], compiled[key], rtol=1e-12, atol=1e-14, err_msg=key)


def test_tier_names_are_checked():
    with pytest.raises(ValueError, match="kernel tier"):
        set_kernel_tier("fast")
    with kernel_tier("interpreted"):
        with kernel_tier("compiled"):
            assert tiers._TIER == "compiled"
        assert tiers._TIER == "interpreted"


def _toy_kernels():
    @njit(cache=False)
    def inner(x):
        return 2.0 * x

    @njit(cache=False, interpret_small=True)
    def outer(a):
        total = 0.0
        for v in a:
            total += inner(v)
        return total

    return inner, outer


def test_small_first_calls_run_interpreted_big_ones_compile(monkeypatch):
    monkeypatch.setattr(tiers, "_TIER", "auto")
    inner, outer = _toy_kernels()
    assert outer(np.ones(10)) == 20.0
    assert not outer.overloads and not inner.overloads  # nothing compiled, the callee neither
    assert outer(np.ones(tiers.SMALL_CALL + 1)) == 2.0 * (tiers.SMALL_CALL + 1)
    assert outer.overloads  # too big: compiled, and compiled from then on
    assert outer(np.ones(3)) == 6.0


def test_a_kernel_compiles_once_its_interpreted_time_is_spent(monkeypatch):
    monkeypatch.setattr(tiers, "_TIER", "auto")
    monkeypatch.setattr(budgets, "MIN_INTERPRET_S", 0.0)
    monkeypatch.setattr(budgets, "MAX_INTERPRET_S", 0.0)
    _, outer = _toy_kernels()
    outer(np.ones(10))
    assert outer.overloads


def test_the_interpreter_budget_grows_with_the_code_to_compile():
    inner, outer = _toy_kernels()
    from lucidml.tree._builder import grow_tree

    assert budgets.interpret_budget(outer) == budgets.MIN_INTERPRET_S  # a few bytes: compiles in a moment
    assert budgets._code_bytes(outer, set()) > budgets._code_bytes(inner, set())  # the callee counts
    budget = budgets.interpret_budget(grow_tree)  # the tree builder: about what compiling it costs
    assert budget >= 10.0
    assert budget == min(budgets.MAX_INTERPRET_S, budgets.COMPILE_S_PER_BYTE * budgets._code_bytes(grow_tree, set()))


def test_interpreted_time_adds_up_over_processes(monkeypatch, tmp_path):
    """The interpreter's time is kept in a ledger beside Numba's cache: a kernel that earlier
    processes ran interpreted for its whole budget is compiled at once."""
    monkeypatch.setattr(tiers, "_TIER", "auto")
    ledger = tmp_path / "outer.interpreted"
    monkeypatch.setattr(budgets, "ledger_path", lambda kernel, mode=0: str(ledger))
    monkeypatch.setattr(budgets, "INTERPRETED_KERNELS", set())  # only this test's kernels write to it
    monkeypatch.setattr(tiers, "INTERPRETED_KERNELS", budgets.INTERPRETED_KERNELS)
    _, outer = _toy_kernels()
    outer(np.ones(10))
    assert not outer.overloads and not ledger.exists()
    budgets.write_ledgers()  # what the process does at exit
    spent = float(ledger.read_text())
    assert 0 < spent == outer.interpreted_seconds()

    ledger.write_text(repr(budgets.MAX_INTERPRET_S))  # as if earlier processes spent the budget
    _, fresh = _toy_kernels()
    fresh(np.ones(10))
    assert fresh.overloads
    ledger.write_text("garbled")
    _, again = _toy_kernels()
    assert again.interpreted_seconds() == 0.0


def test_kernels_not_declared_small_always_compile(monkeypatch):
    monkeypatch.setattr(tiers, "_TIER", "auto")
    inner, _ = _toy_kernels()
    assert inner(1.5) == 3.0
    assert inner.overloads


_COLD_SCRIPT = COMPILE_LOG + """
from sklearn.datasets import load_iris
from lucidml.tree import DecisionTreeClassifier
from lucidml.tree import _builder
X, y = load_iris(return_X_y=True)
proba = DecisionTreeClassifier(random_state=0).fit(X, y).predict_proba(X)
print(json.dumps({"compiled": compiled, "loaded": bool(_builder.grow_tree.overloads), "proba": proba.tolist()}))
"""


def _run_cold(cache_dir, tier):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "LUCIDML_KERNEL_TIER": tier}
    done = subprocess.run([sys.executable, "-c", _COLD_SCRIPT], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_first_fit_on_iris_compiles_nothing_then_uses_the_cache(tmp_path):
    """A new process with an empty Numba cache answers a fit on iris without compiling; once the
    machine code is on disk (here: compiled by a process in the compiled tier), it is loaded."""
    X, y = load_iris(return_X_y=True)
    reference = DecisionTreeClassifier(random_state=0).fit(X, y).predict_proba(X)

    first = _run_cold(tmp_path, "auto")
    assert first["compiled"] == [] and not first["loaded"]
    np.testing.assert_array_equal(first["proba"], reference)
    assert any("grow_tree" in path.name for path in tmp_path.rglob("*.interpreted"))  # its time, kept

    filler = _run_cold(tmp_path, "compiled")
    assert "grow_tree" in filler["compiled"]
    again = _run_cold(tmp_path, "auto")
    assert again["compiled"] == [] and again["loaded"]
    np.testing.assert_array_equal(again["proba"], reference)


def _registry_cases():
    from lucidml.registry import REGISTRY

    return [pytest.param(entry, id=entry.path.rpartition(".")[2]) for entry in REGISTRY]


@pytest.mark.parametrize("entry", _registry_cases())
def test_every_estimator_answers_the_same_in_both_tiers(entry):
    """Whatever kernels are declared interpret_small, every registered estimator fits the same model."""
    from sklearn.base import clone

    X, y = load_iris(return_X_y=True) if entry.kind != "regressor" else load_diabetes(return_X_y=True)
    X = X[::2]  # 75 (iris) or 221 (diabetes) rows: the checks' cheap parameters stay cheap
    y = y[::2]
    estimator = entry.make_for_checks()
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=0)
    answers = []
    for tier in ("compiled", "interpreted"):
        with kernel_tier(tier):
            fitted = clone(estimator).fit(X, y)
            methods = [m for m in ("predict_proba", "predict", "transform", "score_samples") if hasattr(fitted, m)]
            answer = getattr(fitted, methods[0])(X) if methods else fitted.labels_  # clusterers without predict
            answers.append(np.asarray(answer, dtype=float))
    np.testing.assert_allclose(answers[1], answers[0], rtol=1e-7, atol=1e-9)


def test_a_sparse_histogram_fit_interpreted_compiles_nothing(tmp_path):
    """The interpreted tier of a histogram fit on a sparse X reads the split feature through the
    interpreted node_column and its bisection; calling node_column's Python source compiled the
    bisection (utils.sparse.first_at_least) it calls."""
    script = COMPILE_LOG + (
        "import numpy as np, scipy.sparse\n"
        "from lucidml.ensemble import GradientBoostingRegressor\n"
        "rng = np.random.default_rng(0)\n"
        "X = scipy.sparse.random(300, 40, density=0.05, format='csr', random_state=0)\n"
        "GradientBoostingRegressor(n_estimators=3).fit(X, rng.normal(size=300)).predict(X)\n"
        "print(json.dumps(compiled))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "LUCIDML_KERNEL_TIER": "interpreted"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
