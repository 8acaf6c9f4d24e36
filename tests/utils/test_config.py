"""lucidml's thread setting: set_config, config_context, and what follows it."""

import os

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info

import lucidml
from lucidml.utils import thread_count


def test_set_config_validates_and_sets():
    try:
        lucidml.set_config(n_threads=1)
        assert lucidml.get_config() == {"n_threads": 1}
        for bad in (0, -1, 1.5, "2", True):
            with pytest.raises(ValueError, match="n_threads must be None or an integer"):
                lucidml.set_config(n_threads=bad)
    finally:
        lucidml.set_config(n_threads=None)
    assert lucidml.get_config() == {"n_threads": None}


def test_none_means_the_setting_then_the_environment_then_every_core(monkeypatch):
    cores = os.cpu_count()
    monkeypatch.delenv("LUCIDML_NUM_THREADS", raising=False)
    assert thread_count(None) == cores and thread_count(-1) == cores and thread_count(1) == 1
    monkeypatch.setenv("LUCIDML_NUM_THREADS", "1")
    assert thread_count(None) == 1 and thread_count(-1) == cores  # an explicit n_jobs wins
    monkeypatch.delenv("LUCIDML_NUM_THREADS")
    with lucidml.config_context(n_threads=1):
        assert thread_count(None) == 1
    assert thread_count(None, work=10, serial_below=100) == 1


def test_inside_the_context_blas_and_numba_are_limited_too():
    before = numba.get_num_threads()
    with lucidml.config_context(n_threads=1):
        assert numba.get_num_threads() == 1
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
    assert numba.get_num_threads() == before and lucidml.get_config()["n_threads"] is None


def test_a_forest_under_one_thread_uses_one_thread(monkeypatch):
    """The members are handed to joblib with the thread count the setting allows."""
    import lucidml.ensemble._forest_base as forest_base
    from lucidml.ensemble import RandomForestClassifier

    seen = []
    real = forest_base.Parallel

    def spy(n_jobs=None, **kwargs):
        seen.append(n_jobs)
        return real(n_jobs=n_jobs, **kwargs)

    monkeypatch.setattr(forest_base, "Parallel", spy)
    monkeypatch.setattr(forest_base, "SERIAL_BELOW", 0)  # even this small forest would use threads
    from lucidml.datasets import load

    X, y = load("wine")
    with lucidml.config_context(n_threads=1):
        one = RandomForestClassifier(n_estimators=8, random_state=0).fit(X, y)
    every = RandomForestClassifier(n_estimators=8, random_state=0).fit(X, y)
    assert seen == [1, os.cpu_count()]
    np.testing.assert_array_equal(one.predict_proba(X), every.predict_proba(X))  # the same trees either way


def test_the_command_takes_threads(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "lucidml", "compare", "iris", "--runs", "1", "--models", "GaussianNB",
                           "--threads", "1", "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0 and "| GaussianNB" in done.stdout, done.stderr
    done = subprocess.run([sys.executable, "-m", "lucidml", "compare", "--threads", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "--threads" in done.stderr
