"""Shared plumbing (parameter constraints, input checks, the Numba helper) and the small numerics of the notes."""

from ._interrupt import cancel_flag, cancel_scope, interruptible, raise_if_cancelled, restored_if_refused
from ._numba import kernel_tier, njit, set_kernel_tier, unsigned
from ._param_validation import (
    N_JOBS,
    VERBOSE,
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    thread_count,
    validate_params,
)
from ._verbose import IterationLog, StageTable
from .numerics import check_gradient, kkt_residual, logit, online_mistakes, sigmoid, softplus
from .validation import check_sample_weight

__all__ = [
    "HasMethods", "Interval", "InvalidParameterError", "IterationLog", "N_JOBS", "Options", "StageTable", "VERBOSE",
    "cancel_flag", "cancel_scope", "check_gradient", "check_sample_weight", "interruptible", "kernel_tier",
    "kkt_residual", "logit", "njit", "online_mistakes", "raise_if_cancelled", "restored_if_refused", "set_kernel_tier",
    "sigmoid", "softplus", "thread_count", "unsigned", "validate_params",
]
