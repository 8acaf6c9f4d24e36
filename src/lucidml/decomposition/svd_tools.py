"""What the singular value decomposition A = U Σ Vᵀ gives directly (seeds: 002 §7.2.2–7.2.4).

- ``low_rank_approximation(A, k)`` = A_k = Σ_{j≤k} σⱼ uⱼ vⱼᵀ, the best rank-k approximation in
  the 2-norm and the Frobenius norm (Eckart–Young, (7.40)): ‖A − A_k‖₂ = σ_{k+1}.
- ``pinv(A)`` = A⁺ = V Σ⁺ Uᵀ, Σ⁺ inverting only the singular values above a cut-off
  ((7.39), (7.42)–(7.43)); for full column rank it equals (AᵀA)⁻¹Aᵀ.
- ``numerical_rank(A)`` = the number of σⱼ > T with T = 2·max(m, n)·ε·σ₁ ((7.47)–(7.48); NumPy's
  ``matrix_rank`` uses the same rule without the factor 2).
- ``cond2(A)`` = κ₂(A) = σ₁/σ_min ((7.37)), ∞ for a rank-deficient A.

All of them call LAPACK's SVD of A itself, never eig(AᵀA): the notes' route of §7.2.3 squares
the condition number and loses every singular value below √ε·σ₁.

Examples
--------
The worked examples 7.19–7.20 and (7.46) of the notes:

>>> import numpy as np
>>> from lucidml.decomposition.svd_tools import cond2, numerical_rank, pinv
>>> A = np.array([[1.0, 2.0], [-2.0, 1.0], [3.0, 2.0]])
>>> np.round(np.linalg.svd(A, compute_uv=False) ** 2, 10)
array([18.,  5.])
>>> np.round(pinv(A) * 90, 10)
array([[ -3., -24.,  15.],
       [ 22.,  26.,  10.]])
>>> round(cond2(A) ** 2, 10)
3.6
>>> B = np.array([[1/3, 1/3, 2/3], [2/3, 2/3, 4/3], [1/3, 2/3, 3/3], [2/5, 2/5, 4/5], [3/5, 1/5, 4/5]])
>>> numerical_rank(B)
2
"""

from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.utils import check_array

__all__ = ["cond2", "low_rank_approximation", "numerical_rank", "pinv"]


def _matrix(A):
    """A validated, finite, 2-D float64 array."""
    return check_array(A, dtype=np.float64, ensure_min_samples=1, ensure_min_features=1)


def _svd(A, compute_uv=True):
    # gesdd is the fast divide-and-conquer driver; on the rare LAPACK failure fall back to gesvd.
    try:
        return scipy.linalg.svd(A, full_matrices=False, compute_uv=compute_uv, check_finite=False)
    except np.linalg.LinAlgError:
        return scipy.linalg.svd(A, full_matrices=False, compute_uv=compute_uv, check_finite=False,
                                lapack_driver="gesvd")


def _default_threshold(shape, sigma_max):
    """T = 2·max(m, n)·ε·σ₁, the notes' (7.48)."""
    return 2.0 * max(shape) * np.finfo(np.float64).eps * sigma_max


def low_rank_approximation(A, k):
    """The best rank-k approximation A_k = U_k Σ_k V_kᵀ of A (Eckart–Young; 002 (7.40)–(7.41)).

    Parameters
    ----------
    A : array-like of shape (m, n)
        An image is reshaped by the caller (m × n × 3 → m × 3n).
    k : int
        The rank, 1 ≤ k ≤ min(m, n).

    Returns
    -------
    A_k : ndarray of shape (m, n)

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[3.0, 0.0], [0.0, 1.0]])
    >>> low_rank_approximation(A, 1)
    array([[3., 0.],
           [0., 0.]])
    """
    A = _matrix(A)
    if not isinstance(k, Integral) or isinstance(k, bool) or not 1 <= k <= min(A.shape):
        raise ValueError(f"k must be an int in [1, min(m, n)] = [1, {min(A.shape)}]; got {k!r}.")
    U, s, Vt = _svd(A)
    return (U[:, :k] * s[:k]) @ Vt[:k]


def pinv(A, rcond=None, k=None):
    """The Moore–Penrose pseudoinverse A⁺ = V Σ⁺ Uᵀ (002 (7.39), (7.42)–(7.43)).

    Parameters
    ----------
    A : array-like of shape (m, n)
    rcond : float or None, default=None
        Singular values σⱼ ≤ rcond·σ₁ are treated as zero. None uses the numerical-rank
        threshold T = 2·max(m, n)·ε·σ₁.
    k : int or None, default=None
        Keep at most the k largest singular values: A_k⁺, the pseudoinverse of the rank-k
        approximation.

    Returns
    -------
    A_pinv : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> pinv(np.array([[2.0, 0.0], [0.0, 0.0]]))
    array([[0.5, 0. ],
           [0. , 0. ]])
    """
    A = _matrix(A)
    if rcond is not None and (not isinstance(rcond, Real) or not 0 <= rcond < 1):
        raise ValueError(f"rcond must be a float in [0, 1); got {rcond!r}.")
    if k is not None and (not isinstance(k, Integral) or not 1 <= k <= min(A.shape)):
        raise ValueError(f"k must be None or an int in [1, {min(A.shape)}]; got {k!r}.")
    U, s, Vt = _svd(A)
    threshold = _default_threshold(A.shape, s[0]) if rcond is None else rcond * s[0]
    keep = s > threshold
    if k is not None:
        keep[k:] = False
    with np.errstate(over="ignore", invalid="ignore"):
        inverse = (Vt[keep].T / s[keep]) @ U[:, keep].T
    if not np.isfinite(inverse).all():  # 1/σ beyond float64: A's kept singular values are subnormal
        raise ValueError(f"The pseudo-inverse overflows float64: A's smallest kept singular value is "
                         f"{s[keep].min():.3g}. Rescale A, or raise rcond.")
    return inverse


def numerical_rank(A, tol=None):
    """The number of singular values above T (002 (7.47)); T = 2·max(m, n)·ε·σ₁ by default (7.48).

    Parameters
    ----------
    A : array-like of shape (m, n)
    tol : float or None, default=None
        The threshold T itself (absolute).

    Returns
    -------
    rank : int

    Examples
    --------
    >>> import numpy as np
    >>> numerical_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))
    1
    """
    A = _matrix(A)
    if tol is not None and (not isinstance(tol, Real) or not tol >= 0):  # (NaN too)
        raise ValueError(f"tol must be a non-negative float; got {tol!r}.")
    s = _svd(A, compute_uv=False)
    threshold = _default_threshold(A.shape, s[0]) if tol is None else tol
    return int(np.count_nonzero(s > threshold))


def cond2(A):
    """The 2-norm condition number κ₂(A) = σ₁/σ_min(m,n) (002 (7.37)); inf when σ_min = 0.

    Examples
    --------
    >>> import numpy as np
    >>> cond2(np.diag([4.0, 2.0]))
    2.0
    """
    A = _matrix(A)
    s = _svd(A, compute_uv=False)
    if s[-1] == 0:
        return float("inf")
    return float(s[0] / s[-1])


def _flip_signs(U, Vt):
    """Make every row of Vt have its largest-magnitude entry positive (and U's columns follow).

    The same deterministic rule as scikit-learn's ``svd_flip(u_based_decision=False)``, so the
    components agree with scikit-learn's exactly, not only up to sign. U may be None.
    """
    rows = np.arange(Vt.shape[0])
    signs = np.sign(Vt[rows, np.argmax(np.abs(Vt), axis=1)])
    signs[signs == 0] = 1.0
    Vt = Vt * signs[:, None]
    if U is not None:
        U = U * signs
    return U, Vt
