"""Compiling a kernel in another process while this one goes on running it interpreted.

A kernel declared ``interpret_small`` runs its small calls interpreted until it has spent about
what compiling it would cost (the rent-or-buy rule of :mod:`lucidml.utils._numba`). Compiling
then in the calling process stops the user's program for that long: 20–30 s for the tree builder,
paid by whichever command happens to cross the line. So a kernel whose compile is that long
(``_numba.BACKGROUND_MIN_S``), once it has spent a tenth of its budget (``BACKGROUND_FROM``),
has the signature it is being called with compiled by a child process instead
(``python -m lucidml.utils._background_compile``), at low priority, while this process goes on
interpreting: the child writes the machine code to Numba's on-disk cache and exits, and the next
call that finds the child gone loads the code from the cache. The child outlives its parent if it
must, so that a short script's compile still serves the next run. A kernel whose child has not
finished by the time it has spent twice its budget is compiled in the calling process as before.

One child per kernel at a time, across processes (a lock file beside the kernel's entry in the
cache holds the child's process id), and one child of this process at a time. The child gets the
argument *types* (Numba's types pickle), not the arguments. Set ``LUCIDML_BACKGROUND_COMPILE=0``
to compile in the calling process only (the test suite does, but for the tests of this module);
so does a frozen application, a machine with one usable core, and Windows.
"""

import importlib
import os
import pickle
import subprocess
import sys
import tempfile
import time


def _usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# POSIX only: the lock's liveness test (os.kill(pid, 0)) would end the process on Windows. Not in a
# frozen application, whose executable is the application itself, nor on one core, where the
# child would only take turns with the caller.
ENABLED = (os.environ.get("LUCIDML_BACKGROUND_COMPILE", "1") != "0" and os.name == "posix" and bool(sys.executable)
           and not getattr(sys, "frozen", False) and _usable_cores() >= 2)
# A lock older than this is stale whatever process id it holds (a killed child leaves its lock, and
# the id may be reused): no compile of a lucidml kernel takes that long.
LOCK_MAX_AGE_S = 600.0
_STARTED = []  # this process's children, for stop_children


class Job:
    """A child compiling one kernel for ``argtypes`` (started here; or by another process: then
    ``process`` and ``argtypes`` are None)."""

    def __init__(self, lock, process=None, argtypes=None):
        self.lock = lock
        self.process = process
        self.argtypes = argtypes

    def done(self):
        """Whether the child has exited (its code, if it compiled, is in the cache)."""
        if self.process is not None:
            return self.process.poll() is not None
        return _holder(self.lock) is None


def lock_path(ledger):
    """The lock file of a kernel whose interpreted-time ledger is ``ledger``."""
    return ledger.rsplit(".", 1)[0] + ".compiling"


def start(kernel, argtypes, ledger):
    """Compile ``kernel`` for ``argtypes`` in a child process; returns its :class:`Job`, or None.

    ``ledger``: the kernel's ledger path in the cache directory (see ``utils._interpret_budget``).
    When another process's child already compiles the kernel, returns a Job that waits for that
    one. None when background compiles are off, the cache directory cannot be written, a stale
    lock was found (and removed), or no child could be started.
    """
    if not ENABLED or ledger is None:
        return None
    lock = lock_path(ledger)
    try:
        os.makedirs(os.path.dirname(lock), exist_ok=True)
    except OSError:  # a read-only cache, or not a folder: nowhere for the child to put the code
        return None
    try:
        handle = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        if _holder(lock) is not None:
            return Job(lock)  # another process's child is at it
        _remove(lock)  # left by a child that died: taken over by the next call
        return None
    except OSError:  # a read-only cache
        return None
    job_file = None
    try:
        fd, job_file = tempfile.mkstemp(suffix=".job", dir=os.path.dirname(lock))
        with os.fdopen(fd, "wb") as out:
            pickle.dump((kernel.py_func.__module__, kernel.py_func.__qualname__, argtypes), out)
        env = {**os.environ, "LUCIDML_KERNEL_TIER": "compiled", "LUCIDML_BACKGROUND_COMPILE": "0",
               "PYTHONPATH": os.pathsep.join(p for p in sys.path if isinstance(p, str) and p)}
        process = subprocess.Popen(
            # The caller's interpreter flags (-E, -s, -I ...): the child imports what the caller does.
            [sys.executable, *subprocess._args_from_interpreter_flags(), "-m", "lucidml.utils._background_compile",
             job_file, lock], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # not stopped by the terminal's Ctrl-C, nor by this process's exit
        )
        os.write(handle, str(process.pid).encode())
    except Exception:  # no child after all (types that do not pickle, no process to spare)
        os.close(handle)
        _remove(lock)
        if job_file is not None:
            _remove(job_file)
        return None
    os.close(handle)
    _STARTED.append(process)
    return Job(lock, process, argtypes)


def idle():
    """Whether no child started by this process is compiling (one at a time: they share the cores)."""
    return all(process.poll() is not None for process in _STARTED)


def stop_children():
    """End this process's children (for benchmarks that throw their cache away)."""
    for process in _STARTED:
        if process.poll() is None:
            process.kill()
            process.wait()
    _STARTED.clear()


def _holder(lock):
    """The process id in a lock file if that process is alive and the lock recent, else None."""
    try:
        age = time.time() - os.path.getmtime(lock)
        with open(lock) as handle:
            pid = int(handle.read() or 0)
    except (OSError, ValueError):
        return None
    if age > LOCK_MAX_AGE_S:
        return None
    if pid <= 0:  # being written this moment by the process that took it, or left so by a crash
        return -1 if age < 60 else None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        pass
    return pid


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def main(job_file, lock):
    """The child: compile the kernel for the argument types in ``job_file``, then release ``lock``."""
    try:
        os.nice(10)  # the user's own work comes first
    except (AttributeError, OSError):
        pass
    try:
        with open(job_file, "rb") as handle:
            module, qualname, argtypes = pickle.load(handle)
        kernel = importlib.import_module(module)
        for name in qualname.split("."):
            kernel = getattr(kernel, name)
        kernel.compile(argtypes)  # Numba saves it to the on-disk cache
    finally:
        _remove(job_file)
        _remove(lock)


if __name__ == "__main__":
    main(*sys.argv[1:3])
