"""Ensembles: bagging, random forests, AdaBoost and gradient boosting."""

from .adaboost import AdaBoostClassifier
from .bagging import BaggingClassifier, BaggingRegressor
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from .random_forest import RandomForestClassifier, RandomForestRegressor

__all__ = [
    "AdaBoostClassifier", "BaggingClassifier", "BaggingRegressor", "GradientBoostingClassifier",
    "GradientBoostingRegressor", "RandomForestClassifier", "RandomForestRegressor",
]
