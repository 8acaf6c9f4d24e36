"""Cluster validity, cluster tendency, choice of k and binary classification measures (seeds 002 §8.5, 003 §1)."""

from .binary import sensitivity, specificity
from .contingency import cluster_entropy, purity, rand_index
from .elbow import elbow
from .gap import gap_statistic
from .hopkins import hopkins
from .n_clusters import choose_n_clusters
from .proximity import proximity_incidence_correlation
from .silhouette import silhouette_samples, silhouette_score
from .sum_of_squares import sse, wss_bss_tss
from .unbalanced import unbalanced_summary

__all__ = [
    "choose_n_clusters",
    "cluster_entropy",
    "elbow",
    "gap_statistic",
    "hopkins",
    "proximity_incidence_correlation",
    "purity",
    "rand_index",
    "sensitivity",
    "silhouette_samples",
    "silhouette_score",
    "specificity",
    "sse",
    "unbalanced_summary",
    "wss_bss_tss",
]
