"""Worker threads kept for the next call, one pool per thread count.

Starting and joining a pool of threads costs about 0.3 ms, as much as a whole prediction on a
few thousand rows. Kernels that split their rows over threads themselves (they release the GIL)
take a pool from here instead: it is created on first use and lives until the interpreter
exits. A pool of ``t`` threads never runs more than ``t`` tasks at once, so ``n_jobs`` and
``lucidml.set_config(n_threads=...)`` still bound the threads of a call; calls made at the same
time from several threads share the pool and queue their tasks.

:func:`pool_map` is how a caller uses them: it maps over the shared pool, or in the calling
thread when one thread is asked for or when the caller is itself a task of these pools.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

_pools = {}
_lock = threading.Lock()
_PREFIX = "lucidml-"  # the name of every worker thread of these pools begins with it
# A forked child has none of the parent's threads: it starts its own pools.
os.register_at_fork(after_in_child=_pools.clear)


def thread_pool(threads):
    """The shared pool of exactly ``threads`` worker threads (``threads`` ≥ 2)."""
    pool = _pools.get(threads)
    if pool is None:
        with _lock:
            pool = _pools.get(threads)
            if pool is None:
                pool = _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix=f"{_PREFIX}{threads}")
    return pool


def pool_map(threads, function, *iterables):
    """``list(map(function, *iterables))``, the calls spread over the shared pool of ``threads``
    threads. They run in the calling thread instead when ``threads`` ≤ 1, or when that thread is a
    worker of these pools (:func:`in_shared_pool`).

    While the pool's threads run, BLAS runs on one thread (``utils.linalg.blas_threads``; the
    setting is per process, so it holds in the workers): the tasks already share the cores, and
    BLAS threads on top would only compete for them.
    """
    if threads <= 1 or in_shared_pool():
        return list(map(function, *iterables))
    from .linalg import blas_threads  # (linalg uses this module)

    with blas_threads(1):
        return list(thread_pool(threads).map(function, *iterables))


def in_shared_pool():
    """Whether the calling thread is a worker of these pools: a task that submitted to a pool and
    waited for it there could wait forever (every worker waiting), so it must run its work itself."""
    return threading.current_thread().name.startswith(_PREFIX)
