"""Markov decision processes: the model, planning (policy evaluation, value and policy iteration),
and learning from experience (Q-learning, SARSA, model estimation then planning)."""

from .learning import SARSA, MDPEnvironment, ModelBasedLearner, QLearning, estimate_mdp
from .mdp import MDP
from .planning import (
    PlanningResult,
    greedy_policy,
    modified_policy_iteration,
    policy_evaluation,
    policy_iteration,
    value_iteration,
)

__all__ = [
    "MDP", "MDPEnvironment", "ModelBasedLearner", "PlanningResult", "QLearning", "SARSA", "estimate_mdp",
    "greedy_policy", "modified_policy_iteration", "policy_evaluation", "policy_iteration", "value_iteration",
]
