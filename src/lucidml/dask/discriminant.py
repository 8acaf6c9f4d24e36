"""Linear and quadratic discriminant analysis fitted chunk by chunk on a Dask array."""


import numpy as np

from ..discriminant import LinearDiscriminantAnalysis as _LocalLDA
from ..discriminant import QuadraticDiscriminantAnalysis as _LocalQDA
from ..discriminant._classes import check_two_classes, class_priors
from ..discriminant.linear import correlation_scale, ledoit_wolf_from_moments, shrink_covariance
from ._base import DaskEstimator
from ._chunks import compute, map_chunks, tree_reduce
from ._classify import classification_data
from ._moments import class_index, class_scatter, finite, merge_moments


def _chunk_scatter(X, y, classes):
    return class_scatter(finite(X), class_index(y, classes), len(classes))


def _chunk_fourth_moment(X, y, classes, means, scales):
    """Per class, Σᵢ ‖zᵢ‖⁴ over the chunk's rows of the class, zᵢ = (xᵢ − μ_c) / D_c standardized
    by the class's own deviations."""
    index = class_index(y, classes)
    z = (np.asarray(X, dtype=np.float64) - means[index]) / scales[index]
    return np.bincount(index, weights=np.einsum("ij,ij->i", z, z) ** 2, minlength=len(classes))


def _add(a, b):
    return a + b


def _class_statistics(estimator, local, X, y):
    """Validated inputs reduced to (X, y, feature names, counts, scatters); ``classes_``, ``priors_`` and
    ``means_`` set on ``local``."""
    X, y, names, classes = classification_data(X, y)
    check_two_classes(classes)
    local.classes_ = classes
    if hasattr(local, "_check_dimensions"):
        local._check_dimensions(X.shape[1])  # before any d × d matrix is formed
    counts, means, scatters = compute(tree_reduce(map_chunks(_chunk_scatter, X, y, classes), merge_moments))[0]
    local.priors_ = class_priors(counts, estimator.priors)
    local.means_ = means
    return X, y, names, counts, scatters


class LinearDiscriminantAnalysis(DaskEstimator):
    """Linear discriminant analysis (shared covariance, Fisher's directions) on a Dask array.

    Every row chunk computes, on its worker, the per-class counts, means and scatter matrices
    Σ (x − μ_c)(x − μ_c)ᵀ about the chunk's class means (float64); they are merged pairwise in a
    tree (Chan, Golub & LeVeque: M = M_a + M_b + δδᵀ n_a n_b / n), summed over the classes into
    the within-class scatter, and finished by :class:`lucidml.discriminant.LinearDiscriminantAnalysis`'s
    own code. Only O(n_classes × n_features²) numbers per chunk leave the workers.

    Parameters
    ----------
    priors, n_components, tol
        As :class:`lucidml.discriminant.LinearDiscriminantAnalysis`.
    shrinkage : "auto", float in [0, 1] or None, default=None
        Σ ← (1 − s) Σ + s (tr Σ / d) I. ``"auto"``: each class's Ledoit–Wolf s_c of its standardized
        features, as in memory, from a second pass that sums Σᵢ ‖zᵢ‖⁴ of each class's standardized
        centred rows over the chunks (``lucidml.discriminant.linear.ledoit_wolf_from_moments``).

    Attributes
    ----------
    classes_, priors_, means_, covariance_, coef_, intercept_, scalings_, xbar_, explained_variance_ratio_, \
n_components_, n_features_in_, feature_names_in_
        As :class:`lucidml.discriminant.LinearDiscriminantAnalysis`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import LinearDiscriminantAnalysis
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X = np.array([[2, 3], [4, 3], [2, 1], [3, 4], [5, 4], [7, 4], [6, 8], [7, 6], [8, 9], [10, 9]], float)
    >>> y = np.array([1, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    >>> lda = LinearDiscriminantAnalysis().fit(da.from_array(X, chunks=(3, 2)), da.from_array(y, chunks=3))
    >>> w = lda.scalings_[:, 0]
    >>> (w / np.linalg.norm(w)).round(4)  # Fisher's direction of 002 §7.3.1
    array([0.9503, 0.3113])
    >>> lda.predict(da.from_array(np.array([[3.0, 3.0], [8.0, 8.0]]))).compute()
    array([1, 2])
    >>> client.close()
    """

    _local_class = _LocalLDA
    # The chunks always send their d × d scatters, so Σ is always kept (store_covariance=None).
    _parameter_constraints = {k: v for k, v in _LocalLDA._parameter_constraints.items() if k != "store_covariance"}

    def __init__(self, *, priors=None, shrinkage=None, n_components=None, tol=1e-4):
        self.priors = priors
        self.shrinkage = shrinkage
        self.n_components = n_components
        self.tol = tol

    def fit(self, X, y):
        """Estimate φ, μ_c and the shared Σ from the chunks; find the Fisher directions."""
        local = self._new_local()
        X, y, names, counts, scatters = _class_statistics(self, local, X, y)
        if self.shrinkage == "auto":  # Ledoit–Wolf per class: a second pass for Σᵢ ‖zᵢ‖⁴
            covariances = scatters / counts[:, None, None]
            scales = np.array([correlation_scale(*moments) for moments in zip(covariances, local.means_, counts)])
            parts = map_chunks(_chunk_fourth_moment, X, y, local.classes_, local.means_, scales)
            fourth = compute(tree_reduce(parts, _add))[0]
            covariance = np.zeros_like(covariances[0])
            for cov, f, n_c, scale in zip(covariances, fourth, counts, scales):
                coefficient = ledoit_wolf_from_moments(cov, f, n_c, scale)
                covariance += (n_c / counts.sum()) * shrink_covariance(cov, "auto", coefficient, scale)
        else:
            covariance = shrink_covariance(scatters.sum(axis=0) / counts.sum(), self.shrinkage)
        local._finish(counts, covariance, X.dtype)
        return self._publish(local, X.shape[1], names)


class QuadraticDiscriminantAnalysis(DaskEstimator):
    """Quadratic discriminant analysis (one covariance per class) on a Dask array.

    As :class:`LinearDiscriminantAnalysis` here: per-chunk class counts, means and scatter
    matrices, merged in a tree, finished by :class:`lucidml.discriminant.QuadraticDiscriminantAnalysis`'s
    own code (Σ_c = (1 − r) M_c / n_c + r I, Cholesky factors).

    Parameters
    ----------
    priors, reg_param
        As :class:`lucidml.discriminant.QuadraticDiscriminantAnalysis`.

    Attributes
    ----------
    classes_, priors_, means_, covariance_, n_features_in_, feature_names_in_
        As :class:`lucidml.discriminant.QuadraticDiscriminantAnalysis`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import QuadraticDiscriminantAnalysis
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(0, 4, (50, 2))])
    >>> y = np.repeat([0, 1], 50)
    >>> qda = QuadraticDiscriminantAnalysis().fit(da.from_array(X, chunks=(30, 2)), da.from_array(y, chunks=30))
    >>> qda.predict(da.from_array(np.array([[0.1, -0.2], [6.0, 6.0]]))).compute()  # same means, other spreads
    array([0, 1])
    >>> client.close()
    """

    _local_class = _LocalQDA
    _parameter_constraints = _LocalQDA._parameter_constraints

    def __init__(self, *, priors=None, reg_param=0.0):
        self.priors = priors
        self.reg_param = reg_param

    def fit(self, X, y):
        """Estimate φ, μ_c and Σ_c for every class from the chunks."""
        local = self._new_local()
        X, _, names, counts, scatters = _class_statistics(self, local, X, y)
        local._finish(counts, scatters, X.dtype)
        return self._publish(local, X.shape[1], names)
