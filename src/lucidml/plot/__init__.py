"""Plots in scikit-learn's display style: ``XxxDisplay.from_estimator(...)`` draws and keeps the artists.

matplotlib (the ``plot`` extra) is imported only when something is drawn.
"""

from .convergence import ConvergenceDisplay
from .dendrogram import DendrogramDisplay
from .elbow import ElbowDisplay
from .explained_variance import ExplainedVarianceDisplay
from .feature_importance import FeatureImportanceDisplay
from .pagerank import PageRankDisplay
from .projection import ProjectionDisplay
from .regularization_path import RegularizationPathDisplay
from .silhouette import SilhouetteDisplay
from .som import SOMDisplay, u_matrix
from .tree import TreeDisplay
from .value_function import ValueFunctionDisplay

__all__ = [
    "ConvergenceDisplay", "DendrogramDisplay", "ElbowDisplay", "ExplainedVarianceDisplay", "FeatureImportanceDisplay",
    "PageRankDisplay", "ProjectionDisplay", "RegularizationPathDisplay", "SOMDisplay", "SilhouetteDisplay",
    "TreeDisplay", "ValueFunctionDisplay", "u_matrix",
]
