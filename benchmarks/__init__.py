"""Side-by-side timing of lucidml against scikit-learn: ``python -m benchmarks --help``.

Fits timed in a benchmark's own process are the steady state, so they run compiled kernels,
never the interpreted tier of small first calls (``lucidml.utils._numba``); the fresh processes
that measure cold start choose their tier themselves.
"""

from lucidml.utils import set_kernel_tier

set_kernel_tier("compiled")
