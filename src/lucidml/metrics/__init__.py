"""Cluster validity, cluster tendency, choice of k and binary classification measures (seeds 002 §8.5, 003 §1).

``choose_n_clusters`` lives in :mod:`lucidml.cluster`; ``lucidml.metrics.choose_n_clusters`` is the
same function, imported on first use (lucidml.metrics does not load the clusterers otherwise).
"""

from .binary import sensitivity, specificity
from .contingency import cluster_entropy, purity, rand_index
from .elbow import elbow
from .gap import GapResult, gap_statistic
from .hopkins import hopkins_statistic
from .proximity import proximity_incidence_correlation
from .silhouette import silhouette_samples, silhouette_score
from .sum_of_squares import sse, wss_bss_tss
from .unbalanced import unbalanced_summary

__all__ = [
    "cluster_entropy",
    "elbow",
    "GapResult",
    "gap_statistic",
    "hopkins_statistic",
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


def __getattr__(name):
    if name == "choose_n_clusters":  # the one definition is lucidml.cluster's
        from ..cluster.n_clusters import choose_n_clusters

        return choose_n_clusters
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
