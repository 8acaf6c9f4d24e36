"""Ctrl-C for long fits whose work runs in compiled kernels.

Python delivers ``KeyboardInterrupt`` to the main thread between bytecodes, so a fit that
spends seconds inside one Numba kernel would ignore Ctrl-C until the kernel returns (and the
pending signal then surfaces as a ``SystemError`` from the dispatcher). :func:`interruptible`
gives such a fit a *cancel flag*, a one-element array that the kernels read between units of
work (tree levels, trees, iterations) and return early on, and raises it the moment Ctrl-C
arrives: Python's own signal handler writes each signal's number to the *wakeup fd*
(``signal.set_wakeup_fd``) as soon as the signal lands, even while the main thread is inside a
kernel, and a small watcher thread reading that socket raises the flag. The kernel returns
within one unit, Python raises ``KeyboardInterrupt`` at the next bytecode, and the estimator is
left unfitted.

The fit itself stays on the calling thread. (Running it on a worker thread, as lucidml once
did, gave every fit a second OpenMP thread team; with more libgomp threads than cores, OpenMP
stops spinning between parallel regions and every region pays a thread wake-up: gradient
boosting took 25% longer.)

Kernels receive the flag from :func:`cancel_flag`; Python loops between kernels call
:func:`raise_if_cancelled`. Off the main thread (joblib workers, a user's thread) nothing
can deliver Ctrl-C, so the fit runs where it is called, reading the flag of the interruptible
call that started it when one did (:func:`cancel_scope` hands it to worker threads). When the
program has replaced or ignored Python's SIGINT handler, Ctrl-C is left to it.
"""

import functools
import os
import signal
import socket
import threading
from contextlib import contextmanager

import numpy as np

__all__ = ["cancel_flag", "cancel_scope", "interruptible", "raise_if_cancelled"]

_local = threading.local()
_SMALL_INPUT = 100_000  # fits on fewer input values end within moments: run them in place


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


def restored_if_refused(fit):
    """Decorate ``fit``: a fit that raises (a refused input, an overflow) leaves the estimator as it
    was before the call (unfitted, or the previous model, as scikit-learn's checks before any work
    do), not half-fitted. A refit refused after its labels were read left the new ``classes_`` beside
    the old ``coef_``: predict answered with labels of the refused data. (The attributes are put
    back as they were; a fit replaces its arrays rather than writing into them.)"""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(vars(self))
        try:
            return fit(self, *args, **kwargs)
        except Exception:  # (Ctrl-C is ``interruptible``'s: it leaves the estimator unfitted)
            vars(self).clear()
            vars(self).update(before)
            raise

    return wrapper


def _input_size(args):
    X = args[0] if args else None
    size = getattr(X, "size", None)
    return _SMALL_INPUT if size is None else int(size)


def interruptible(fit):
    """Decorate an estimator's ``fit`` so that Ctrl-C stops it within about a unit of its work.

    On the main thread and on more than 100,000 input values (smaller fits end too soon to need
    it), the fit runs with a cancel flag that Ctrl-C raises at once (see the module docstring);
    on ``KeyboardInterrupt`` the estimator is left unfitted and the interrupt re-raised.
    Exceptions of the fit pass through unchanged.
    """

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        nested = getattr(_local, "flag", None) is not None
        if nested or threading.current_thread() is not threading.main_thread() or _input_size(args) < _SMALL_INPUT:
            return fit(self, *args, **kwargs)
        flag = np.zeros(1, np.uint8)
        try:
            with _ctrl_c_raises(flag), cancel_scope(flag):
                result = fit(self, *args, **kwargs)
                raise_if_cancelled(flag)  # Ctrl-C in the last moments, absorbed by a kernel
                return result
        except KeyboardInterrupt:
            unfit(self)
            raise

    return wrapper


@contextmanager
def _ctrl_c_raises(flag):
    """While the block runs on the main thread, Ctrl-C raises ``flag`` at once (not only at the
    next bytecode), through Python's wakeup fd and a watcher thread."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield  # Ctrl-C is ignored, or the program handles it: not ours to act on
        return
    receive, send = socket.socketpair()
    send.setblocking(False)
    try:
        previous = signal.set_wakeup_fd(send.fileno(), warn_on_full_buffer=False)
    except (ValueError, OSError):  # a platform without wakeup sockets: Ctrl-C between kernels only
        receive.close()
        send.close()
        yield
        return
    watcher = threading.Thread(target=_watch, args=(receive, flag, previous), name="lucidml-ctrl-c", daemon=True)
    try:
        watcher.start()
        yield
    finally:
        signal.set_wakeup_fd(previous)
        send.close()  # the watcher's recv returns b"" and it ends
        if watcher.ident is not None:
            watcher.join()
        receive.close()


def _watch(receive, flag, previous):
    """Raise ``flag`` when SIGINT's number arrives on ``receive``; pass every byte on to the wakeup fd
    that was set before (an event loop's), until the other end closes."""
    while True:
        try:
            data = receive.recv(64)
        except OSError:
            return
        if not data:
            return
        if signal.SIGINT in data:
            flag[0] = 1
        if previous != -1:
            try:
                os.write(previous, data)
            except OSError:
                pass
