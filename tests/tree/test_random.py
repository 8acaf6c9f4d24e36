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


@pytest.mark.parametrize("max_bins", [None, 255])
def test_ties_between_features_go_to_a_random_one_that_follows_the_seed(max_bins):
    # Two copies of one column split alike at every node. Searching all features in column order,
    # the exact and the histogram search break the tie by the features' random ranks at the node
    # (_random.feature_rank): the same copy for the same seed, either copy across seeds, and the
    # same one in both searches.
    X, y = make_classification(300, 3, n_informative=2, n_redundant=0, random_state=0)
    X = np.column_stack([X[:, 0], X[:, 0], X[:, 1:]])
    roots = []
    for seed in range(16):
        tree = DecisionTreeClassifier(max_depth=1, max_bins=max_bins, random_state=seed).fit(X, y)
        again = DecisionTreeClassifier(max_depth=1, max_bins=max_bins, random_state=seed).fit(X, y)
        assert again.tree_.feature[0] == tree.tree_.feature[0]
        roots.append(int(tree.tree_.feature[0]))
    assert set(roots) == {0, 1}  # X[:, 0] is the best feature here
    other = [int(DecisionTreeClassifier(max_depth=1, max_bins=None if max_bins else 255,
                                        random_state=seed).fit(X, y).tree_.feature[0]) for seed in range(16)]
    assert other == roots


def test_feature_ranks_are_distinct_and_differ_between_nodes():
    from lucidml.tree._random import feature_rank, seed_node

    state = tree_state(0)
    orders = []
    for node in range(3):
        seed_node(state, node)
        ranks = [int(feature_rank(state[0], f)) for f in range(50)]
        assert len(set(ranks)) == 50
        orders.append(np.argsort(ranks).tolist())
    assert orders[0] != orders[1] != orders[2]


def test_an_integer_seed_is_mixed_by_splitmix64():
    """SplitMix64's first output from state 0 is 0xE220A8397B1DCDAF (its reference value); a
    negative seed is taken modulo 2^64, and no warning leaks from the wrapping arithmetic."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert int(tree_state(0)[0]) == 0xE220A8397B1DCDAF
        np.testing.assert_array_equal(tree_state(-1), tree_state(2**64 - 1))
