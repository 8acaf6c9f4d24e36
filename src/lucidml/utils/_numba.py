"""Numba in one place: every compiled kernel of lucidml is declared with :func:`njit`.

The project's defaults are

- ``cache=True``: the machine code is written next to the source (or to Numba's user cache
  when that is read-only), so only the very first import on a machine pays the compile time;
- ``nogil=True``: a kernel releases the GIL, so joblib's threading backend runs kernels in
  parallel for real.

Small work runs before it is compiled
-------------------------------------
Compiling a kernel costs from a tenth of a second to several seconds, once per machine; a fit
on a table of a few hundred rows needs milliseconds. So a kernel declared with
``@njit(interpret_small=True)`` is run as the plain Python function it is written as (the
*interpreted tier*: the same source, the same arithmetic, its callees interpreted too) while
all of these hold:

- it has no machine code yet, neither in this process nor in Numba's on-disk cache;
- the call is small: at most :data:`SMALL_CALL` array elements over all its arguments;
- it has spent less time interpreted than compiling it would take, as far as that can be told
  beforehand (:func:`interpret_budget`, from the size of its code and of the kernels it calls:
  1 to 10 s). This is the rent-or-buy rule: when the guess is right, the total never exceeds
  twice what the better choice, known in hindsight, would have cost. The time is summed over
  the processes of the machine (a small ``.interpreted`` file beside the kernel's entry in
  Numba's cache), so a script run again and again on small data gets compiled code too.

Otherwise it is compiled as usual, and from then on it always runs compiled. A newcomer's first
fit on iris therefore answers in milliseconds instead of waiting for the compiler, and a
kernel that is called often (or on big data) is compiled as soon as that pays.

Kernels whose work grows about linearly with their arrays (a tree: rows × features × depth)
declare ``interpret_small=True``; a kernel whose work grows faster (all pairs of rows, say)
would take minutes interpreted on a call of "only" 100,000 elements, so it declares a smaller
limit (``interpret_small=10_000``: SMO on a thousand rows) or none.

:func:`set_kernel_tier` / :func:`kernel_tier` (or the environment variable
``LUCIDML_KERNEL_TIER``) choose ``"compiled"`` to always compile (the test suite does, to test
the machine code; ``tests/utils/test_kernel_tiers.py`` checks that both tiers agree) or
``"interpreted"``.

Debugging without JIT: set the environment variable ``NUMBA_DISABLE_JIT=1`` before Python
starts. Every kernel then runs as the plain Python function it is written as, so ``pdb``,
``print`` and coverage work inside it; results are the same, only slower (a test checks this).
"""

import atexit
import functools
import os
import signal
import threading
import time
import types
from contextlib import contextmanager

import numba
import numpy as np
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import overload

__all__ = [
    "Dispatcher", "Kernel", "NJIT_DEFAULTS", "SMALL_CALL", "TIERS", "interpret_budget", "interpreted_calls",
    "kernel_tier", "njit", "set_kernel_tier", "unsigned",
]

NJIT_DEFAULTS = {"cache": True, "nogil": True}

# Iris is 600 values, diabetes 4,420: interpreted, a tree on them takes 10–150 ms; a tree on
# 2,500 × 20 values (100,000 elements with its presorted order) about 2 s.
SMALL_CALL = 100_000
# Compile seconds per byte of Python bytecode (the kernel and every kernel it calls), measured on
# this project's kernels: 25,800 bytes of tree builder take 10–13 s, 10,200 of SMO about 10 s,
# 7,300 of boosting's grower about 8 s with its histograms. A rough guess, clipped. The tree
# builder has since grown to 39,000 bytes and compiled in 14–30 s (stops 32–38): its budget,
# about 20 s, lets a 100-tree forest on diabetes (12 s interpreted) finish interpreted, where a
# 10 s cap compiled it at the tenth second and its first fit took 45 s.
COMPILE_S_PER_BYTE = 5e-4
MIN_INTERPRET_S = 1.0
MAX_INTERPRET_S = 20.0

TIERS = ("auto", "compiled", "interpreted")
_TIER = os.environ.get("LUCIDML_KERNEL_TIER", "auto")
if _TIER not in TIERS:
    _TIER = "auto"
_LOCK = threading.Lock()
_interpreted_calls = 0
_numba_call = CPUDispatcher.__call__  # Numba's own dispatch, past Kernel.__call__


def _compiled_call(kernel, *args, **kwargs):
    """Numba's dispatch, with Ctrl-C during the call raised as ``KeyboardInterrupt``.

    A SIGINT that lands while a kernel runs leaves Python's handler pending; Numba's dispatcher
    then runs it on its way out and reports "returned a result with an exception set" as a
    ``SystemError`` caused (at one or two removes) by the ``KeyboardInterrupt``. The caller gets
    the interrupt.
    """
    try:
        return _numba_call(kernel, *args, **kwargs)
    except SystemError as error:
        cause = error.__cause__
        while isinstance(cause, SystemError):  # Numba may wrap it twice (its exception unpickler)
            cause = cause.__cause__
        if isinstance(cause, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise


_holding = []  # the main thread's compiles in progress that hold Ctrl-C (nested compiles share one)


@contextmanager
def _ctrl_c_held():
    """Hold a Ctrl-C that arrives during the block and deliver it when the block ends.

    A ``KeyboardInterrupt`` raised inside Numba's compiler (Python code that owns LLVM objects
    through llvmlite) can leave an object freed by LLVM but still owned in Python, which the
    garbage collector may then free a second time. A CI run of the Ctrl-C tests (stop 45) crashed
    in llvmlite's dispose that way; the interrupt during a compile is the likely cause, inferred
    from the stack, not reproduced. Only the main thread receives signals, so only its compiles
    hold them.
    """
    if _holding or threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield  # nested, off the main thread, or a handler Python did not install: as Numba does
        return
    arrived = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: arrived.append(signum))
    _holding.append(True)
    try:
        yield
    finally:
        _holding.pop()
        signal.signal(signal.SIGINT, previous)
        if arrived:
            signal.raise_signal(signal.SIGINT)  # now, to whatever handled it before


def set_kernel_tier(tier):
    """Set the kernels' tier, process-wide; returns the one it replaces.

    ``"auto"`` (the default): small first calls of ``interpret_small`` kernels run interpreted,
    everything else compiled. ``"compiled"``: always compile. ``"interpreted"``: every call of an
    ``interpret_small`` kernel runs as plain Python, with its callees (to step through one with
    ``pdb``, or to check a compiled result).
    """
    global _TIER
    if tier not in TIERS:
        raise ValueError(f"kernel tier must be one of {TIERS}, got {tier!r}")
    previous, _TIER = _TIER, tier
    return previous


@contextmanager
def kernel_tier(tier):
    """:func:`set_kernel_tier` for the ``with`` block only."""
    previous = set_kernel_tier(tier)
    try:
        yield
    finally:
        set_kernel_tier(previous)


def interpreted_calls():
    """How many calls of this process ran interpreted in the ``auto`` tier (a counter, for reports)."""
    return _interpreted_calls


class Dispatcher(CPUDispatcher):
    """Numba's dispatcher, whose compiles hold Ctrl-C until they end (see :func:`_ctrl_c_held`)."""

    def compile(self, sig):
        with _ctrl_c_held():
            return super().compile(sig)


class Kernel(Dispatcher):
    """A Numba dispatcher that runs its first, small calls interpreted (see the module docstring).

    Compiled callers see an ordinary dispatcher; only calls from Python pass through here.
    ``small_call``: the most array elements (over all arguments) of a call that may run interpreted.
    """

    small_call = SMALL_CALL

    def __call__(self, *args, **kwargs):
        if self.overloads and _TIER != "interpreted":  # compiled once: the usual dispatch from now on
            return _compiled_call(self, *args, **kwargs)
        if _TIER == "interpreted":
            with np.errstate(all="ignore"):
                return self.interpreted(*args, **kwargs)
        if _TIER == "compiled":
            return _compiled_call(self, *args, **kwargs)
        return self._first_calls(args, kwargs)

    def _first_calls(self, args, kwargs):
        if (_elements(args) + _elements(tuple(kwargs.values())) > self.small_call
                or self.interpreted_seconds() >= interpret_budget(self) or self._load_from_disk(args)):
            return _compiled_call(self, *args, **kwargs)
        start = time.perf_counter()
        try:
            # Numba's integers wrap and its floats overflow silently; NumPy scalars would warn.
            with np.errstate(all="ignore"):
                return self.interpreted(*args, **kwargs)
        finally:
            global _interpreted_calls
            with _LOCK:
                self._interpreted_here = self.__dict__.get("_interpreted_here", 0.0) + time.perf_counter() - start
                _interpreted_calls += 1
                _INTERPRETED_KERNELS.add(self)

    def interpreted_seconds(self):
        """Seconds this kernel has run interpreted on this machine: earlier processes and this one."""
        earlier = self.__dict__.get("_interpreted_before")
        if earlier is None:
            earlier = self._interpreted_before = _read_ledger(self)
        return earlier + self.__dict__.get("_interpreted_here", 0.0)

    def _load_from_disk(self, args):
        """Whether the machine code for these argument types is in Numba's on-disk cache (then loaded)."""
        if self.__dict__.get("_not_on_disk"):
            return False
        try:
            # As numba.core.dispatcher.Dispatcher.compile does before it compiles.
            argtypes = tuple(self.typeof_pyval(a) for a in args)
            with global_compiler_lock:
                result = self._cache.load_overload(argtypes, self.targetctx)
                if result is not None:
                    self.targetctx.insert_user_function(result.entry_point, result.fndesc, [result.library])
                    self.add_overload(result)
                    return True
        except Exception:  # an internal of Numba changed: just compile as usual
            return True
        self._not_on_disk = True
        return False

    @property
    def interpreted(self):
        """The kernel as a plain Python function whose kernel calls are interpreted too."""
        function = self.__dict__.get("_interpreted")
        if function is None:
            function = _interpreted(self, {})
        return function


def _interpreted(kernel, done):
    """``kernel.py_func`` over copies of its globals and closure in which every kernel is interpreted."""
    function = kernel.__dict__.get("_interpreted")
    if function is not None:
        return function
    py_func = kernel.py_func
    namespace = dict(py_func.__globals__)
    cells = [types.CellType() for _ in py_func.__closure__ or ()]
    function = types.FunctionType(py_func.__code__, namespace, py_func.__name__, py_func.__defaults__,
                                  tuple(cells) if py_func.__closure__ else None)
    function.__kwdefaults__ = py_func.__kwdefaults__
    done[id(kernel)] = function  # before the callees: kernels may call each other in a cycle

    def plain(value):
        if isinstance(value, CPUDispatcher):
            return done.get(id(value)) or _interpreted(value, done)
        return value

    for name, value in namespace.items():
        namespace[name] = plain(value)
    for cell, original in zip(cells, py_func.__closure__ or ()):
        try:
            cell.cell_contents = plain(original.cell_contents)
        except ValueError:  # a cell not filled yet stays empty
            pass
    kernel._interpreted = function
    return function


_INTERPRETED_KERNELS = set()  # kernels that ran interpreted in this process: their ledgers are written at exit


def _ledger_path(kernel):
    """The file beside the kernel's index in Numba's cache that sums its interpreted seconds, or None."""
    try:
        cache = kernel._cache
        return os.path.join(cache._cache_path, cache._cache_file._index_name.rsplit(".", 1)[0] + ".interpreted")
    except AttributeError:  # no on-disk cache (cache=False), or Numba's internals changed
        return None


def _read_ledger(kernel):
    path = _ledger_path(kernel)
    try:
        with open(path) as handle:
            return max(0.0, float(handle.read()))
    except (TypeError, OSError, ValueError):  # none yet, unreadable or garbled: start from zero
        return 0.0


@atexit.register
def _write_ledgers():
    """Add this process's interpreted seconds to each kernel's ledger (nothing once it is compiled)."""
    for kernel in list(_INTERPRETED_KERNELS):
        path = _ledger_path(kernel)
        if path is None or kernel.overloads:
            continue
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write(repr(kernel.interpreted_seconds()))
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


def _elements(args):
    """Array elements over the arguments, looking into tuples (the kernels' named records)."""
    total = 0
    for a in args:
        if isinstance(a, np.ndarray):
            total += a.size
        elif isinstance(a, tuple):
            total += _elements(a)
    return total


def njit(func=None, **options):
    """``numba.njit`` with the project's defaults.

    Usable as ``@njit`` or ``@njit(fastmath=True)``; ``interpret_small=True`` makes it a
    :class:`Kernel`, whose small first calls run interpreted (see the module docstring), up to
    :data:`SMALL_CALL` array elements; ``interpret_small=n`` sets that limit to n elements, for a
    kernel whose work grows faster than its arrays.
    """
    options = {**NJIT_DEFAULTS, **options}
    if func is None:
        return lambda f: njit(f, **options)
    if numba.config.DISABLE_JIT:
        return _as_compiled_code_would(func)
    cache = options.pop("cache")
    interpret_small = options.pop("interpret_small", False)
    locals_ = options.pop("locals", {})
    options["nopython"] = True
    options.setdefault("boundscheck", None)
    # Only the kernels that may run interpreted pay for the check on every call from Python (0.5 µs).
    kernel = (Kernel if interpret_small else Dispatcher)(py_func=func, locals=locals_, targetoptions=options)
    if interpret_small:
        kernel.small_call = SMALL_CALL if interpret_small is True else int(interpret_small)
    if cache:
        kernel.enable_caching()
    return kernel


def _as_compiled_code_would(func):
    """``func`` run as plain Python the way its machine code would run it: integers wrap (the hashes
    of ``tree._random``) and floats overflow without NumPy's warnings, as in the interpreted tier."""

    @functools.wraps(func)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return func(*args, **kwargs)

    run.py_func = func
    return run


def unsigned(i):
    """A non-negative index ``i`` as an unsigned integer in compiled code; ``i`` itself in Python.

    Numba indexes with a signed integer through a negative-index wraparound (a compare and an
    add on every load); with an unsigned one it loads directly. In a hot loop of loads at ids
    read from memory (a tree's walk, a sweep over sorted sample ids) that is 5–15% of the time.
    Interpreted, ``np.uint64(i)`` would cost 0.3 µs a call; this costs a function call.
    """
    return i


@overload(unsigned)
def _unsigned_compiled(i):
    return lambda i: np.uint64(i)
