"""Matrix decompositions and latent-variable models: PCA, kernel PCA, factor analysis, ICA, SVD tools, LSI."""

from .factor_analysis import FactorAnalysis
from .ica import ICA
from .kernel_pca import KernelPCA
from .lsi import LatentSemanticIndexing
from .pca import PCA
from .svd_tools import cond2, low_rank_approximation, numerical_rank, pinv
from .truncated_svd import TruncatedSVD

__all__ = [
    "FactorAnalysis", "ICA", "KernelPCA", "LatentSemanticIndexing", "PCA", "TruncatedSVD", "cond2",
    "low_rank_approximation", "numerical_rank", "pinv",
]
