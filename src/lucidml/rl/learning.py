"""Learning from experience: Q-learning, SARSA, and estimating the model then planning."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils import StageTable
from ..utils.validation import check_count
from .mdp import MDP
from .planning import value_iteration

__all__ = ["MDPEnvironment", "ModelBasedLearner", "QLearning", "SARSA", "estimate_mdp"]


class MDPEnvironment:
    """An MDP as a gymnasium-style environment: ``reset() -> (s, info)``, ``step(a) -> (s', r, terminated, truncated, info)``.

    Episodes start in ``start`` (a state, or a distribution over states) and end on reaching a
    ``terminal`` state (default: every absorbing state with zero reward, such as the end state
    of :meth:`MDP.from_gymnasium`) or after ``max_steps`` steps (truncated).
    """

    def __init__(self, mdp, start=0, terminal=None, max_steps=100, random_state=None):
        self.mdp, self.max_steps = mdp, max_steps
        if np.ndim(start) == 0:
            if isinstance(start, bool) or not isinstance(start, Integral) or not 0 <= start < mdp.n_states:
                raise ValueError(f"start must be a state in [0, {mdp.n_states}) or a distribution over them; "
                                 f"got {start!r}.")
            self.start = np.eye(mdp.n_states)[start]
        else:
            self.start = np.asarray(start, dtype=np.float64)
            if (self.start.shape != (mdp.n_states,) or np.any(self.start < 0) or not np.all(np.isfinite(self.start))
                    or not np.isclose(self.start.sum(), 1.0)):
                raise ValueError(f"start as a distribution must hold {mdp.n_states} probabilities that sum to 1.")
        self.terminal = _absorbing_states(mdp) if terminal is None else set(terminal)
        self.random_state = check_random_state(random_state)

    def reset(self, seed=None):
        if seed is not None:
            self.random_state = check_random_state(seed)
        self.state = int(self.random_state.choice(self.mdp.n_states, p=self.start))
        self.steps = 0
        return self.state, {}

    def step(self, action):
        self.state, reward = self.mdp.step(self.state, action, self.random_state)
        self.steps += 1
        return self.state, reward, self.state in self.terminal, self.steps >= self.max_steps, {}


class _TabularAgent:
    """ε-greedy episodes on an environment with discrete states and actions, and a Q-table.

    ``verbose`` (int, default 0): 1 prints one row per episode (episodes 1–10, then every 10th,
    every 100th, …) with its return (as in ``episode_returns_``), the ε it was played with and
    the estimated remaining time, on standard output; 2 or more prints every episode.
    """

    def __init__(self, *, gamma=0.99, learning_rate=0.1, epsilon=0.1, epsilon_decay=1.0, min_epsilon=0.0,
                 n_episodes=1000, random_state=None, verbose=0):
        self.gamma = gamma
        self.learning_rate = learning_rate
        self.epsilon = epsilon
        self.epsilon_decay = epsilon_decay
        self.min_epsilon = min_epsilon
        self.n_episodes = n_episodes
        self.random_state = random_state
        self.verbose = verbose

    def _check(self):
        if not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1]; got {self.gamma}.")
        if not (self.learning_rate == "visits" or (isinstance(self.learning_rate, Real) and 0 < self.learning_rate <= 1)):
            raise ValueError(f"learning_rate must be in (0, 1] or 'visits' (1/n(s, a)); got {self.learning_rate!r}.")
        if not (0 <= self.min_epsilon <= self.epsilon <= 1 and 0 < self.epsilon_decay <= 1):
            raise ValueError("need 0 ≤ min_epsilon ≤ epsilon ≤ 1 and 0 < epsilon_decay ≤ 1.")
        if self.n_episodes < 1:
            raise ValueError(f"n_episodes must be at least 1; got {self.n_episodes}.")
        _check_verbose(self.verbose)

    def fit(self, env):
        """Learn Q from ``n_episodes`` episodes on ``env`` (a gymnasium environment or an MDPEnvironment)."""
        self._check()
        n_states, n_actions = _sizes(env)
        rng = check_random_state(self.random_state)
        self.q_ = np.zeros((n_states, n_actions))
        self._visits = np.zeros((n_states, n_actions))
        self.episode_returns_ = []
        epsilon = self.epsilon
        table = StageTable(self.verbose, self.n_episodes, ["Return", "Epsilon"])
        for episode in range(self.n_episodes):
            state, _ = env.reset(seed=int(rng.randint(2**31)) if episode == 0 else None)
            self.episode_returns_.append(self._episode(env, state, epsilon, rng))
            table.row(episode + 1, self.episode_returns_[-1], epsilon)
            epsilon = max(self.min_epsilon, epsilon * self.epsilon_decay)
        self.policy_ = np.argmax(self.q_, axis=1)
        return self

    def _act(self, state, epsilon, rng):
        if rng.random_sample() < epsilon:
            return int(rng.randint(self.q_.shape[1]))
        return int(np.argmax(self.q_[state]))

    def _step_size(self, state, action):
        self._visits[state, action] += 1
        return 1.0 / self._visits[state, action] if self.learning_rate == "visits" else self.learning_rate

    def predict(self, states):
        """The greedy action of each state."""
        return self.policy_[np.asarray(states)]


class QLearning(_TabularAgent):
    """Tabular Q-learning (Watkins & Dayan 1992), off-policy.

    After each step (s, a, r, s'):  Q(s, a) ← Q(s, a) + α [r + γ max_a' Q(s', a') − Q(s, a)],
    the bracket without the max term when s' ends the episode. Actions are ε-greedy in Q; ε is
    multiplied by ``epsilon_decay`` after every episode, down to ``min_epsilon``. α is the
    constant ``learning_rate`` or, with ``"visits"``, 1/n(s, a) (Robbins–Monro). With
    ``verbose`` ≥ 1 each episode's return and ε are printed as the episodes run, one row each.

    Attributes
    ----------
    q_ : ndarray of shape (n_states, n_actions)
    policy_ : ndarray of shape (n_states,)
        The greedy policy argmax_a Q(s, a).
    episode_returns_ : list of float
        Undiscounted return of each training episode.
    """

    def _episode(self, env, state, epsilon, rng):
        total, done = 0.0, False
        while not done:
            action = self._act(state, epsilon, rng)
            next_state, reward, terminated, truncated, _ = env.step(action)
            target = reward if terminated else reward + self.gamma * self.q_[next_state].max()
            self.q_[state, action] += self._step_size(state, action) * (target - self.q_[state, action])
            total += reward
            state, done = next_state, terminated or truncated
        return total


class SARSA(_TabularAgent):
    """Tabular SARSA (Rummery & Niranjan 1994), on-policy.

    After each (s, a, r, s', a') with a' the ε-greedy action actually taken next:
    Q(s, a) ← Q(s, a) + α [r + γ Q(s', a') − Q(s, a)]. Because it learns the value of the
    exploring policy, it prefers paths that are safe under exploration (the cliff example of
    Sutton & Barto §6.5). Parameters and attributes as :class:`QLearning`.
    """

    def _episode(self, env, state, epsilon, rng):
        total, done = 0.0, False
        action = self._act(state, epsilon, rng)
        while not done:
            next_state, reward, terminated, truncated, _ = env.step(action)
            next_action = self._act(next_state, epsilon, rng)
            target = reward if terminated else reward + self.gamma * self.q_[next_state, next_action]
            self.q_[state, action] += self._step_size(state, action) * (target - self.q_[state, action])
            total += reward
            state, action, done = next_state, next_action, terminated or truncated
        return total


def estimate_mdp(states, actions, rewards, next_states, n_states, n_actions, gamma, terminal=()):
    """The maximum-likelihood MDP of observed transitions (s, a, r, s') (CS229's model learning).

    P̂(s, a, s') = #(s, a → s') / #(s, a) and r̂(s, a) = mean reward after (s, a); a pair never
    tried gets the uniform distribution 1/|S| and reward 0. A ``terminal`` state (where observed
    episodes ended) is made absorbing with zero reward.
    """
    n_states, n_actions = check_count(n_states, "n_states"), check_count(n_actions, "n_actions")
    states, actions, next_states = (np.asarray(v, dtype=np.intp).ravel() for v in (states, actions, next_states))
    rewards = np.asarray(rewards, dtype=np.float64).ravel()
    if not len(states) == len(actions) == len(rewards) == len(next_states):
        raise ValueError(f"states, actions, rewards and next_states must have one entry per transition; got "
                         f"lengths {len(states)}, {len(actions)}, {len(rewards)} and {len(next_states)}.")
    for name, values, size in (("states", states, n_states), ("next_states", next_states, n_states),
                               ("actions", actions, n_actions)):
        if values.size and (values.min() < 0 or values.max() >= size):
            raise ValueError(f"{name} must lie in [0, {size}); got values from {values.min()} to {values.max()}.")
    if not np.all(np.isfinite(rewards)):
        raise ValueError("rewards must be finite numbers.")
    counts = np.zeros((n_states, n_actions, n_states))
    np.add.at(counts, (states, actions, next_states), 1.0)
    reward_sums = np.zeros((n_states, n_actions))
    np.add.at(reward_sums, (states, actions), rewards)
    tried = counts.sum(axis=2)
    P = np.where(tried[:, :, None] > 0, counts / np.maximum(tried, 1)[:, :, None], 1.0 / n_states)
    R = np.where(tried > 0, reward_sums / np.maximum(tried, 1), 0.0)
    terminal = np.asarray(list(terminal), dtype=np.intp).ravel()
    if terminal.size and (terminal.min() < 0 or terminal.max() >= n_states):
        raise ValueError(f"terminal states must lie in [0, {n_states}).")
    for s in terminal:
        P[s] = 0.0
        P[s, :, s] = 1.0
        R[s] = 0.0
    return MDP(P, R, gamma)


class ModelBasedLearner:
    """Learn the model, then plan (CS229): alternate ε-greedy episodes with the current policy,
    maximum-likelihood estimation of P̂ and r̂ from all transitions seen (:func:`estimate_mdp`),
    and value iteration on the estimate for the next policy. The first round acts uniformly at
    random: a greedy policy of a model that has seen no reward yet would never find one.

    Attributes
    ----------
    mdp_ : MDP
        The final estimated model.
    policy_ : ndarray of shape (n_states,)
    value_ : ndarray of shape (n_states,)
        V* of the estimated model.
    episode_returns_ : list of float

    ``verbose`` (int, default 0): 1 prints one row per round (rounds 1–10, then every 10th, …)
    with the mean return of the round's episodes (from ``episode_returns_``), the ε they were
    played with and the estimated remaining time, on standard output; 2 or more prints every round.
    """

    def __init__(self, *, gamma=0.99, epsilon=0.1, n_rounds=20, episodes_per_round=100, random_state=None,
                 verbose=0):
        self.gamma = gamma
        self.epsilon = epsilon
        self.n_rounds = n_rounds
        self.episodes_per_round = episodes_per_round
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, env):
        _check_verbose(self.verbose)
        for name in ("n_rounds", "episodes_per_round"):
            check_count(getattr(self, name), name)
        table = StageTable(self.verbose, self.n_rounds, ["Mean Return", "Epsilon"])
        n_states, n_actions = _sizes(env)
        rng = check_random_state(self.random_state)
        self.policy_ = rng.randint(n_actions, size=n_states)
        seen, terminal = [], set()
        self.episode_returns_ = []
        env.reset(seed=int(rng.randint(2**31)))
        for round_ in range(self.n_rounds):
            epsilon = 1.0 if round_ == 0 else self.epsilon
            for _ in range(self.episodes_per_round):
                state, _ = env.reset()
                total, done = 0.0, False
                while not done:
                    explore = rng.random_sample() < epsilon
                    action = int(rng.randint(n_actions)) if explore else int(self.policy_[state])
                    next_state, reward, terminated, truncated, _ = env.step(action)
                    seen.append((state, action, reward, next_state))
                    if terminated:
                        terminal.add(next_state)
                    total += reward
                    state, done = next_state, terminated or truncated
                self.episode_returns_.append(total)
            s, a, r, s_next = zip(*seen)
            self.mdp_ = estimate_mdp(s, a, r, s_next, n_states, n_actions, self.gamma, terminal)
            plan = value_iteration(self.mdp_, tol=1e-6)
            self.policy_, self.value_ = plan.policy, plan.V
            table.row(round_ + 1, np.mean(self.episode_returns_[-self.episodes_per_round:]), epsilon)
        return self


def _check_verbose(verbose):
    if not isinstance(verbose, Integral) or verbose < 0:
        raise ValueError(f"verbose must be an int ≥ 0 or a bool; got {verbose!r}.")


def _sizes(env):
    if isinstance(env, MDPEnvironment):
        return env.mdp.n_states, env.mdp.n_actions
    try:
        return int(env.observation_space.n), int(env.action_space.n)
    except AttributeError:
        raise ValueError("the environment needs discrete observation and action spaces (space.n).") from None


def _absorbing_states(mdp):
    """States that every action keeps in place with zero reward."""
    stay = np.ones(mdp.n_states, dtype=bool)
    for a, P_a in enumerate(mdp.transitions):
        stay &= np.isclose(P_a.diagonal(), 1.0) & (mdp.rewards[:, a] == 0)
    return set(np.flatnonzero(stay).tolist())
