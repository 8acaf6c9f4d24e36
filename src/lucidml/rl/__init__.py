"""Markov decision processes: the model, and planning by policy evaluation, value and policy iteration."""

from .mdp import MDP
from .planning import (
    PlanningResult,
    greedy_policy,
    modified_policy_iteration,
    policy_evaluation,
    policy_iteration,
    value_iteration,
)

__all__ = ["MDP", "PlanningResult", "greedy_policy", "modified_policy_iteration", "policy_evaluation",
           "policy_iteration", "value_iteration"]
