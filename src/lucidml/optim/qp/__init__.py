"""Quadratic programming: minimize ½ xᵀGx + cᵀx subject to A_eq x = b_eq and A_ineq x ≤ b_ineq."""

from .active_set import active_set_qp
from .barrier import barrier_qp
from .equality import solve_eqp
from .interior_point import interior_point_qp
from .problem import QPResult

__all__ = ["QPResult", "active_set_qp", "barrier_qp", "interior_point_qp", "solve_eqp"]
