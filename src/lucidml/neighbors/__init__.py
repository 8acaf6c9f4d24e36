"""k-nearest neighbours: classification and regression, brute force or k-d tree."""

from .classification import KNeighborsClassifier
from .regression import KNeighborsRegressor

__all__ = ["KNeighborsClassifier", "KNeighborsRegressor"]
