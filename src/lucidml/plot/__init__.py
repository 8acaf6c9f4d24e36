"""Plots in scikit-learn's display style: ``XxxDisplay.from_estimator(...)`` draws and keeps the artists.

matplotlib (the ``plot`` extra) is imported only when something is drawn.
"""

from .convergence import ConvergenceDisplay
from .dendrogram import DendrogramDisplay
from .elbow import ElbowDisplay
from .explained_variance import ExplainedVarianceDisplay
from .feature_importance import FeatureImportanceDisplay
from .projection import ProjectionDisplay
from .silhouette import SilhouetteDisplay
from .tree import TreeDisplay

__all__ = [
    "ConvergenceDisplay", "DendrogramDisplay", "ElbowDisplay", "ExplainedVarianceDisplay", "FeatureImportanceDisplay",
    "ProjectionDisplay", "SilhouetteDisplay", "TreeDisplay",
]
