"""A tiny seeded generator for compiled kernels (xorshift64*), so a tree's randomness comes only
from ``random_state`` and never from a global or per-thread Numba state.

Every node of a tree starts its draws afresh from the tree's seed and its own id
(:func:`seed_node`): what one node draws never shifts what another draws. A node that is not
searched at all (too few samples) then changes nothing elsewhere, so a sample of weight 2 and
the same sample twice give the same tree even though their nodes count samples differently.
"""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ..utils import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # SplitMix64's increment: 2^64 / the golden ratio
LAST_RANK = np.uint64(np.iinfo(np.uint64).max)  # above every feature's rank (_splitter)


def new_state(random_state):
    """A tree's generator drawn from a ``RandomState``: uint64 (current state, the tree's seed)."""
    seed = (int(random_state.randint(1, np.iinfo(np.int32).max)) * 2654435761 + 1) & 0xFFFFFFFFFFFFFFFF
    return np.array([seed, seed], dtype=np.uint64)


def tree_state(random_state):
    """The generator of a tree that draws nothing else from ``random_state``.

    An integer seed is mixed by SplitMix64's finalizer instead of seeding a ``RandomState``,
    which fills a 2.5 kB Mersenne Twister state: about 0.1 ms, a tenth of a small tree's fit (a
    forest seeds each of its trees with an integer). Anything else: :func:`new_state`.
    """
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        mix = getattr(_mix, "py_func", _mix)  # run in Python: no compiled call (a function under NUMBA_DISABLE_JIT)
        with np.errstate(over="ignore"):  # (the mix wraps around 2^64 by design)
            seed = mix(np.uint64(int(random_state) & 0xFFFFFFFFFFFFFFFF) + _GOLDEN)
        seed = seed or np.uint64(1)  # (xorshift cannot leave 0)
        return np.array([seed, seed], dtype=np.uint64)
    return new_state(check_random_state(random_state))


@njit
def seed_node(state, node):
    """Set the generator to the start of node ``node``'s draws: the tree's seed and the node id
    mixed by SplitMix64's finalizer (never zero, which xorshift could not leave)."""
    z = _mix(state[1] + np.uint64(node + 1) * _GOLDEN)
    state[0] = z if z != np.uint64(0) else np.uint64(1)


@njit(inline="always")
def feature_rank(node_seed, feature):
    """A random rank of ``feature`` at the node whose draws start at ``node_seed`` (:func:`seed_node`'s
    state): the ranks of a node's features order them at random, as a draw without replacement of
    every feature would, but each costs three multiplications and no draw (ties between features
    go to the lower rank)."""
    return _mix(node_seed + np.uint64(feature + 1) * _GOLDEN)


@njit(inline="always")
def _mix(z):
    """SplitMix64's finalizer: each bit of z spread over all 64."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


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
