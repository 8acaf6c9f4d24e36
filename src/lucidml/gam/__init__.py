"""Generalized additive models fitted by backfitting and local scoring."""

from .gam_classifier import GAMClassifier
from .gam_regressor import GAMRegressor

__all__ = ["GAMClassifier", "GAMRegressor"]
