"""Clustering."""

from .agglomerative import AgglomerativeClustering
from .clara import CLARA
from .clarans import CLARANS
from .dbscan import DBSCAN
from .diana import DIANA
from .kmedoids import KMedoids
from .som import SelfOrganizingMap

__all__ = ["AgglomerativeClustering", "CLARA", "CLARANS", "DBSCAN", "DIANA", "KMedoids", "SelfOrganizingMap"]
