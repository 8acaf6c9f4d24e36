"""MDP validation, and planning: exact solve, value iteration and policy iteration agree."""

import gymnasium
import numpy as np
import pytest
import scipy.sparse

from lucidml.rl import (
    MDP,
    greedy_policy,
    modified_policy_iteration,
    policy_evaluation,
    policy_iteration,
    value_iteration,
)


def random_mdp(n_states=30, n_actions=4, gamma=0.9, seed=0, reward_shape="sa"):
    rng = np.random.default_rng(seed)
    P = rng.uniform(size=(n_states, n_actions, n_states)) ** 4  # peaked rows
    P /= P.sum(axis=2, keepdims=True)
    R = rng.normal(size=(n_states,) if reward_shape == "s" else (n_states, n_actions))
    return MDP(P, R, gamma)


def _all_deterministic_values(mdp):
    """V^π of every deterministic policy, by brute force (tiny MDPs only)."""
    import itertools

    return [policy_evaluation(mdp, np.array(p)) for p in itertools.product(range(mdp.n_actions), repeat=mdp.n_states)]


@pytest.mark.parametrize("seed", range(5))
def test_value_and_policy_iteration_agree_with_the_exact_solution(seed):
    mdp = random_mdp(seed=seed, gamma=0.95)
    pi_result = policy_iteration(mdp)
    vi_result = value_iteration(mdp, tol=1e-8)
    mpi_result = modified_policy_iteration(mdp, sweeps=10, tol=1e-8)
    assert pi_result.converged and vi_result.converged and mpi_result.converged
    np.testing.assert_array_equal(vi_result.policy, pi_result.policy)
    np.testing.assert_array_equal(mpi_result.policy, pi_result.policy)
    exact = policy_evaluation(mdp, pi_result.policy)
    np.testing.assert_allclose(pi_result.V, exact, rtol=1e-12)
    np.testing.assert_allclose(vi_result.V, exact, atol=1e-7)
    # Bellman optimality: V* = max_a Q*(s, a).
    np.testing.assert_allclose(mdp.q_values(exact).max(axis=1), exact, atol=1e-10)


def test_the_optimal_policy_beats_every_deterministic_policy():
    mdp = random_mdp(n_states=5, n_actions=3, seed=11)
    optimal = policy_iteration(mdp).V
    for V in _all_deterministic_values(mdp):
        assert np.all(V <= optimal + 1e-10)


def test_value_iteration_stopping_rule_gives_an_epsilon_optimal_policy():
    mdp = random_mdp(seed=3, gamma=0.99)
    optimal = policy_iteration(mdp).V
    for tol in (1.0, 1e-2, 1e-4):
        result = value_iteration(mdp, tol=tol)
        assert np.max(np.abs(policy_evaluation(mdp, result.policy) - optimal)) <= tol
        assert all(b <= 0.99 * a + 1e-12 for a, b in zip(result.history, result.history[1:]))  # γ-contraction


def test_iterative_evaluation_and_stochastic_policies():
    mdp = random_mdp(seed=4, reward_shape="s")
    policy = np.random.default_rng(0).integers(0, 4, size=30)
    np.testing.assert_allclose(policy_evaluation(mdp, policy, method="iterative"), policy_evaluation(mdp, policy), atol=1e-8)
    uniform = np.full((30, 4), 0.25)
    V = policy_evaluation(mdp, uniform)
    # Bellman equation of 004 §17 with R(s): V = R + γ P_π V.
    np.testing.assert_allclose(V, mdp.R_pi(uniform) + mdp.gamma * mdp.P_pi(uniform) @ V, atol=1e-10)


def test_sparse_transitions_equal_dense():
    dense = random_mdp(seed=5)
    P = [scipy.sparse.csr_array(P_a) for P_a in dense.transitions]
    sparse = MDP(P, dense.rewards, dense.gamma)
    np.testing.assert_allclose(policy_iteration(sparse).V, policy_iteration(dense).V, rtol=1e-10)
    np.testing.assert_allclose(value_iteration(sparse).V, value_iteration(dense).V, rtol=1e-10)


def test_reward_forms_give_the_same_values():
    mdp = random_mdp(seed=6)
    P = np.stack(mdp.transitions, axis=1)
    R_sas = np.repeat(mdp.rewards[:, :, None], mdp.n_states, axis=2)
    np.testing.assert_allclose(MDP(P, R_sas, mdp.gamma).rewards, mdp.rewards)
    R_s = np.arange(mdp.n_states, dtype=float)
    np.testing.assert_allclose(MDP(P, R_s, mdp.gamma).rewards, np.repeat(R_s[:, None], mdp.n_actions, axis=1))


def test_greedy_policy_breaks_ties_towards_the_lowest_action():
    P = np.zeros((1, 3, 1))
    P[0, :, 0] = 1.0
    assert greedy_policy(MDP(P, np.zeros((1, 3)), 0.5), np.zeros(1)).tolist() == [0]


def test_grid_world_optimal_policy():
    world = MDP.grid_world()  # Russell & Norvig's 4 × 3 world, step cost 0.04, 80 % intended moves
    result = policy_iteration(world)
    up, right, left = 0, 1, 3
    policy = result.policy.reshape(-1)[:12].reshape(3, 4)
    # The textbook policy: along the top to +1, and from the bottom row around the wall.
    assert policy[0, :3].tolist() == [right, right, right]
    assert policy[1, 0] == up and policy[2, 0] == up and policy[1, 2] == up
    assert policy[2, 3] == left  # stays away from −1
    assert result.V[3] == pytest.approx(1.0) and result.V[7] == pytest.approx(-1.0)


def test_frozen_lake_optimal_success_rate_and_agreement():
    env = gymnasium.make("FrozenLake-v1")
    mdp = MDP.from_gymnasium(env, gamma=0.99)
    assert mdp.n_states == 17 and mdp.n_actions == 4  # 16 cells + the absorbing end
    vi, pi = value_iteration(mdp, tol=1e-8), policy_iteration(mdp)
    np.testing.assert_allclose(vi.V, pi.V, atol=1e-6)
    # With reward 1 only at the goal and γ → 1, V(start) is the probability of reaching it.
    success = policy_evaluation(MDP.from_gymnasium(env, gamma=0.999999), pi.policy)[0]
    assert 0.80 < success < 0.85
    # Check the model against the environment itself: play the policy without gymnasium's
    # 100-step time limit, which the infinite-horizon MDP does not have (with the limit the
    # same policy wins about 75 % of the time). 4,000 episodes: standard error below 0.007.
    lake = env.unwrapped
    lake.reset(seed=0)
    wins = 0
    for _ in range(4000):
        state, _ = lake.reset()
        terminated = False
        while not terminated:
            state, reward, terminated, _, _ = lake.step(int(pi.policy[state]))
        wins += reward == 1.0
    assert abs(wins / 4000 - success) < 0.025


@pytest.mark.parametrize("name", ["CliffWalking-v1", "Taxi-v4"])
def test_other_toy_text_environments(name):
    mdp = MDP.from_gymnasium(gymnasium.make(name), gamma=0.95)
    result = policy_iteration(mdp)
    np.testing.assert_allclose(result.V, value_iteration(mdp, tol=1e-8).V, atol=1e-6)


def test_validation_names_the_bad_row():
    P = np.full((3, 2, 3), 1 / 3)
    P[1, 1] = [0.5, 0.5, 0.5]
    with pytest.raises(ValueError, match=r"P\[1, 1, :\] sums to 1.5"):
        MDP(P, np.zeros(3), 0.9)
    P[1, 1] = [1.5, -0.5, 0.0]
    with pytest.raises(ValueError, match=r"P\[1, 1, :\] has a negative"):
        MDP(P, np.zeros(3), 0.9)
    with pytest.raises(ValueError, match="gamma must be in"):
        MDP(np.full((3, 2, 3), 1 / 3), np.zeros(3), 1.0)
    with pytest.raises(ValueError, match="R must have shape"):
        MDP(np.full((3, 2, 3), 1 / 3), np.zeros(4), 0.9)
    with pytest.raises(ValueError, match="one action index per state"):
        policy_evaluation(MDP(np.full((3, 2, 3), 1 / 3), np.zeros(3), 0.9), np.array([0, 1]))


def test_bad_rewards_iteration_counts_and_indices_are_refused_by_name():
    from lucidml.rl import MDP, MDPEnvironment, estimate_mdp, policy_iteration, value_iteration

    P = np.full((2, 1, 2), 0.5)
    with pytest.raises(ValueError, match="R has NaN"):
        MDP(P, [np.nan, 0.0], 0.9)
    with pytest.raises(ValueError, match="at least one action"):
        MDP(np.zeros((2, 0, 2)), np.zeros(2), 0.9)
    mdp = MDP(P, [1.0, 0.0], 0.9)
    for solve in (value_iteration, policy_iteration):
        with pytest.raises(ValueError, match="max_iter"):
            solve(mdp, max_iter=0)
    with pytest.raises(ValueError, match="V0"):
        value_iteration(mdp, V0=[np.nan, 0.0])
    with pytest.raises(ValueError, match="state must be in"):
        mdp.step(0, 7, np.random.RandomState(0))
    with pytest.raises(ValueError, match="start must be a state"):
        MDPEnvironment(mdp, start=50)
    with pytest.raises(ValueError, match="one entry per transition"):
        estimate_mdp([0, 1], [0], [1.0], [0], 3, 2, 0.9)
    with pytest.raises(ValueError, match="states must lie in"):
        estimate_mdp([-1], [0], [1.0], [0], 3, 2, 0.9)
    with pytest.raises(ValueError, match="n_states"):
        estimate_mdp([], [], [], [], 0, 2, 0.9)
