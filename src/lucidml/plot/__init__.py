"""Plots in scikit-learn's display style: ``XxxDisplay.from_estimator(...)`` draws and keeps the artists.

matplotlib (the ``plot`` extra) is imported only when something is drawn.
"""

from .convergence import ConvergenceDisplay
from .dendrogram import DendrogramDisplay
from .elbow import ElbowDisplay
from .silhouette import SilhouetteDisplay
from .tree import TreeDisplay

__all__ = ["ConvergenceDisplay", "DendrogramDisplay", "ElbowDisplay", "SilhouetteDisplay", "TreeDisplay"]
