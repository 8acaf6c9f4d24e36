"""Shared plumbing: parameter constraints, input checks, the Numba helper."""

from ._interrupt import cancel_flag, cancel_scope, interruptible, raise_if_cancelled
from ._numba import njit
from ._param_validation import HasMethods, Interval, InvalidParameterError, Options, validate_params
from .validation import check_sample_weight

__all__ = [
    "HasMethods", "Interval", "InvalidParameterError", "Options", "cancel_flag", "cancel_scope", "check_sample_weight",
    "interruptible", "njit", "raise_if_cancelled", "validate_params",
]
