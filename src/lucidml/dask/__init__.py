"""Data-parallel estimators on Dask arrays: ``pip install "lucidml[dask]"``.

The estimators here take ``dask.array`` (or ``dask.dataframe``) inputs and fit on the active
``dask.distributed`` client without gathering the data: every row chunk is reduced, where it
lives, to small statistics by lucidml's own code, the statistics are merged in a tree, and the
in-memory estimator's own finishing code builds the model. A fitted estimator predicts lazily,
chunk by chunk, and ``to_local()`` gives the ordinary lucidml estimator (same attributes), which
saves with ``lucidml.save`` and goes anywhere. :class:`ParallelPostFit` applies any fitted
estimator to dask data block by block.

``import lucidml`` does not import this subpackage (nor Dask).
"""

from ._predict import ParallelPostFit
from .decomposition import PCA, TruncatedSVD
from .discriminant import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from .glm import PoissonRegressor
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from .kmeans import KMeans
from .linear import LinearRegression, Ridge
from .logistic import LogisticRegression
from .mixture import GaussianMixture
from .naive_bayes import GaussianNB
from .softmax import SoftmaxRegression

__all__ = [
    "GaussianMixture", "GaussianNB", "GradientBoostingClassifier", "GradientBoostingRegressor", "KMeans",
    "LinearDiscriminantAnalysis", "LinearRegression", "LogisticRegression", "ParallelPostFit", "PCA",
    "PoissonRegressor", "QuadraticDiscriminantAnalysis", "Ridge", "SoftmaxRegression", "TruncatedSVD",
]
