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


def test_errors_of_the_fit_pass_through():
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


def test_the_fit_runs_on_the_calling_thread():
    # A worker thread would give the fit its own OpenMP team beside the main thread's (slower
    # parallel regions) and lose per-thread settings such as Numba's thread count.
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
    assert seen == (True, 1, True)


def test_ctrl_c_inside_a_kernel_raises_the_flag_at_once():
    # The main thread is busy (here: sleeping in C, as in a kernel) when Ctrl-C lands: the
    # watcher raises the flag through the wakeup fd, before any bytecode runs.
    class Blocking(_SlowEstimator):
        @interruptible
        def fit(self, X, y=None):
            flag = cancel_flag()
            deadline = time.perf_counter() + 3.0
            while not flag[0] and time.perf_counter() < deadline:
                time.sleep(0.01)  # stands for a kernel polling its flag
            self.flag_seen_ = bool(flag[0])
            return self

    est = Blocking()
    elapsed = interrupt_during(lambda: est.fit(np.zeros((200_000, 2))))
    assert elapsed < 2.0
    assert not hasattr(est, "flag_seen_")


def test_ctrl_c_while_the_watcher_starts_restores_the_signal_wakeup(monkeypatch):
    # Ctrl-C can land while start() waits for the watcher thread: the fit must not run, and
    # Python's wakeup fd must be what it was.
    original_start = threading.Thread.start

    def start_then_interrupt(thread):
        original_start(thread)
        if thread.name.startswith("lucidml-"):
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        before = signal.set_wakeup_fd(-1)
        signal.set_wakeup_fd(before)
        monkeypatch.setattr(threading.Thread, "start", start_then_interrupt)
        est = _SlowEstimator()
        with pytest.raises(KeyboardInterrupt):
            est.fit(np.zeros((100_000, 2)))
        assert signal.set_wakeup_fd(before) == before
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not hasattr(est, "steps_done_")
    assert not [t for t in threading.enumerate() if t.name == "lucidml-ctrl-c"]


def test_a_program_that_handles_ctrl_c_itself_keeps_it():
    calls = []
    previous = signal.signal(signal.SIGINT, lambda *a: calls.append(a))
    try:
        est = _SlowEstimator(steps=30)
        timer = threading.Timer(0.1, _thread.interrupt_main)
        timer.start()
        est.fit(np.zeros((100_000, 2)))
        timer.join()
        time.sleep(0.05)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert est.steps_done_ == 30 and calls  # the program's handler ran; the fit went on


def test_an_earlier_wakeup_fd_still_receives_the_signals():
    # An event loop's wakeup socket must not lose the bytes that arrive during a fit.
    import socket

    receive, send = socket.socketpair()
    send.setblocking(False)
    previous_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    previous_fd = signal.set_wakeup_fd(send.fileno(), warn_on_full_buffer=False)
    try:
        est = _SlowEstimator()
        _interrupt_during(lambda: est.fit(np.zeros((100_000, 2))), 0.2)
        assert signal.set_wakeup_fd(send.fileno()) == send.fileno()  # restored after the fit
        receive.settimeout(1.0)
        assert signal.SIGINT in receive.recv(16)
    finally:
        signal.set_wakeup_fd(previous_fd)
        signal.signal(signal.SIGINT, previous_handler)
        receive.close()
        send.close()
    assert not hasattr(est, "steps_done_")
