"""The Ctrl-C machinery of long fits (lucidml.utils._interrupt)."""

import _thread
import signal
import threading
import time

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from lucidml.utils import cancel_flag, cancel_scope, interruptible, raise_if_cancelled


class _SlowEstimator(BaseEstimator):
    """Works in steps until cancelled, as a compiled kernel polling its flag would."""

    def __init__(self, steps=400):
        self.steps = steps

    @interruptible
    def fit(self, X, y=None):
        self.n_features_in_ = X.shape[1]
        flag = cancel_flag()
        done = 0
        for _ in range(self.steps):
            if flag[0]:
                break
            time.sleep(0.01)
            done += 1
        self.steps_done_ = done
        raise_if_cancelled(flag)
        return self


def interrupt_during(fit, after=0.2):
    """Send Ctrl-C to the main thread ``after`` seconds into ``fit()``; the seconds until it raised."""
    # A shell starts background jobs with SIGINT ignored, and then Python installs no handler and
    # interrupt_main() does nothing: install Python's own for the test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return _interrupt_during(fit, after)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt_during(fit, after):
    timer = threading.Timer(after, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        fit()
    except KeyboardInterrupt:
        return time.perf_counter() - start
    finally:
        timer.cancel()
    try:  # the fit ended first: absorb an interrupt that may still be on its way
        time.sleep(after + 0.5)
    except KeyboardInterrupt:
        pass
    pytest.fail("the fit ended before the interrupt arrived; give it more work")


def test_interrupt_stops_the_fit_and_leaves_it_unfitted():
    est = _SlowEstimator()
    X = np.zeros((100_000, 2))
    elapsed = interrupt_during(lambda: est.fit(X))
    assert elapsed < 3.0  # the whole fit would take 4 s
    assert not hasattr(est, "n_features_in_") and not hasattr(est, "steps_done_")


def test_small_fits_and_fits_off_the_main_thread_run_in_place():
    est = _SlowEstimator(steps=3)
    assert est.fit(np.zeros((5, 2))).steps_done_ == 3
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("est", _SlowEstimator(3).fit(np.zeros((200_000, 2)))))
    worker.start()
    worker.join()
    assert result["est"].steps_done_ == 3


def test_errors_of_the_fit_pass_through_the_worker_thread():
    class Failing(_SlowEstimator):
        @interruptible
        def fit(self, X, y=None):
            raise ValueError("bad X")

    with pytest.raises(ValueError, match="bad X"):
        Failing().fit(np.zeros((200_000, 2)))


def test_cancel_scope_hands_the_flag_to_other_threads():
    flag = np.ones(1, np.uint8)
    seen = []

    def worker():
        with cancel_scope(flag):
            seen.append(cancel_flag() is flag)
            with pytest.raises(KeyboardInterrupt):
                raise_if_cancelled()
        seen.append(cancel_flag()[0] == 0)  # outside the scope: a flag that is never raised

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [True, True]


def test_the_worker_thread_keeps_the_callers_thread_settings():
    import numba
    import sklearn

    class Recording(_SlowEstimator):
        @interruptible
        def fit(self, X, y=None):
            self.seen_ = (threading.current_thread() is threading.main_thread(), numba.get_num_threads(),
                          sklearn.get_config()["assume_finite"])
            return self

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with sklearn.config_context(assume_finite=True):
            seen = Recording().fit(np.zeros((200_000, 2))).seen_
    finally:
        numba.set_num_threads(before)
    assert seen == (False, 1, True)


def test_ctrl_c_while_the_worker_starts_still_stops_the_worker(monkeypatch):
    # Under load, Ctrl-C can land while start() waits for the new thread: the worker must still
    # be told to stop (it used to keep fitting, unseen, beside everything that came after).
    started = []
    original_start = threading.Thread.start

    def start_then_interrupt(thread):
        original_start(thread)
        if thread.name.startswith("lucidml-"):
            started.append(thread)
            raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", start_then_interrupt)
    est = _SlowEstimator()
    with pytest.raises(KeyboardInterrupt):
        est.fit(np.zeros((100_000, 2)))
    assert started and not started[0].is_alive()  # joined, having seen the flag
    assert not hasattr(est, "steps_done_")
