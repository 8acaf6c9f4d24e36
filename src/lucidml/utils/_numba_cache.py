"""Numba's on-disk cache of a kernel, loaded faster, saved one process at a time, and dropped when
any of lucidml's sources changes.

Every kernel of lucidml (``utils._numba.Dispatcher``) caches its machine code through
:class:`NumbaCache`, Numba's ``FunctionCache`` with three changes: loading skips the refresh of
Numba's registries, saving holds a lock across processes, and the cache is stamped with all of the
package's source files, not only the kernel's own.
"""

import functools
import hashlib
import os
from contextlib import contextmanager

from numba.core.caching import FunctionCache
from numba.core.runtime import rtsys

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None


class NumbaCache(FunctionCache):
    """Numba's on-disk cache of a function, loaded without first refreshing the target's registries.

    Numba's ``load_overload`` begins with ``target_context.refresh()``, which, the first time in a
    process, imports and installs every typing and lowering registry of Numba: 0.13–0.3 s, the bulk
    of a small fit's first call in a new process whose kernels are all cached. Cached machine code
    needs only Numba's runtime (memory management), which that refresh starts and which is started
    here instead; whatever needs the registries refreshes them itself: a compile
    (``CompilerBase.__init__``) and a lowering lookup that misses (``BaseContext.get_function``).
    """

    def __init__(self, py_func):
        super().__init__(py_func)
        # Numba stamps a kernel's cache with its own file only, and its machine code holds the
        # kernels it calls, inlined: after an edit of a callee in another file, the caller's stale
        # code ran on (a tree builder kept a histogram fix out of every fit until the cache was
        # cleared). Stamped with every source of the package, a changed source drops them all.
        cache_file = getattr(self, "_cache_file", None)
        if cache_file is not None and hasattr(cache_file, "_source_stamp"):
            cache_file._source_stamp = (cache_file._source_stamp, package_stamp())

    def load_overload(self, sig, target_context):
        try:
            guard, load = self._guard_against_spurious_io_errors, self._load_overload
        except AttributeError:  # Numba's internals changed: its own way
            return super().load_overload(sig, target_context)
        rtsys.initialize(target_context)  # as CPUContext.load_additional_registries does first
        with guard():
            return load(sig, target_context)

    def save_overload(self, sig, data):
        # Numba's save reads the function's index, picks the first free data-file name, then writes
        # the index and the data. Two processes saving the same function at once (a child compiling
        # in the background beside its caller, _background_compile) could pick the same name, and
        # the index could then point one signature at the other's machine code. One at a time.
        with _saving(getattr(getattr(self, "_cache_file", None), "_index_path", None)):
            super().save_overload(sig, data)


@contextmanager
def _saving(index_path):
    """Hold an exclusive lock on ``index_path + '.lock'`` across processes (POSIX; elsewhere, or
    where the lock cannot be made, nothing: the save proceeds as Numba's own)."""
    handle = None
    if fcntl is not None and index_path is not None:
        try:
            handle = open(index_path + ".lock", "a")
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            if handle is not None:
                handle.close()
            handle = None
    try:
        yield
    finally:
        if handle is not None:
            handle.close()  # releases the lock


@functools.cache
def package_stamp(root=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
    """A digest of the modification times and sizes of the Python sources under ``root`` (lucidml's
    package directory), read once per process (a few milliseconds)."""
    digest = hashlib.sha1()
    for folder, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                stat = os.stat(path)
                digest.update(f"{os.path.relpath(path, root)}:{stat.st_mtime_ns}:{stat.st_size};".encode())
    return digest.hexdigest()
