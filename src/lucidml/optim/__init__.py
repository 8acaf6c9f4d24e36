"""Optimization: quadratic programming (``lucidml.optim.qp``)."""

from .qp import QPResult, active_set_qp, barrier_qp, interior_point_qp, solve_eqp

__all__ = ["QPResult", "active_set_qp", "barrier_qp", "interior_point_qp", "solve_eqp"]
