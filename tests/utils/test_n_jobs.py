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
