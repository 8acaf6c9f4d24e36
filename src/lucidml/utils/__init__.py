"""Shared plumbing: parameter constraints, input checks, the Numba helper."""

from ._numba import njit
from ._param_validation import HasMethods, Interval, InvalidParameterError, Options, validate_params
from .validation import check_sample_weight

__all__ = ["HasMethods", "Interval", "InvalidParameterError", "Options", "check_sample_weight", "njit", "validate_params"]
