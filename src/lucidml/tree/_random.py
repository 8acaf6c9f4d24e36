"""A tiny seeded generator for compiled kernels (xorshift64*), so a tree's randomness comes only
from ``random_state`` and never from a global or per-thread Numba state.

Every node of a tree starts its draws afresh from the tree's seed and its own id
(:func:`seed_node`): what one node draws never shifts what another draws. A node that is not
searched at all (too few samples) then changes nothing elsewhere, so a sample of weight 2 and
the same sample twice give the same tree even though their nodes count samples differently.
"""

import numpy as np

from ..utils import njit


def new_state(random_state):
    """A tree's generator drawn from a ``RandomState``: uint64 (current state, the tree's seed)."""
    seed = (int(random_state.randint(1, np.iinfo(np.int32).max)) * 2654435761 + 1) & 0xFFFFFFFFFFFFFFFF
    return np.array([seed, seed], dtype=np.uint64)


@njit
def seed_node(state, node):
    """Set the generator to the start of node ``node``'s draws: the tree's seed and the node id
    mixed by SplitMix64's finalizer (never zero, which xorshift could not leave)."""
    z = state[1] + np.uint64(node + 1) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    state[0] = z if z != np.uint64(0) else np.uint64(1)


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
