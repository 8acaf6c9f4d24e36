"""lucidml's global settings: how many threads its parallel work may use.

>>> import lucidml
>>> with lucidml.config_context(n_threads=1):
...     lucidml.get_config()["n_threads"]
1
>>> lucidml.get_config()["n_threads"] is None
True

``n_threads=None`` (the default) means every core, or ``LUCIDML_NUM_THREADS`` when that
environment variable is set (Numba's own ``NUMBA_NUM_THREADS`` caps its pool in any case). An
estimator's ``n_jobs=None`` follows this setting; an explicit ``n_jobs`` wins. Inside
:func:`config_context` the same limit also holds for NumPy's BLAS and OpenMP pools (through
threadpoolctl) and for Numba's parallel kernels started from the calling thread.
"""

import contextlib
import os
from numbers import Integral

__all__ = ["config_context", "get_config", "kernel_threads", "max_threads", "set_config"]

_settings = {"n_threads": None}


def get_config():
    """The current settings, as a dict (``n_threads``)."""
    return dict(_settings)


def set_config(n_threads=None):
    """Set how many threads lucidml may use: None (every core) or a count ≥ 1.

    Raises ``ValueError`` for anything else.
    """
    if n_threads is not None and not (isinstance(n_threads, Integral) and not isinstance(n_threads, bool)
                                      and n_threads >= 1):
        raise ValueError(f"n_threads must be None or an integer ≥ 1; got {n_threads!r}.")
    _settings["n_threads"] = None if n_threads is None else int(n_threads)


@contextlib.contextmanager
def config_context(n_threads=None):
    """Within the block, lucidml (and BLAS, OpenMP and Numba) use at most ``n_threads`` threads."""
    previous = get_config()
    set_config(n_threads)
    try:
        if n_threads is None:
            yield
        else:
            from threadpoolctl import threadpool_limits

            with kernel_threads(n_threads), threadpool_limits(n_threads):
                yield
    finally:
        set_config(**previous)


@contextlib.contextmanager
def kernel_threads(threads):
    """Within the block, Numba's parallel kernels started from this thread use at most ``threads``
    threads (``numba.set_num_threads`` is per calling thread, and cheap). With one, a parallel loop
    runs on the caller alone and wakes no pool: small work on a busy machine is not kept waiting
    for threads that other processes hold."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def max_threads():
    """The threads lucidml's own parallel work may use now (the setting, the environment, the cores)."""
    cores = os.cpu_count() or 1
    if _settings["n_threads"] is not None:
        return max(1, min(_settings["n_threads"], cores))
    try:
        return max(1, min(int(os.environ["LUCIDML_NUM_THREADS"]), cores))
    except (KeyError, ValueError):
        return cores
