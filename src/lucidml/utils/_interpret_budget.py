"""How long a kernel may run interpreted before it is compiled, and the ledger that counts it.

The rent-or-buy rule of :mod:`lucidml.utils._numba`: a kernel declared ``interpret_small`` runs
its small calls interpreted until it has spent about what compiling it would cost
(:func:`interpret_budget`), summed over the processes of the machine in a small ``.interpreted``
file beside the kernel's entry in Numba's cache (one per mode of the kernel, see
``_numba._mode``), written when a process exits.
"""

import atexit
import os

from numba.core.registry import CPUDispatcher

# Compile seconds per byte of Python bytecode (the kernel and every kernel it calls), measured on
# this project's kernels: 25,800 bytes of tree builder take 10–13 s, 10,200 of SMO about 10 s,
# 7,300 of boosting's grower about 8 s with its histograms. A rough guess, clipped. The tree
# builder has since grown to 39,000 bytes and compiled in 14–30 s (stops 32–38): its budget,
# about 20 s, lets a 100-tree forest on diabetes (12 s interpreted) finish interpreted, where a
# 10 s cap compiled it at the tenth second and its first fit took 45 s.
COMPILE_S_PER_BYTE = 5e-4
MIN_INTERPRET_S = 1.0
MAX_INTERPRET_S = 20.0


INTERPRETED_KERNELS = set()  # kernels that ran interpreted in this process: their ledgers are written at exit


def ledger_path(kernel, mode=0):
    """The file beside the kernel's index in Numba's cache that sums its interpreted seconds in
    ``mode`` (see _mode), or None."""
    try:
        cache = kernel._cache
        stem = cache._cache_file._index_name.rsplit(".", 1)[0]
    except AttributeError:  # no on-disk cache (cache=False), or Numba's internals changed
        return None
    return os.path.join(cache._cache_path, stem + (f".{mode}" if mode else "") + ".interpreted")


def read_ledger(kernel, mode):
    path = ledger_path(kernel, mode)
    try:
        with open(path) as handle:
            return max(0.0, float(handle.read()))
    except (TypeError, OSError, ValueError):  # none yet, unreadable or garbled: start from zero
        return 0.0


@atexit.register
def write_ledgers():
    """Add this process's interpreted seconds to each kernel's ledger of each mode it ran in."""
    for kernel in list(INTERPRETED_KERNELS):
        for mode in list(kernel._interpreted_here):
            path = ledger_path(kernel, mode)
            if path is None:
                continue
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as handle:
                    handle.write(repr(kernel.interpreted_seconds(mode)))
            except OSError:  # a read-only cache: the next process starts its count from zero
                pass


def interpret_budget(kernel):
    """Seconds a kernel may run interpreted on a machine before it is compiled: about what compiling
    it would cost (``COMPILE_S_PER_BYTE`` × the bytecode of it and its callees), clipped to
    [``MIN_INTERPRET_S``, ``MAX_INTERPRET_S``]."""
    size = kernel.__dict__.get("_code_bytes")
    if size is None:
        size = kernel._code_bytes = _code_bytes(kernel, set())
    return min(MAX_INTERPRET_S, max(MIN_INTERPRET_S, COMPILE_S_PER_BYTE * size))


def _code_bytes(kernel, seen):
    """Bytes of bytecode of ``kernel`` and of every kernel it calls (each counted once)."""
    if id(kernel) in seen:
        return 0
    seen.add(id(kernel))
    py_func = kernel.py_func
    total = len(py_func.__code__.co_code)
    callees = [py_func.__globals__.get(name) for name in py_func.__code__.co_names]
    for cell in py_func.__closure__ or ():
        try:
            callees.append(cell.cell_contents)
        except ValueError:  # a cell not filled yet
            pass
    for callee in callees:
        if isinstance(callee, CPUDispatcher):
            total += _code_bytes(callee, seen)
    return total
