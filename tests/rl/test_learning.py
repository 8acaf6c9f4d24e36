"""Q-learning, SARSA and model-based learning against the optimal policy of the true model."""

import gymnasium
import numpy as np
import pytest

from lucidml.rl import (
    MDP,
    SARSA,
    MDPEnvironment,
    ModelBasedLearner,
    QLearning,
    estimate_mdp,
    policy_evaluation,
    policy_iteration,
)


@pytest.fixture(scope="module")
def frozen_lake():
    env = gymnasium.make("FrozenLake-v1")  # slippery 4 × 4, 100-step episodes
    truth = MDP.from_gymnasium(env, gamma=0.999999)  # γ → 1: V(start) = probability of success
    optimal = policy_evaluation(truth, policy_iteration(MDP.from_gymnasium(env, gamma=0.99)).policy)[0]

    def success(policy):  # exact success probability of a learned policy (16 cells + end state)
        return policy_evaluation(truth, np.append(policy, 0))[0]

    return env, optimal, success


def test_q_learning_reaches_the_optimal_success_rate_on_frozen_lake(frozen_lake):
    env, optimal, success = frozen_lake
    agent = QLearning(gamma=0.99, learning_rate=0.1, epsilon=1.0, epsilon_decay=0.999, min_epsilon=0.05,
                      n_episodes=5000, random_state=0).fit(env)
    assert optimal == pytest.approx(0.8235, abs=1e-4)
    assert success(agent.policy_) >= optimal - 0.02  # stated margin: 2 percentage points
    assert len(agent.episode_returns_) == 5000 and agent.predict([0]).shape == (1,)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_model_based_learning_plans_a_near_optimal_policy(frozen_lake, seed):
    env, optimal, success = frozen_lake
    learner = ModelBasedLearner(gamma=0.99, n_rounds=20, episodes_per_round=100, random_state=seed).fit(env)
    assert success(learner.policy_) >= optimal - 0.05


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cliff_walking_q_learning_is_optimal_and_sarsa_is_safer_online(seed):
    # Sutton & Barto §6.5: with ε = 0.1, Q-learning learns the optimal edge path (13 steps) but
    # falls off while exploring; SARSA learns the value of exploring and earns more online.
    cliff = gymnasium.make("CliffWalking-v1")
    options = dict(gamma=1.0, learning_rate=0.5, epsilon=0.1, n_episodes=1000, random_state=seed)
    q, sarsa = QLearning(**options).fit(cliff), SARSA(**options).fit(cliff)
    state, _ = cliff.reset()
    total, done = 0.0, False
    while not done:
        state, reward, terminated, truncated, _ = cliff.step(int(q.policy_[state]))
        total, done = total + reward, terminated or truncated
    assert total == -13
    assert np.mean(sarsa.episode_returns_[-500:]) > np.mean(q.episode_returns_[-500:])


def test_estimate_mdp_recovers_the_model_from_samples():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(4), size=(4, 2))
    R = rng.normal(size=(4, 2))
    true = MDP(P, R, 0.9)
    env = MDPEnvironment(true, start=np.full(4, 0.25), terminal=(), max_steps=50, random_state=1)
    s, a, r, s2 = [], [], [], []
    state, _ = env.reset()
    for _ in range(20_000):
        action = int(rng.integers(2))
        next_state, reward, _, truncated, _ = env.step(action)
        s.append(state), a.append(action), r.append(reward), s2.append(next_state)
        state = env.reset()[0] if truncated else next_state
    model = estimate_mdp(s, a, r, s2, 4, 2, 0.9)
    np.testing.assert_allclose(np.stack(model.transitions, axis=1), P, atol=0.03)
    np.testing.assert_allclose(model.rewards, R, atol=1e-12)  # r(s, a) is deterministic here
    np.testing.assert_array_equal(policy_iteration(model).policy, policy_iteration(true).policy)


def test_estimate_mdp_untried_pairs_and_terminals():
    model = estimate_mdp([0], [0], [1.0], [1], n_states=3, n_actions=2, gamma=0.5, terminal=[1])
    np.testing.assert_allclose(model.transitions[0][0], [0, 1, 0])
    np.testing.assert_allclose(model.transitions[1][0], [1 / 3] * 3)  # never tried: uniform
    np.testing.assert_allclose(model.transitions[1][1], [0, 1, 0])  # terminal: absorbing
    assert model.rewards[0, 0] == 1.0 and model.rewards[1].tolist() == [0.0, 0.0]


def test_agents_learn_on_an_mdp_simulator():
    world = MDP.grid_world()
    env = MDPEnvironment(world, start=8, max_steps=100, random_state=0)  # bottom-left corner
    assert env.terminal == {5, 12}  # the end state after +1 / −1, and the (unreachable) wall cell
    agent = QLearning(gamma=0.99, learning_rate=0.2, epsilon=0.2, n_episodes=3000, random_state=0).fit(env)
    optimal = policy_iteration(world).V
    achieved = policy_evaluation(world, agent.policy_)
    assert achieved[8] >= optimal[8] - 0.05


def test_bad_parameters():
    env = gymnasium.make("FrozenLake-v1")
    with pytest.raises(ValueError, match="learning_rate"):
        QLearning(learning_rate=0).fit(env)
    with pytest.raises(ValueError, match="epsilon"):
        SARSA(epsilon=0.1, min_epsilon=0.5).fit(env)
    with pytest.raises(ValueError, match="discrete"):
        QLearning().fit(gymnasium.make("CartPole-v1"))
