"""PageRank by the power method on the Google matrix, never formed, or by one sparse solve."""

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse
import scipy.sparse.linalg
from sklearn.exceptions import ConvergenceWarning

__all__ = ["PageRankResult", "pagerank"]


@dataclass
class PageRankResult:
    """Scores (summing to 1), iterations used, and ‖r_k − r_(k−1)‖₁ per iteration."""

    scores: np.ndarray
    n_iter: int
    converged: bool
    history: list = field(default_factory=list)


def pagerank(A, damping=0.85, personalization=None, dangling=None, tol=1e-8, max_iter=100, method="power"):
    """PageRank scores of the nodes of a directed graph (Page et al. 1999; Langville & Meyer 2006).

    A random surfer follows an out-link with probability α = ``damping`` (in proportion to the
    link weights) and otherwise jumps to a node drawn from v = ``personalization``; from a node
    with no out-links it jumps by ``dangling``. The scores are the stationary distribution r of
    the Google matrix G = α P̂ + (1 − α) v 1ᵀ, where P̂ is the column-stochastic link matrix with
    its dangling columns replaced (seed 002 §10.4 names the method; its text is not in the notes).

    ``method="power"`` iterates r ← α P̂ r + (1 − α) v, using only the sparse link matrix (G is
    never formed: the dangling and teleport terms are rank one), until ‖Δr‖₁ < ``tol``.
    ``method="linear"`` solves (I − α P̂) r = (1 − α) v directly: one sparse LU of I − α Pᵀ and a
    Sherman–Morrison correction for the rank-one dangling term.

    Parameters
    ----------
    A : array-like or SciPy sparse matrix of shape (n, n)
        A[i, j] > 0 is a link i → j of that weight.
    damping : float in [0, 1), default=0.85
    personalization : array-like of shape (n,), default=None
        Teleport distribution v (normalized here); uniform if None.
    dangling : array-like of shape (n,), default=None
        Where a node without out-links sends the surfer (normalized); ``personalization`` if
        None, as networkx does.
    tol : float, default=1e-8
    max_iter : int, default=100
    method : {"power", "linear"}, default="power"

    Returns
    -------
    PageRankResult
        ``scores`` (non-negative, summing to 1), ``n_iter``, ``converged`` and ``history``.
        The power method warns with ``ConvergenceWarning`` when it stops at ``max_iter``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0, 1, 1], [0, 0, 1], [1, 0, 0]])  # 0 → 1, 0 → 2, 1 → 2, 2 → 0
    >>> pagerank(A).scores.round(4)
    array([0.3878, 0.2148, 0.3974])
    """
    if method not in ("power", "linear"):
        raise ValueError(f"method must be 'power' or 'linear'; got {method!r}.")
    if not 0.0 <= damping < 1.0:
        raise ValueError(f"damping must be in [0, 1); got {damping}.")
    if tol <= 0 or max_iter < 1:
        raise ValueError("tol must be positive and max_iter at least 1.")
    links = _link_matrix(A)
    n = links.shape[0]
    teleport = _distribution(personalization, n, "personalization")
    dangling_to = teleport if dangling is None else _distribution(dangling, n, "dangling")

    # In units of the largest weight (the walk does not change): weights near 1e308 overflowed their
    # row sums, and near 1e-320 their reciprocals.
    largest = float(np.max(links.data, initial=0.0))  # (CSR: _link_matrix)
    if largest > 0:
        links = links.copy()
        links.data /= largest  # (not links / largest: SciPy multiplies by 1/largest, inf for 1e-320)
    out_weight = np.asarray(links.sum(axis=1)).ravel()
    is_dangling = out_weight == 0
    inverse_out = np.divide(1.0, out_weight, out=np.zeros(n), where=~is_dangling)
    # P̂ r = Pᵀ (r / outdeg) + (Σ_dangling r) · dangling_to, with Pᵀ the transposed link matrix.
    follow = scipy.sparse.csr_array(links.T)

    if method == "linear":
        return _solve_linear(follow, inverse_out, is_dangling, dangling_to, teleport, damping)

    r = teleport.copy()
    history = []
    for n_iter in range(1, max_iter + 1):
        r_new = damping * (follow @ (r * inverse_out) + r[is_dangling].sum() * dangling_to) + (1 - damping) * teleport
        r_new /= r_new.sum()  # guards against drift; exact arithmetic keeps Σr = 1
        change = float(np.abs(r_new - r).sum())
        history.append(change)
        r = r_new
        if change < tol:
            return PageRankResult(r, n_iter, True, history)
    warnings.warn(
        f"PageRank did not reach ‖Δr‖₁ < {tol} in {max_iter} iterations (last change {change:.2e}).",
        ConvergenceWarning,
        stacklevel=2,
    )
    return PageRankResult(r, max_iter, False, history)


def _solve_linear(follow, inverse_out, is_dangling, dangling_to, teleport, damping):
    """(I − α Pᵀ D⁻¹ − α w dᵀ) r = (1 − α) v, with d the dangling indicator: Sherman–Morrison."""
    n = len(teleport)
    transition = scipy.sparse.csc_array(follow @ scipy.sparse.diags_array(inverse_out))  # Pᵀ D⁻¹
    system = scipy.sparse.identity(n, format="csc") - damping * transition
    lu = scipy.sparse.linalg.splu(system)
    base = lu.solve((1 - damping) * teleport)
    correction = lu.solve(damping * dangling_to)
    r = base + correction * base[is_dangling].sum() / (1.0 - correction[is_dangling].sum())
    return PageRankResult(r / r.sum(), 1, True, [])


def _link_matrix(A):
    links = scipy.sparse.csr_array(A, dtype=np.float64) if scipy.sparse.issparse(A) else scipy.sparse.csr_array(
        np.asarray(A, dtype=np.float64)
    )
    if links.ndim != 2 or links.shape[0] != links.shape[1]:
        raise ValueError(f"A must be a square adjacency matrix; got shape {links.shape}.")
    if links.shape[0] == 0:
        raise ValueError("A is empty: the graph has no nodes.")
    if not np.all(np.isfinite(links.data)) or np.any(links.data < 0):
        raise ValueError("A must have finite, non-negative link weights.")
    return links


def _distribution(weights, n, name):
    if weights is None:
        return np.full(n, 1.0 / n)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (n,):
        raise ValueError(f"{name} must have one entry per node ({n}); got shape {weights.shape}.")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or weights.sum() <= 0:
        raise ValueError(f"{name} must be finite, non-negative and not all zero.")
    return weights / weights.sum()
