"""The peak of memory a call allocates, for the tests that bound it ("memory per call is bounded")."""

import tracemalloc


def traced_peak(call):
    """(call's result, the most bytes that NumPy and Python held at once during it, above what
    they held before). Warm a kernel up first: a first call's compile is not the call's memory."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
