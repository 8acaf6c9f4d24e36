"""Preprocessing the notes teach as models: cluster-based outlier removal and model-based imputation."""

from .model_imputer import ModelImputer
from .outlier_filter import ClusterOutlierFilter, cluster_outlier_mask

__all__ = ["ClusterOutlierFilter", "ModelImputer", "cluster_outlier_mask"]
