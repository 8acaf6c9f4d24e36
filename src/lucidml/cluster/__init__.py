"""Clustering."""

from .clara import CLARA
from .clarans import CLARANS
from .kmedoids import KMedoids

__all__ = ["CLARA", "CLARANS", "KMedoids"]
