"""Cluster validity and binary classification measures (seeds 002 §8.5, 003 §1)."""

from .binary import sensitivity, specificity
from .contingency import cluster_entropy, purity, rand_index
from .elbow import elbow
from .proximity import proximity_incidence_correlation
from .silhouette import silhouette_samples, silhouette_score
from .sum_of_squares import sse, wss_bss_tss

__all__ = [
    "cluster_entropy",
    "elbow",
    "proximity_incidence_correlation",
    "purity",
    "rand_index",
    "sensitivity",
    "silhouette_samples",
    "silhouette_score",
    "specificity",
    "sse",
    "wss_bss_tss",
]
