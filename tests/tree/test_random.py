"""The trees' seeded generator (``lucidml.tree._random``): integer seeds without a RandomState."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from lucidml.tree import DecisionTreeClassifier
from lucidml.tree._random import new_state, tree_state


def test_an_integer_seed_gives_one_state_whatever_its_integer_type():
    states = [tree_state(seed) for seed in (7, np.int64(7), np.uint32(7))]
    for state in states[1:]:
        np.testing.assert_array_equal(state, states[0])
    assert states[0].dtype == np.uint64 and states[0][0] != 0
    assert not np.array_equal(tree_state(7), tree_state(8))


def test_each_call_returns_a_fresh_array():
    """The kernels advance state[0]: a state handed out must never be shared."""
    a, b = tree_state(3), tree_state(3)
    a[0] = 1
    assert b[0] != 1


def test_other_random_states_draw_from_a_randomstate():
    np.testing.assert_array_equal(tree_state(np.random.RandomState(5)), new_state(np.random.RandomState(5)))


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1])
def test_drawn_features_follow_the_seed(seed):
    """max_features < d draws features per node: the same seed grows the same tree, another seed
    (almost surely) another one."""
    X, y = make_classification(300, 12, n_informative=6, random_state=0)
    grow = lambda s: DecisionTreeClassifier(max_features=3, random_state=s).fit(X, y).tree_  # noqa: E731
    np.testing.assert_array_equal(grow(seed).feature, grow(np.int64(seed)).feature)
    assert not np.array_equal(grow(seed).feature, grow(seed + 1 if seed < 2**32 - 1 else 0).feature)
