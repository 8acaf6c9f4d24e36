"""Ensembles: bagging, random forests, AdaBoost and gradient boosting."""

from .adaboost import AdaBoostClassifier
from .bagging import BaggingClassifier, BaggingRegressor
from .random_forest import RandomForestClassifier, RandomForestRegressor

__all__ = [
    "AdaBoostClassifier", "BaggingClassifier", "BaggingRegressor", "RandomForestClassifier", "RandomForestRegressor",
]
