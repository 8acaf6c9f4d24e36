"""Optimization: the general-purpose methods of the notes, and quadratic programming (``lucidml.optim.qp``).

Every method returns an :class:`OptimizeResult` (x, fun, n_iter, success, message, grad_norm, nfev,
history); the QP solvers return a :class:`~lucidml.optim.qp.QPResult` with multipliers.
"""

from .coordinate_descent import coordinate_descent
from .gradient_descent import gradient_descent
from .homotopy import gaussian_homotopy, gaussian_smoothing
from .least_squares import gauss_newton, levenberg_marquardt
from .line_search import backtracking, wolfe
from .newton import newton
from .partial_hessian import quasi_newton_partial
from .proximal_gradient import proximal_gradient, soft_threshold
from .qp import QPResult, active_set_qp, barrier_qp, interior_point_qp, solve_eqp
from .quasi_newton import bfgs, lbfgs
from .result import OptimizeResult
from .rosenbrock import rosenbrock, rosenbrock_grad, rosenbrock_hess
from .sgd import sgd

__all__ = [
    "OptimizeResult", "QPResult", "active_set_qp", "backtracking", "barrier_qp", "bfgs", "coordinate_descent",
    "gauss_newton", "gaussian_homotopy", "gaussian_smoothing", "gradient_descent", "interior_point_qp", "lbfgs",
    "levenberg_marquardt", "newton", "proximal_gradient", "quasi_newton_partial", "rosenbrock", "rosenbrock_grad",
    "rosenbrock_hess", "sgd", "soft_threshold", "solve_eqp", "wolfe",
]
