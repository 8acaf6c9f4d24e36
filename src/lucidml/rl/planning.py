"""Planning in a known MDP: policy evaluation, value iteration, policy iteration."""

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg
from sklearn.exceptions import ConvergenceWarning

from ..utils.validation import check_count

__all__ = ["PlanningResult", "greedy_policy", "modified_policy_iteration", "policy_evaluation",
           "policy_iteration", "value_iteration"]


@dataclass
class PlanningResult:
    """Values V, a (greedy) policy, and per-iteration history of the method."""

    V: np.ndarray
    policy: np.ndarray
    n_iter: int
    converged: bool
    history: list = field(default_factory=list)


def _epsilon_optimal_threshold(tol, gamma):
    """‖TV − V‖∞ below this makes the greedy policy of V tol-optimal: ‖V^π − V*‖∞ ≤ 2γ‖TV − V‖∞/(1 − γ)."""
    return tol * (1 - gamma) / (2 * gamma) if gamma > 0 else np.inf


def greedy_policy(mdp, V):
    """π(s) = argmax_a [r(s, a) + γ Σ_s' P(s, a, s') V(s')]; ties go to the lowest action index."""
    return np.argmax(mdp.q_values(V), axis=1)


def policy_evaluation(mdp, policy, method="exact", tol=1e-10, max_iter=100_000):
    """V^π, the solution of the Bellman equations V = R_π + γ P_π V (seed 004 §17).

    ``method="exact"`` solves the linear system (I − γ P_π) V = R_π (LU, sparse LU for sparse
    transitions; never an inverse). ``method="iterative"`` repeats V ← R_π + γ P_π V, a
    γ-contraction, until ‖ΔV‖∞ < ``tol``: for state spaces too large to factor.
    """
    P_pi, R_pi = mdp.P_pi(policy), mdp.R_pi(policy)
    if method == "exact":
        if scipy.sparse.issparse(P_pi):
            system = scipy.sparse.identity(mdp.n_states, format="csc") - mdp.gamma * scipy.sparse.csc_array(P_pi)
            return scipy.sparse.linalg.spsolve(system, R_pi)
        return scipy.linalg.solve(np.eye(mdp.n_states) - mdp.gamma * P_pi, R_pi)
    if method != "iterative":
        raise ValueError(f"method must be 'exact' or 'iterative'; got {method!r}.")
    check_count(max_iter, "max_iter")
    V = np.zeros(mdp.n_states)
    for _ in range(max_iter):
        V_new = R_pi + mdp.gamma * (P_pi @ V)
        if np.max(np.abs(V_new - V)) < tol:
            return V_new
        V = V_new
    warnings.warn(
        f"iterative policy evaluation did not reach tol={tol} in {max_iter} sweeps.",
        ConvergenceWarning,
        stacklevel=2,
    )
    return V


def value_iteration(mdp, tol=1e-6, max_iter=100_000, V0=None):
    """Bellman's value iteration: V ← max_a [r(s, a) + γ Σ_s' P(s, a, s') V(s')].

    Stops when ‖V_(k+1) − V_k‖∞ < tol·(1 − γ)/(2γ), which guarantees that the greedy policy of
    the last V is ``tol``-optimal (‖V^π − V*‖∞ ≤ tol; Puterman 1994, Thm 6.3.1). ``history``
    holds ‖ΔV‖∞ per sweep.
    """
    check_count(max_iter, "max_iter")
    V = np.zeros(mdp.n_states) if V0 is None else np.asarray(V0, dtype=np.float64).copy()
    if V.shape != (mdp.n_states,) or not np.all(np.isfinite(V)):
        raise ValueError(f"V0 must hold one finite value per state ({mdp.n_states}).")
    threshold = _epsilon_optimal_threshold(tol, mdp.gamma)
    history = []
    for n_iter in range(1, max_iter + 1):
        V_new = mdp.q_values(V).max(axis=1)
        change = float(np.max(np.abs(V_new - V)))
        history.append(change)
        V = V_new
        if change < threshold or mdp.gamma == 0:
            return PlanningResult(V, greedy_policy(mdp, V), n_iter, True, history)
    warnings.warn(
        f"value iteration did not converge in {max_iter} sweeps (last change {change:.2e}).",
        ConvergenceWarning,
        stacklevel=2,
    )
    return PlanningResult(V, greedy_policy(mdp, V), max_iter, False, history)


def policy_iteration(mdp, policy0=None, max_iter=1000):
    """Howard's policy iteration: evaluate π exactly, improve greedily, until π is stable.

    Improvement keeps the current action where it is as good as the best (within round-off), so
    the loop cannot cycle between equally good policies. Converges in finitely many steps to
    an optimal policy. ``history`` holds the number of states whose action changed per step.
    """
    check_count(max_iter, "max_iter")
    policy = np.zeros(mdp.n_states, dtype=np.intp) if policy0 is None else np.asarray(policy0, dtype=np.intp).copy()
    mdp.policy_matrix(policy)  # (a policy of the MDP's states and actions)
    history = []
    for n_iter in range(1, max_iter + 1):
        V = policy_evaluation(mdp, policy)
        Q = mdp.q_values(V)
        best = Q.max(axis=1)
        improvable = best - Q[np.arange(mdp.n_states), policy] > 1e-10 * np.maximum(1.0, np.abs(best))
        history.append(int(improvable.sum()))
        if not improvable.any():
            return PlanningResult(V, policy, n_iter, True, history)
        policy = np.where(improvable, np.argmax(Q, axis=1), policy)
    warnings.warn(
        f"policy iteration did not stabilize in {max_iter} steps.",
        ConvergenceWarning,
        stacklevel=2,
    )
    return PlanningResult(V, policy, max_iter, False, history)


def modified_policy_iteration(mdp, sweeps=5, tol=1e-6, max_iter=100_000):
    """Policy iteration with partial evaluation: ``sweeps`` Bellman backups under π instead of a solve.

    Between value iteration (sweeps = 1) and policy iteration (sweeps → ∞); stops with the same
    ε-optimality rule as :func:`value_iteration`. ``history`` holds ‖ΔV‖∞ per improvement.
    """
    check_count(max_iter, "max_iter")
    check_count(sweeps, "sweeps")
    V = np.zeros(mdp.n_states)
    threshold = _epsilon_optimal_threshold(tol, mdp.gamma)
    history = []
    for n_iter in range(1, max_iter + 1):
        Q = mdp.q_values(V)
        policy, V_new = np.argmax(Q, axis=1), Q.max(axis=1)
        change = float(np.max(np.abs(V_new - V)))
        history.append(change)
        if change < threshold or mdp.gamma == 0:
            return PlanningResult(V_new, policy, n_iter, True, history)
        P_pi, R_pi = mdp.P_pi(policy), mdp.R_pi(policy)
        V = V_new
        for _ in range(sweeps - 1):
            V = R_pi + mdp.gamma * (P_pi @ V)
    warnings.warn(
        f"modified policy iteration did not converge in {max_iter} steps.",
        ConvergenceWarning,
        stacklevel=2,
    )
    return PlanningResult(V, policy, max_iter, False, history)
