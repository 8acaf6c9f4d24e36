"""One meaning of ``n_jobs`` wherever an estimator has parallel work (issue 17)."""

import os

import pytest
from sklearn.datasets import load_diabetes, load_iris

from lucidml.registry import REGISTRY
from lucidml.utils import InvalidParameterError, thread_count

WITH_N_JOBS = [pytest.param(entry, id=entry.name) for entry in REGISTRY if "n_jobs" in entry.make_for_checks().get_params()]


def _data(entry):
    return load_diabetes(return_X_y=True) if entry.kind == "regressor" else load_iris(return_X_y=True)


def test_the_estimators_with_parallel_work_are_all_checked():
    names = {param.values[0].name for param in WITH_N_JOBS}
    assert {"RandomForestClassifier", "BaggingRegressor", "SVC", "KMeans", "DBSCAN", "KNeighborsClassifier"} <= names


@pytest.mark.parametrize("entry", WITH_N_JOBS)
@pytest.mark.parametrize("bad", [0, -2, 1.5, "2", True])
def test_bad_n_jobs_is_refused_by_name(entry, bad):
    X, y = _data(entry)
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        entry.make_for_checks().set_params(n_jobs=bad).fit(X, y)


@pytest.mark.parametrize("entry", WITH_N_JOBS)
@pytest.mark.parametrize("good", [None, -1, 1, 2])
def test_none_minus_one_and_counts_are_accepted(entry, good):
    X, y = _data(entry)
    entry.make_for_checks().set_params(n_jobs=good).fit(X[::3], y[::3])


def test_thread_count():
    cores = os.cpu_count() or 1
    assert thread_count(None) == thread_count(-1) == cores
    assert thread_count(None, work=10, serial_below=100) == thread_count(2, work=10, serial_below=100) == 1
    assert thread_count(1) == 1
    assert thread_count(10_000) == cores


def test_kernel_threads_limits_numba_on_this_thread_and_restores_it():
    import numba

    from lucidml._config import kernel_threads

    before = numba.get_num_threads()
    with kernel_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError), kernel_threads(1):
        raise RuntimeError("the limit is restored on the way out of an error too")
    assert numba.get_num_threads() == before


def test_small_boosting_fits_run_on_the_calling_thread_alone(monkeypatch):
    """A table below the parallel-histogram size is boosted with one Numba thread (no thread team
    woken per stage); a large one keeps every thread."""
    import numba
    import numpy as np

    from lucidml.ensemble import GradientBoostingRegressor, _boosting

    seen = []
    boost = _boosting._BaseGradientBoosting._boost

    def recording(self, *args):
        seen.append(numba.get_num_threads())
        return boost(self, *args)

    monkeypatch.setattr(_boosting._BaseGradientBoosting, "_boost", recording)
    X, y = load_diabetes(return_X_y=True)
    GradientBoostingRegressor(n_estimators=2).fit(X, y)
    rng = np.random.default_rng(0)
    big = rng.normal(size=(_boosting.PARALLEL_MIN_ENTRIES // 4 + 1, 4))
    GradientBoostingRegressor(n_estimators=2, max_depth=1).fit(big, big[:, 0])
    assert seen == [1, numba.get_num_threads()]
