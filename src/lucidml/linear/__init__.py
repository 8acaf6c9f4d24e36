"""Linear models."""

from .linear_regression import LinearRegression

__all__ = ["LinearRegression"]
