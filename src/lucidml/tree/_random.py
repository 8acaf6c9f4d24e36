"""A tiny seeded generator for compiled kernels (xorshift64*), so a tree's randomness comes only
from ``random_state`` and never from a global or per-thread Numba state."""

import numpy as np

from ..utils import njit


def new_state(random_state):
    """A one-element uint64 state drawn from a ``RandomState`` (never zero)."""
    seed = int(random_state.randint(1, np.iinfo(np.int32).max)) * 2654435761 + 1
    return np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)


@njit
def next_uint(state):
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit
def rand_int(state, low, high):
    """Uniform integer in [low, high)."""
    return low + np.int64(next_uint(state) % np.uint64(high - low))


@njit
def rand_uniform(state, low, high):
    """Uniform float in [low, high)."""
    u = np.float64(next_uint(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    return low + u * (high - low)
