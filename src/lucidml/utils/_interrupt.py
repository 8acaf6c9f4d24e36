"""Ctrl-C for long fits whose work runs in compiled kernels.

Python delivers ``KeyboardInterrupt`` to the main thread between bytecodes, so a fit that
spends seconds inside one Numba kernel would ignore Ctrl-C until the kernel returns (and the
pending signal then surfaces as a ``SystemError`` from the dispatcher). :func:`interruptible`
runs such a fit in a worker thread instead: the main thread only waits, so Ctrl-C reaches it
at once; it then raises the worker's *cancel flag*, a one-element array that the kernels read
between units of work (tree levels, trees, iterations) and return early on. The worker stops
within one unit, the estimator is left unfitted, and ``KeyboardInterrupt`` reaches the caller.

Kernels receive the flag from :func:`cancel_flag`; Python loops between kernels call
:func:`raise_if_cancelled`. Off the main thread (joblib workers, a user's thread) nothing
can deliver Ctrl-C, so the fit runs where it is called, reading the flag of the interruptible
call that started it when one did (:func:`cancel_scope` hands it to worker threads).
"""

import functools
import threading
from contextlib import contextmanager

import numba
import numpy as np
import sklearn

__all__ = ["cancel_flag", "cancel_scope", "interruptible", "raise_if_cancelled"]

_local = threading.local()
_SMALL_INPUT = 100_000  # fits on fewer input values end within moments: run them in place
_POLL_SECONDS = 0.05


def cancel_flag():
    """The cancel flag (uint8 array of one element) of the interruptible call this thread runs in.

    Outside any such call: a fresh flag that is never raised.
    """
    flag = getattr(_local, "flag", None)
    return np.zeros(1, np.uint8) if flag is None else flag


@contextmanager
def cancel_scope(flag):
    """Make ``flag`` this thread's cancel flag for the block (for work handed to other threads)."""
    previous = getattr(_local, "flag", None)
    _local.flag = flag
    try:
        yield flag
    finally:
        _local.flag = previous


def raise_if_cancelled(flag=None):
    """Raise ``KeyboardInterrupt`` when the (current) cancel flag is up; call it between kernels."""
    flag = cancel_flag() if flag is None else flag
    if flag[0]:
        raise KeyboardInterrupt


def unfit(estimator):
    """Remove what a fit stored (attributes ending in an underscore), so the estimator reads as unfitted."""
    for name in [name for name in vars(estimator) if name.endswith("_") and not name.startswith("__")]:
        delattr(estimator, name)


def _input_size(args):
    X = args[0] if args else None
    size = getattr(X, "size", None)
    return _SMALL_INPUT if size is None else int(size)


def interruptible(fit):
    """Decorate an estimator's ``fit`` so that Ctrl-C stops it within about a unit of its work.

    The decorated fit runs in a worker thread when called from the main thread on more than
    100,000 input values (smaller fits end too soon to need it); on ``KeyboardInterrupt`` the
    cancel flag is raised, the worker is awaited, the estimator is left unfitted and the
    interrupt re-raised. Exceptions of the fit pass through unchanged.
    """

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        nested = getattr(_local, "flag", None) is not None
        if nested or threading.current_thread() is not threading.main_thread() or _input_size(args) < _SMALL_INPUT:
            return fit(self, *args, **kwargs)
        flag = np.zeros(1, np.uint8)
        outcome = {}
        # Settings that live per thread follow the fit into its worker: scikit-learn's config
        # (config_context) and Numba's thread count (numba.set_num_threads).
        config = sklearn.get_config()
        n_threads = numba.get_num_threads()

        def work():
            numba.set_num_threads(n_threads)
            with cancel_scope(flag), sklearn.config_context(**config):
                try:
                    outcome["value"] = fit(self, *args, **kwargs)
                except BaseException as exc:  # handed to the caller's thread below
                    outcome["error"] = exc

        worker = threading.Thread(target=work, name=f"lucidml-{type(self).__name__}-fit", daemon=True)
        try:
            # start() inside the try: Ctrl-C may arrive while it waits for the thread to run, and
            # the worker must then be told to stop too, not left fitting unseen.
            worker.start()
            while worker.is_alive():
                worker.join(_POLL_SECONDS)
        except KeyboardInterrupt:
            flag[0] = 1
            if worker.ident is not None:  # the thread was started
                worker.join()
            unfit(self)
            raise
        if "error" in outcome:
            if isinstance(outcome["error"], KeyboardInterrupt):
                unfit(self)
            raise outcome["error"]
        return outcome["value"]

    return wrapper
