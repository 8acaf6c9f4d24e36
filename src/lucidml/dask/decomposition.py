"""PCA and truncated SVD of a Dask array by a tall-skinny QR (TSQR) over the row chunks.

Each chunk returns its count n, mean μ and the triangular factor R of its rows centred at μ
(Xc = QR, so RᵀR = XcᵀXc, the chunk's scatter), at most d × d. Two chunks' factors merge as
their scatter matrices do (Chan, Golub & LeVeque), but in factored form:

    R = qr_R([R_a; R_b; √(n_a n_b / n) (μ_b − μ_a)ᵀ])   ⇒   RᵀR = M_a + M_b + δδᵀ n_a n_b / n,

so the scatter XcᵀXc itself is never formed (its condition number would be squared): the SVD
R = U Σ Vᵀ of the final d × d factor gives the singular values Σ and right singular vectors V of
the whole centred X, as an SVD of X would. One pass; only the factors travel.
"""

import numpy as np
import scipy.linalg

from ..decomposition import PCA as _LocalPCA
from ..decomposition import TruncatedSVD as _LocalTruncatedSVD
from ..decomposition.pca import _nonzero
from ..decomposition.svd_tools import _flip_signs, _svd
from ._base import DaskEstimator
from ._chunks import as_dask_X, compute, map_chunks, tree_reduce
from ._moments import finite


def _qr_r(A):
    """The triangular factor of A = QR (economic: min(m, d) × d)."""
    return scipy.linalg.qr(A, mode="r", check_finite=False)[0][: min(A.shape)]


def _chunk_factor(X):
    """(n, μ, R) of one chunk: R the triangular factor of its rows centred at their own mean μ."""
    X = finite(np.asarray(X, dtype=np.float64))
    mean = X.mean(axis=0)
    return float(X.shape[0]), mean, _qr_r(X - mean)


def merge_factors(a, b):
    """The (n, μ, R) of two chunks together: Chan's update of the scatter, in R form."""
    (n_a, mean_a, r_a), (n_b, mean_b, r_b) = a, b
    n = n_a + n_b
    delta = mean_b - mean_a
    stacked = np.vstack([r_a, r_b, np.sqrt(n_a * n_b / n) * delta[None, :]])
    return n, mean_a + delta * (n_b / n), _qr_r(stacked)


def centred_factor(X):
    """(n, μ, R) of all rows of the dask array X, with RᵀR = Σᵢ (xᵢ − μ)(xᵢ − μ)ᵀ."""
    return compute(tree_reduce(map_chunks(_chunk_factor, X), merge_factors))[0]


class PCA(DaskEstimator):
    """Principal component analysis of a Dask array by TSQR: the exact SVD of the centred data.

    The centred data Xc = X − 1μᵀ (divided by the feature standard deviations if
    ``standardize``) is reduced chunk by chunk to its d × d triangular factor R (RᵀR = XcᵀXc,
    merged in a tree, see the module); the SVD R = U Σ Vᵀ gives the principal axes Vᵀ and the
    variances λ = σ²/(n − 1), and :class:`lucidml.decomposition.PCA`'s own finishing code sets
    the fitted attributes (signs fixed as there: the components equal the in-memory
    ``svd_solver="full"`` ones, not only up to sign). One pass over X; each chunk sends back
    O(d²) numbers, so d up to a few thousand.

    Parameters
    ----------
    n_components : int, float in (0, 1) or None, default=None
        Components to keep; a float keeps the fewest whose explained variance ratio exceeds it.
    whiten : bool, default=False
    standardize : bool, default=False
        Divide every feature by its standard deviation first (PCA of the correlation matrix).

    Attributes
    ----------
    components_, explained_variance_, explained_variance_ratio_, singular_values_
        As :class:`lucidml.decomposition.PCA`.
    mean_, scale_, noise_variance_, n_components_, n_samples_, n_features_in_, feature_names_in_
        As :class:`lucidml.decomposition.PCA`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import PCA
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [-3.0, -2.0], [1.0, 1.0], [2.0, 1.0], [3.0, 2.0]])
    >>> pca = PCA(n_components=2).fit(da.from_array(X, chunks=(2, 2)))
    >>> pca.explained_variance_ratio_.round(4)
    array([0.9924, 0.0076])
    >>> pca.transform(da.from_array(X, chunks=(3, 2))).compute()[:2].round(4)
    array([[-1.3834, -0.2936],
           [-2.2219,  0.2513]])
    >>> client.close()
    """

    _local_class = _LocalPCA
    _parameter_constraints = {k: _LocalPCA._parameter_constraints[k] for k in ("n_components", "whiten",
                                                                               "standardize")}

    def __init__(self, n_components=None, *, whiten=False, standardize=False):
        self.n_components = n_components
        self.whiten = whiten
        self.standardize = standardize

    def fit(self, X, y=None):
        """Find the principal directions of X (dask array or DataFrame)."""
        local = self._new_local()
        X, names = as_dask_X(X)
        n, d = X.shape
        if n < 2:
            raise ValueError(f"PCA needs at least 2 samples; got {n}.")
        k, ratio = local._requested_components(n, d)
        _, mean, R = centred_factor(X)
        scale = None
        if self.standardize:  # the standard deviations are the column norms of R over √n
            scale = _nonzero(np.sqrt(np.sum(R * R, axis=0) / n))
            R = R / scale
        _, s, Vt = _svd(R)
        values = s**2 / (n - 1)
        local.n_iter_, local._fit_svd_solver = 1, "full"
        local._finish(values, Vt, float(values.sum()), mean, scale, n, d, k, ratio, X.dtype)
        return self._publish(local, d, names)

    def fit_transform(self, X, y=None):
        """Fit, then the scores as a lazy dask array."""
        return self.fit(X).transform(X)


class TruncatedSVD(DaskEstimator):
    """Rank-k SVD X ≈ U_k Σ_k V_kᵀ of a Dask array (no centring), by TSQR.

    The uncentred factor R (RᵀR = XᵀX) is the centred one with the row √n μᵀ appended and
    QR'd again; its SVD gives σ and V_kᵀ exactly (the in-memory ``algorithm="full"`` result, signs
    fixed as there). The variances of the scores X vⱼ are σⱼ²/n − (μ·vⱼ)², the total variance
    Σⱼ Var(xⱼ) the trace of the centred scatter over n: no second pass.

    Parameters
    ----------
    n_components : int, default=2

    Attributes
    ----------
    components_, singular_values_, explained_variance_, explained_variance_ratio_
        As :class:`lucidml.decomposition.TruncatedSVD`.
    n_features_in_, feature_names_in_
        As :class:`lucidml.decomposition.TruncatedSVD`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import TruncatedSVD
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [2.0, 2.0, 1.0], [1.0, 0.0, 2.0]])
    >>> svd = TruncatedSVD(n_components=2).fit(da.from_array(X, chunks=(2, 3)))
    >>> svd.singular_values_.round(4)
    array([3.7491, 1.7676])
    >>> client.close()
    """

    _local_class = _LocalTruncatedSVD
    _parameter_constraints = {"n_components": _LocalTruncatedSVD._parameter_constraints["n_components"]}

    def __init__(self, n_components=2):
        self.n_components = n_components

    def fit(self, X, y=None):
        """Compute the rank-k SVD of X (dask array or DataFrame)."""
        local = self._new_local()
        X, names = as_dask_X(X)
        n, d = X.shape
        k = self.n_components
        if d < 2 or k > min(n, d):
            raise ValueError(f"n_components={k} must be ≤ min(n_samples, n_features) (n_samples={n}, "
                             f"n_features={d}), and TruncatedSVD needs n_features ≥ 2.")
        _, mean, R = centred_factor(X)
        total = float(np.sum(R * R)) / n
        _, s, Vt = _svd(_qr_r(np.vstack([R, np.sqrt(n) * mean[None, :]])))
        s, Vt = s[:k], Vt[:k]
        _, Vt = _flip_signs(None, Vt)
        # The scores' variance ‖R vⱼ‖²/n from the centred factor (RᵀR the scatter about the mean):
        # s²/n − (μ·v)² cancelled for a feature of mean 1e8 (a variance 0 or 6 for 1).
        variance = np.sum((R @ Vt.T) ** 2, axis=0) / n
        local.components_ = Vt.astype(X.dtype, copy=False)
        local.singular_values_ = s.astype(X.dtype, copy=False)
        local.explained_variance_ = variance.astype(X.dtype)
        local.explained_variance_ratio_ = (variance / total if total > 0 else np.zeros(k)).astype(X.dtype)
        return self._publish(local, d, names)

    def fit_transform(self, X, y=None):
        """Fit, then the scores X V_k as a lazy dask array."""
        return self.fit(X).transform(X)
