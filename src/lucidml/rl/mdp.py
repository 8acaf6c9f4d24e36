"""Finite Markov decision processes."""

import numpy as np
import scipy.sparse

__all__ = ["MDP"]

_PROBABILITY_TOL = 1e-8


class MDP:
    """A finite MDP (S, A, P, R, γ) (seed 004 §17).

    Parameters
    ----------
    P : array of shape (n_states, n_actions, n_states), or a list of n_actions (n_states, n_states) matrices
        P[s, a, s'] = probability of moving from s to s' under action a. The list form takes
        SciPy sparse matrices, one per action, for large state spaces.
    R : array of shape (n_states,), (n_states, n_actions) or (n_states, n_actions, n_states)
        Reward R(s) for being in s (the notes' form), R(s, a) for taking a in s, or R(s, a, s')
        for the transition. Stored as the expected immediate reward r(s, a) =
        Σ_s' P(s, a, s') R(s, a, s'); the value functions are the same.
    gamma : float in [0, 1)
        Discount factor.

    Attributes
    ----------
    n_states, n_actions : int
    transitions : list of n_actions matrices (n_states, n_states), dense or sparse
    rewards : ndarray of shape (n_states, n_actions)
        r(s, a).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.zeros((2, 2, 2)); P[:, 0, 0] = 1; P[:, 1, 1] = 1   # action a moves to state a
    >>> mdp = MDP(P, R=[0.0, 1.0], gamma=0.9)
    >>> mdp.n_states, mdp.n_actions
    (2, 2)
    >>> mdp.q_values(np.array([0.0, 10.0]))   # r(s) + γ Σ P V
    array([[ 0.,  9.],
           [ 1., 10.]])
    """

    def __init__(self, P, R, gamma):
        if not 0.0 <= gamma < 1.0:
            raise ValueError(f"gamma must be in [0, 1) so that discounted values are finite; got {gamma}.")
        self.gamma = float(gamma)
        self.transitions = _per_action(P)
        self.n_actions = len(self.transitions)
        self.n_states = self.transitions[0].shape[0]
        if self.n_states == 0:
            raise ValueError("an MDP needs at least one state and one action; P has none.")
        _check_stochastic(self.transitions)
        R = np.asarray(R, dtype=np.float64)
        if not np.all(np.isfinite(R)):
            raise ValueError("R has NaN or infinite rewards: every reward must be a finite number.")
        self.rewards = _expected_rewards(R, self.transitions)

    def q_values(self, V):
        """Q(s, a) = r(s, a) + γ Σ_s' P(s, a, s') V(s') for every state and action."""
        return self.rewards + self.gamma * np.column_stack([P_a @ V for P_a in self.transitions])

    def policy_matrix(self, policy):
        """π as an (n_states, n_actions) matrix of action probabilities (deterministic: one-hot)."""
        policy = np.asarray(policy)
        if policy.ndim == 1:
            if policy.shape != (self.n_states,) or not np.issubdtype(policy.dtype, np.integer):
                raise ValueError(f"a deterministic policy is one action index per state ({self.n_states}).")
            if policy.min() < 0 or policy.max() >= self.n_actions:
                raise ValueError(f"policy actions must be in [0, {self.n_actions}).")
            one_hot = np.zeros((self.n_states, self.n_actions))
            one_hot[np.arange(self.n_states), policy] = 1.0
            return one_hot
        if policy.shape != (self.n_states, self.n_actions) or np.any(policy < 0) or not np.allclose(policy.sum(axis=1), 1.0):
            raise ValueError("a stochastic policy is an (n_states, n_actions) matrix whose rows are distributions.")
        return policy.astype(np.float64)

    def P_pi(self, policy):
        """The state-to-state transition matrix under π: P_π(s, s') = Σ_a π(a|s) P(s, a, s')."""
        pi = self.policy_matrix(policy)
        terms = [_scale_rows(P_a, pi[:, a]) for a, P_a in enumerate(self.transitions)]
        return sum(terms[1:], terms[0])

    def R_pi(self, policy):
        """The expected reward under π: R_π(s) = Σ_a π(a|s) r(s, a)."""
        return np.einsum("sa,sa->s", self.policy_matrix(policy), self.rewards)

    def step(self, state, action, random_state):
        """Sample (next state, reward) from P(s, a, ·); reward is r(s, a)."""
        if not (0 <= state < self.n_states and 0 <= action < self.n_actions):
            raise ValueError(f"state must be in [0, {self.n_states}) and action in [0, {self.n_actions}); got "
                             f"state={state}, action={action}.")
        row = self.transitions[action][[state]]
        probabilities = row.toarray().ravel() if scipy.sparse.issparse(row) else np.asarray(row).ravel()
        next_state = random_state.choice(self.n_states, p=probabilities / probabilities.sum())
        return int(next_state), float(self.rewards[state, action])

    @classmethod
    def from_gymnasium(cls, env, gamma=0.99):
        """The MDP of a toy-text gymnasium environment from its transition table ``env.unwrapped.P``.

        ``P[s][a]`` lists (probability, next state, reward, terminated) outcomes, as in
        FrozenLake-v1, CliffWalking-v1 and Taxi-v4. A terminated outcome leads to an absorbing
        zero-reward state (an extra last state), so values count rewards up to the end of the
        episode, as the environment does.
        """
        table = getattr(env.unwrapped, "P", None)
        if not isinstance(table, dict):
            raise ValueError("the environment has no transition table env.unwrapped.P (toy-text environments do).")
        n_states, n_actions = env.observation_space.n, env.action_space.n
        end = n_states  # absorbing state after termination
        P = np.zeros((n_states + 1, n_actions, n_states + 1))
        R = np.zeros((n_states + 1, n_actions))
        for s, actions in table.items():
            for a, outcomes in actions.items():
                for probability, next_state, reward, terminated in outcomes:
                    P[s, a, end if terminated else next_state] += probability
                    R[s, a] += probability * reward
        P[end, :, end] = 1.0
        return cls(P, R, gamma)

    @classmethod
    def grid_world(cls, rows=3, cols=4, walls=((1, 1),), terminals=None, step_reward=-0.04, slip=0.2, gamma=0.99):
        """The classic grid world (Russell & Norvig's 4 × 3 world by default).

        Actions 0..3 = up, right, down, left. A move goes where intended with probability
        1 − ``slip`` and to either side (at right angles) with ``slip``/2 each; moving into a wall
        or off the grid stays put. Every step costs ``step_reward``; a terminal cell pays its
        reward (default +1 at the top-right, −1 below it) and the episode ends (an absorbing last
        state). States are cells in row-major order, walls included (they are never reached).
        """
        terminals = {(0, cols - 1): 1.0, (1, cols - 1): -1.0} if terminals is None else dict(terminals)
        walls = set(map(tuple, walls))
        n = rows * cols
        end = n
        moves = [(-1, 0), (0, 1), (1, 0), (0, -1)]
        P = np.zeros((n + 1, 4, n + 1))
        R = np.zeros((n + 1, 4))
        for r in range(rows):
            for c in range(cols):
                s = r * cols + c
                if (r, c) in walls:
                    continue  # made absorbing below; never reached
                if (r, c) in terminals:
                    P[s, :, end] = 1.0
                    R[s, :] = terminals[(r, c)]
                    continue
                R[s, :] = step_reward
                for a in range(4):
                    for direction, probability in ((a, 1 - slip), ((a + 1) % 4, slip / 2), ((a + 3) % 4, slip / 2)):
                        nr, nc = r + moves[direction][0], c + moves[direction][1]
                        blocked = not (0 <= nr < rows and 0 <= nc < cols) or (nr, nc) in walls
                        P[s, a, s if blocked else nr * cols + nc] += probability
        P[end, :, end] = 1.0
        for r, c in walls:  # so that every row is a distribution
            P[r * cols + c, :, r * cols + c] = 1.0
        return cls(P, R, gamma)


def _per_action(P):
    if isinstance(P, (list, tuple)):
        matrices = [
            scipy.sparse.csr_array(m, dtype=np.float64) if scipy.sparse.issparse(m) else np.asarray(m, dtype=np.float64)
            for m in P
        ]
        if not matrices or any(m.ndim != 2 or m.shape != matrices[0].shape or m.shape[0] != m.shape[1] for m in matrices):
            raise ValueError("P as a list must hold one square (n_states, n_states) matrix per action, all the same size.")
        return matrices
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 3 or P.shape[0] != P.shape[2] or P.shape[1] == 0:
        raise ValueError(f"P must have shape (n_states, n_actions, n_states) with at least one action; got {P.shape}.")
    return [np.ascontiguousarray(P[:, a, :]) for a in range(P.shape[1])]


def _check_stochastic(transitions):
    """Every P(s, a, ·) must be a probability distribution; name the first row that is not."""
    for a, P_a in enumerate(transitions):
        if scipy.sparse.issparse(P_a):
            entries = P_a.tocoo()
            bad_rows = entries.row[~np.isfinite(entries.data) | (entries.data < 0)]
        else:
            bad_rows = np.nonzero(~np.isfinite(P_a) | (P_a < 0))[0]
        if bad_rows.size:
            raise ValueError(f"P[{bad_rows.min()}, {a}, :] has a negative or non-finite probability.")
        sums = np.asarray(P_a.sum(axis=1)).ravel()
        bad = np.flatnonzero(np.abs(sums - 1.0) > _PROBABILITY_TOL)
        if bad.size:
            raise ValueError(f"P[{bad[0]}, {a}, :] sums to {sums[bad[0]]:.6g}, not 1: it is not a probability distribution.")


def _expected_rewards(R, transitions):
    n_states, n_actions = transitions[0].shape[0], len(transitions)
    if R.shape == (n_states,):
        return np.repeat(R[:, None], n_actions, axis=1)
    if R.shape == (n_states, n_actions):
        return R.copy()
    if R.shape == (n_states, n_actions, n_states):
        columns = []
        for a, P_a in enumerate(transitions):  # r(s, a) = Σ_s' P(s, a, s') R(s, a, s')
            weighted = P_a.multiply(R[:, a, :]) if scipy.sparse.issparse(P_a) else P_a * R[:, a, :]
            columns.append(np.asarray(weighted.sum(axis=1)).ravel())
        return np.column_stack(columns)
    raise ValueError(
        f"R must have shape ({n_states},), ({n_states}, {n_actions}) or ({n_states}, {n_actions}, {n_states}); got {R.shape}."
    )


def _scale_rows(matrix, weights):
    if scipy.sparse.issparse(matrix):
        return scipy.sparse.csr_array(scipy.sparse.diags_array(weights) @ matrix)
    return matrix * weights[:, None]
