"""Clustering."""

from .agglomerative import AgglomerativeClustering
from .bisecting_kmeans import BisectingKMeans
from .clara import CLARA
from .clarans import CLARANS
from .dbscan import DBSCAN
from .diana import DIANA
from .kmeans import KMeans
from .kmedoids import KMedoids
from .n_clusters import choose_n_clusters
from .som import SelfOrganizingMap

__all__ = [
    "AgglomerativeClustering", "BisectingKMeans", "CLARA", "CLARANS", "DBSCAN", "DIANA", "KMeans", "KMedoids",
    "SelfOrganizingMap", "choose_n_clusters",
]
