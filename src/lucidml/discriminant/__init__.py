"""Gaussian discriminant analysis: linear (shared covariance, Fisher's projection) and quadratic."""

from .linear import LinearDiscriminantAnalysis
from .quadratic import QuadraticDiscriminantAnalysis

__all__ = ["LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis"]
