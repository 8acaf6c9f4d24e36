"""Clustering."""

from .clara import CLARA
from .clarans import CLARANS
from .dbscan import DBSCAN
from .kmedoids import KMedoids
from .som import SelfOrganizingMap

__all__ = ["CLARA", "CLARANS", "DBSCAN", "KMedoids", "SelfOrganizingMap"]
