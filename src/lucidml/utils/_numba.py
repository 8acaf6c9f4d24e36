"""Numba in one place: every compiled kernel of lucidml is declared with :func:`njit`.

The project's defaults are

- ``cache=True``: the machine code is written next to the source (or to Numba's user cache
  when that is read-only), so only the very first import on a machine pays the compile time;
- ``nogil=True``: a kernel releases the GIL, so joblib's threading backend runs kernels in
  parallel for real.

Debugging without JIT: set the environment variable ``NUMBA_DISABLE_JIT=1`` before Python
starts. Every kernel then runs as the plain Python function it is written as, so ``pdb``,
``print`` and coverage work inside it; results are the same, only slower (a test checks this).
"""

import numba

__all__ = ["njit", "NJIT_DEFAULTS"]

NJIT_DEFAULTS = {"cache": True, "nogil": True}


def njit(func=None, **options):
    """``numba.njit`` with the project's defaults; usable as ``@njit`` or ``@njit(fastmath=True)``."""
    options = {**NJIT_DEFAULTS, **options}
    if func is None:
        return numba.njit(**options)
    return numba.njit(**options)(func)
