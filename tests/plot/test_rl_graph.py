"""ValueFunctionDisplay draws V and the greedy policy on the grid; PageRankDisplay draws the scores."""

import numpy as np
import pytest
import scipy.sparse

from lucidml.graph import pagerank
from lucidml.plot import PageRankDisplay, ValueFunctionDisplay
from lucidml.rl import MDP, MDPEnvironment, QLearning, policy_iteration, value_iteration

WALLS, TERMINALS = [(1, 1)], [(0, 3), (1, 3)]


def test_value_iteration_image_and_arrows(ax):
    plan = value_iteration(MDP.grid_world(), tol=1e-8)
    display = ValueFunctionDisplay.from_result(plan, shape=(3, 4), walls=WALLS, terminals=TERMINALS, ax=ax)
    assert display.ax_ is ax and display.figure_ is ax.figure
    image = display.image_.get_array()
    np.testing.assert_allclose(image.data[~image.mask], np.delete(plan.V[:12], 5))  # cell (1, 1) is the wall
    assert image.mask.sum() == 1 and image.mask[1, 1]
    assert [t.get_text() for t in display.texts_[:2]] == [f"{plan.V[0]:.2f}", f"{plan.V[1]:.2f}"]
    # one arrow per cell that is neither wall nor terminal, pointing the greedy action's way
    cells = [(r, c) for r in range(3) for c in range(4) if (r, c) not in WALLS + TERMINALS]
    directions = {0: (0, 1), 1: (1, 0), 2: (0, -1), 3: (-1, 0)}
    expected = np.array([directions[plan.policy[r * 4 + c]] for r, c in cells])
    np.testing.assert_array_equal(np.column_stack([display.quiver_.U, display.quiver_.V]), expected)
    np.testing.assert_array_equal(display.quiver_.X, [c for _, c in cells])
    assert plan.policy[8] == 0  # bottom-left: up, toward +1 (Russell & Norvig's optimal policy)


def test_policy_iteration_and_a_learner_on_a_new_figure():
    mdp = MDP.grid_world()
    plan = policy_iteration(mdp)
    display = ValueFunctionDisplay.from_result(plan, shape=(3, 4), walls=WALLS)
    assert len(display.quiver_.U) == 11  # no terminals given: every open cell gets an arrow
    agent = QLearning(random_state=0).fit(MDPEnvironment(mdp, start=8, terminal=[12], random_state=0))
    display = ValueFunctionDisplay.from_estimator(agent, shape=(3, 4), walls=WALLS, terminals=TERMINALS)
    image = display.image_.get_array()
    np.testing.assert_allclose(image.data[0], agent.q_[:4].max(axis=1))
    values_only = ValueFunctionDisplay(plan.V, shape=(3, 4)).plot()
    assert values_only.quiver_ is None and len(values_only.texts_) == 12


def test_value_function_errors():
    V = np.zeros(13)
    with pytest.raises(ValueError, match="at least"):
        ValueFunctionDisplay(V, shape=(4, 4)).plot()
    with pytest.raises(ValueError, match="cells of the 3×4 grid"):
        ValueFunctionDisplay(V, shape=(3, 4), walls=[(3, 0)]).plot()
    with pytest.raises(ValueError, match="policy actions"):
        ValueFunctionDisplay(V, np.full(13, 4), shape=(3, 4)).plot()
    with pytest.raises(TypeError, match="planning result"):
        ValueFunctionDisplay.from_result(V, shape=(3, 4))
    with pytest.raises(TypeError, match="q_ or value_"):
        ValueFunctionDisplay.from_estimator(QLearning(), shape=(3, 4))


def test_pagerank_node_sizes_and_colours_are_the_scores(ax):
    A = scipy.sparse.csr_array(np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 1]]))
    display = PageRankDisplay.from_graph(A, damping=0.9, labels=list("abcd"), ax=ax)
    scores = pagerank(A, damping=0.9).scores
    assert display.ax_ is ax
    np.testing.assert_allclose(display.nodes_.get_array(), scores)
    np.testing.assert_allclose(display.nodes_.get_sizes(), 1500 * scores / scores.max())
    np.testing.assert_allclose(display.nodes_.get_offsets(), display.positions_)
    assert len(display.edges_) == 5  # the self-loop 3 → 3 is not drawn
    first = display.edges_[0]  # 0 → 1: from node 0's position to node 1's
    np.testing.assert_allclose(first.xyann, display.positions_[0])
    np.testing.assert_allclose(first.xy, display.positions_[1])
    assert display.texts_[2].get_text() == f"c\n{scores[2]:.3f}"


def test_pagerank_with_given_positions_on_a_new_figure():
    positions = [[0, 0], [1, 0], [0, 1]]
    display = PageRankDisplay(np.ones((3, 3)) - np.eye(3), [0.2, 0.3, 0.5], positions=positions).plot()
    np.testing.assert_allclose(display.nodes_.get_offsets(), positions)
    assert len(display.edges_) == 6


def test_pagerank_errors():
    with pytest.raises(ValueError, match="shapes"):
        PageRankDisplay(np.zeros((3, 3)), [0.5, 0.5]).plot()
    with pytest.raises(ValueError, match="non-negative"):
        PageRankDisplay(np.zeros((2, 2)), [0.5, -0.5]).plot()
    with pytest.raises(ValueError, match="positions"):
        PageRankDisplay(np.zeros((2, 2)), [0.5, 0.5], positions=[[0, 0]]).plot()
