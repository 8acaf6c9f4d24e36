"""Numba in one place: every compiled kernel of lucidml is declared with :func:`njit`.

The project's defaults are

- ``cache=True``: the machine code is written next to the source (or to Numba's user cache
  when that is read-only), so only the very first import on a machine pays the compile time;
  loading it skips Numba's registry refresh (0.1–0.3 s of a new process) and saving it is one
  process at a time (``lucidml.utils._numba_cache``);
- ``nogil=True``: a kernel releases the GIL, so joblib's threading backend runs kernels in
  parallel for real.

Small work runs before it is compiled
-------------------------------------
Compiling a kernel costs from a tenth of a second to several seconds, once per machine; a fit
on a table of a few hundred rows needs milliseconds. So a kernel declared with
``@njit(interpret_small=True)`` is run as the plain Python function it is written as (the
*interpreted tier*: the same source, the same arithmetic, its callees interpreted too) while
all of these hold:

- it has no machine code for the call's argument types yet, neither in this process nor in
  Numba's on-disk cache;
- the call is small: at most :data:`SMALL_CALL` array elements over all its arguments;
- it has spent less time interpreted than compiling it would take, as far as that can be told
  beforehand (:func:`interpret_budget`, from the size of its code and of the kernels it calls:
  1 to 20 s). This is the rent-or-buy rule: when the guess is right, the total never exceeds
  twice what the better choice, known in hindsight, would have cost (for a compile in the
  background, below, the caller waits for none of it, unless the child has not finished by
  twice the budget). The time is summed over
  the processes of the machine (a small ``.interpreted`` file beside the kernel's entry in
  Numba's cache, ``lucidml.utils._interpret_budget``), so a script run again and again on small
  data gets compiled code too.

Otherwise it is compiled as usual, and from then on those argument types run compiled. A
newcomer's first fit on iris therefore answers in milliseconds instead of waiting for the
compiler, and a kernel that is called often (or on big data) is compiled as soon as that pays.

Two refinements:

- *Modes.* Numba drops the branches that a None argument rules out, so a kernel called with None
  in different places runs different code, compiled apart (the tree builder: exact search for
  the trees and forests, histogram search for boosting). Each such mode (:func:`_mode`) keeps
  its own ledger, and machine code for one mode does not make a small call of another compile.
- *Compiling in the background.* A kernel whose compile is guessed at :data:`BACKGROUND_MIN_S`
  or more is compiled by a child process once it has spent :data:`BACKGROUND_FROM` of its
  budget, while the caller goes on interpreting; the first call after the child is done loads
  its code from the cache (``lucidml.utils._background_compile``). Where a core is free, the
  user then does not wait for the compile; the child takes that core meanwhile.

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

from . import _background_compile
from ._interpret_budget import (
    INTERPRETED_KERNELS,
    interpret_budget,
    ledger_path,
    read_ledger,
)
from ._numba_cache import NumbaCache

__all__ = [
    "Dispatcher", "Kernel", "NJIT_DEFAULTS", "SMALL_CALL", "TIERS", "interpret_budget", "interpreted",
    "interpreted_calls", "kernel_tier", "njit", "set_kernel_tier", "unsigned",
]

NJIT_DEFAULTS = {"cache": True, "nogil": True}

# Iris is 600 values, diabetes 4,420: interpreted, a tree on them takes 10–150 ms; a tree on
# 2,500 × 20 values (100,000 elements with its presorted order) about 2 s.
SMALL_CALL = 100_000
# A kernel whose compile is guessed to take BACKGROUND_MIN_S or more is compiled by a child process
# once it has spent BACKGROUND_FROM of its budget interpreted (see _background_compile): the child
# costs a core for the compile's time plus about 1.5 s of start, where the calling process would
# have stopped for the compile's time. A tenth: `lucidml compare`'s exact trees spend about 3 s a
# run interpreted, so the child starts in the first run and the second run finds the code (a
# quarter: the third run, 15.3 s against 12.7). At most MAX_JOBS children per kernel and mode,
# per process.
BACKGROUND_MIN_S = 5.0
BACKGROUND_FROM = 0.1
MAX_JOBS = 3

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

    def enable_caching(self):
        self._cache = NumbaCache(self.py_func)


class _NewSignature(Exception):
    """Numba's dispatch of a :class:`Kernel` found no machine code for the call's argument types."""


_deciding = threading.local()  # .compile: Kernel._first_calls has chosen to compile this call


class Kernel(Dispatcher):
    """A Numba dispatcher that runs its first, small calls interpreted (see the module docstring).

    Compiled callers see an ordinary dispatcher; only calls from Python pass through here.
    ``small_call``: the most array elements (over all arguments) of a call that may run interpreted.
    """

    small_call = SMALL_CALL

    def __call__(self, *args, **kwargs):
        if _TIER == "auto":
            if self.overloads:  # compiled for some argument types: Numba's dispatch finds them
                try:
                    return _compiled_call(self, *args, **kwargs)
                except _NewSignature:  # not for these: the rules below decide
                    pass
            return self._first_calls(args, kwargs)
        if _TIER == "interpreted":
            with np.errstate(all="ignore"):
                return self.interpreted(*args, **kwargs)
        return self._compiled(args, kwargs)  # marked: the tier may turn "auto" on another thread meanwhile

    def _compile_for_args(self, *args, **kwargs):
        # Numba's dispatch calls this when it has no machine code for the arguments' types. A call
        # of another mode (see _mode) than the compiled ones may still run interpreted: back to
        # __call__, unless _first_calls has chosen to compile.
        if _TIER == "auto" and not getattr(_deciding, "compile", False):
            raise _NewSignature
        return super()._compile_for_args(*args, **kwargs)

    def _first_calls(self, args, kwargs):
        mode = _mode(args)
        if (_elements(args) + _elements(tuple(kwargs.values())) > self.small_call
                or self._load_from_disk(args, mode)):
            return self._compiled(args, kwargs)
        spent, budget = self.interpreted_seconds(mode), interpret_budget(self)
        job = None
        if budget >= BACKGROUND_MIN_S and spent >= BACKGROUND_FROM * budget:
            # Time to buy, in a child process while this one goes on renting (_background_compile).
            job = self._background_job(args, mode)
            if job is not None and job.done():
                self._jobs.pop(mode, None)
                self._not_on_disk.discard(mode)
                if job.argtypes is not None and self._load_types(job.argtypes):  # the child's, whatever this call's
                    try:
                        return _compiled_call(self, *args, **kwargs)
                    except _NewSignature:  # this call has other types (the same mode: another model)
                        pass
                if self._load_from_disk(args, mode):
                    return self._compiled(args, kwargs)
                job = None  # nothing for these types: another child may compile them, up to MAX_JOBS
        if spent >= budget and (job is None or spent >= 2 * budget):
            return self._compiled(args, kwargs)
        start = time.perf_counter()
        try:
            # Numba's integers wrap and its floats overflow silently; NumPy scalars would warn.
            with np.errstate(all="ignore"):
                return self.interpreted(*args, **kwargs)
        finally:
            global _interpreted_calls
            with _LOCK:
                here = self._interpreted_here
                here[mode] = here.get(mode, 0.0) + time.perf_counter() - start
                _interpreted_calls += 1
                INTERPRETED_KERNELS.add(self)

    def _compiled(self, args, kwargs):
        """The call, compiled if need be (``_compile_for_args`` lets it)."""
        previous, _deciding.compile = getattr(_deciding, "compile", False), True
        try:
            return _compiled_call(self, *args, **kwargs)
        finally:
            _deciding.compile = previous

    def _background_job(self, args, mode):
        """The child process compiling this kernel for a call of ``mode`` (started now if none), or None."""
        job = self._jobs.get(mode)
        if (job is None and _background_compile.ENABLED and self._job_count.get(mode, 0) < MAX_JOBS
                and _background_compile.idle()):
            self._job_count[mode] = self._job_count.get(mode, 0) + 1  # tries, started or not
            ledger = ledger_path(self)  # None: no on-disk cache for a child to fill (start says no)
            argtypes = tuple(self.typeof_pyval(a) for a in args)
            if any(t == numba.types.pyobject for t in argtypes):  # a value Numba cannot type: no child
                return None
            job = _background_compile.start(self, argtypes, ledger)
            if job is not None:
                self._jobs[mode] = job
        return job

    def interpreted_seconds(self, mode=0):
        """Seconds this kernel has run interpreted in ``mode`` (see _mode) on this machine: earlier
        processes and this one."""
        earlier = self._interpreted_before.get(mode)
        if earlier is None:
            earlier = self._interpreted_before[mode] = read_ledger(self, mode)
        return earlier + self._interpreted_here.get(mode, 0.0)

    def _load_from_disk(self, args, mode):
        """Whether the machine code for these arguments' types is in Numba's on-disk cache (then
        loaded). A miss is remembered for the mode: the next calls of that mode do not look again."""
        if mode in self._not_on_disk:
            return False
        try:
            found = self._load_types(tuple(self.typeof_pyval(a) for a in args))
        except Exception:  # an internal of Numba changed: just compile as usual
            return True
        if not found:
            self._not_on_disk.add(mode)
        return found

    def _load_types(self, argtypes):
        """Load the machine code for ``argtypes`` from Numba's on-disk cache; whether it was there."""
        if tuple(argtypes) in self.overloads:
            return True
        with global_compiler_lock:  # as numba.core.dispatcher.Dispatcher.compile does before it compiles
            result = self._cache.load_overload(argtypes, self.targetctx)
            if result is None:
                return False
            self.targetctx.insert_user_function(result.entry_point, result.fndesc, [result.library])
            self.add_overload(result)
            return True

    # Per-kernel state of the rules above, made on first use (Numba builds dispatchers its own way).
    def __getattr__(self, name):
        if name == "_not_on_disk":
            value = set()
        elif name in ("_interpreted_here", "_interpreted_before", "_jobs", "_job_count"):
            value = {}
        else:
            raise AttributeError(name)
        self.__dict__[name] = value
        return value

    @property
    def interpreted(self):
        """The kernel as a plain Python function whose kernel calls are interpreted too."""
        function = self.__dict__.get("_interpreted")
        if function is None:
            function = _interpreted(self, {})
        return function


def interpreted(function):
    """A compiled ``function`` as the plain Python it is written as, the kernels it calls interpreted
    too (the interpreted tier's form of it; made once); anything else as it is."""
    return _interpreted(function, {}) if isinstance(function, CPUDispatcher) else function


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


def _mode(args):
    """Which arguments are None, as bits. Numba drops the branches a None argument rules out, so a
    kernel called with None in different places (the tree builder: exact or histogram search) runs
    different code, compiled and paid for apart; each mode keeps its own ledger."""
    mode = 0
    for i, a in enumerate(args):
        if a is None:
            mode |= 1 << i
    return mode


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
