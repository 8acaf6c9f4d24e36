"""One-dimensional smoothers for backfitting: each turns (x, z, weights) into a centred component fⱼ.

A smoother works on the *unique* values of its feature: the working target is averaged over the
samples sharing an x value (weighted by the sample weights), and that group's total weight Wᵤ is
the weight of the averaged point. For a least-squares smoother this loses nothing, because

    Σᵢ wᵢ (zᵢ − f(xᵢ))² = Σᵤ Wᵤ (z̄ᵤ − f(u))² + (a term that does not depend on f).

Every fitted component is a small callable object that clamps its argument to the training range
[min xⱼ, max xⱼ] before evaluating (no extrapolation) and subtracts its centring shift.
"""

import warnings

import numpy as np
import scipy.linalg
from scipy.interpolate import BSpline, UnivariateSpline

from ..utils import njit
from ..utils.linalg import factorization_threads

__all__ = ["fit_component", "group_by_value"]


# The spline's k-th derivative jumps grow like 1/h³ in the knot spacing h and enter squared
# (_match_penalty): a feature spanning less than this overflows them, and is refused by name.
MIN_SPLINE_SPREAD = 1e-40


def check_spline_spreads(X, estimator):
    """Refuse, for the spline smoother, a feature whose values differ but span less than
    :data:`MIN_SPLINE_SPREAD` (a constant feature is fine: its component is zero)."""
    if estimator.smoother != "spline" or X.size == 0:
        return
    spread = X.max(axis=0) - X.min(axis=0)
    tiny = np.flatnonzero((spread > 0) & (spread < MIN_SPLINE_SPREAD))
    if tiny.size:
        j = int(tiny[0])
        raise ValueError(
            f"{type(estimator).__name__}: feature {j} spans only {spread[j]:.3g}; below {MIN_SPLINE_SPREAD:.0e} the "
            "spline smoother's derivatives overflow float64. Rescale the features (e.g. StandardScaler), or use "
            "smoother='linear' or 'loess'.")


def group_by_value(x):
    """Sorted unique values of ``x`` and, for each sample, the index of its value."""
    values, inverse = np.unique(x, return_inverse=True)
    return values, inverse.ravel()


def fit_component(kind, values, inverse, z, w, *, smoothing, span, dispersion, center_weight=None, previous=None):
    """Fit the smoother ``kind`` to targets ``z`` (weights ``w``) on one feature; return a centred component.

    ``values``/``inverse`` come from :func:`group_by_value`. ``dispersion`` is the noise
    variance φ of z per unit weight, or None to estimate it from the data (Rice's difference
    estimator over neighbouring unique values). ``previous``: a spline component whose knots and
    penalty weight are kept (see :func:`_fit_spline`). The component is shifted so that its mean over
    the training samples, weighted by ``center_weight`` (default ``w``), is zero.
    """
    W = np.bincount(inverse, weights=w, minlength=len(values))
    keep = W > 0  # values carried only by zero-weight samples do not enter the fit
    zbar = np.bincount(inverse, weights=w * z, minlength=len(values))[keep] / W[keep]
    u, Wu = values[keep], W[keep]
    lo, hi = float(u[0]), float(u[-1])  # the range of the samples that carry weight
    if len(u) == 1:
        component = _Constant(lo, hi)
    elif kind == "linear":
        component = _fit_linear(u, zbar, Wu, lo, hi)
    elif kind == "loess":
        at = np.unique(np.linspace(0, len(u) - 1, min(len(u), LOESS_POINTS)).round().astype(np.intp))
        component = _Loess(u[at], loess_fit(u, zbar, Wu, span, at), lo, hi)
    else:
        phi = _rice_variance(zbar, Wu) if dispersion is None else dispersion
        component = _fit_spline(u, zbar, Wu, smoothing * len(u) * phi, lo, hi, previous)
    # Centre: Σᵢ cᵢ fⱼ(xᵢ) = 0, the weighted mean over the training samples.
    C = W if center_weight is None else np.bincount(inverse, weights=center_weight, minlength=len(values))
    component.shift = float(np.dot(C, component(values)) / C.sum())
    return component


def _rice_variance(zbar, W):
    """Noise variance from differences of neighbouring group means (Rice 1984).

    For z = f(x) + ε with smooth f, z̄ᵤ₊₁ − z̄ᵤ ≈ ε̄ᵤ₊₁ − ε̄ᵤ, whose variance is σ²(1/Wᵤ + 1/Wᵤ₊₁);
    averaging the squared differences divided by that factor estimates σ².
    """
    d2 = np.diff(zbar) ** 2 / (1.0 / W[:-1] + 1.0 / W[1:])
    return float(np.mean(d2))


def _fit_linear(u, zbar, W, lo, hi):
    """Weighted least-squares line through the group means."""
    u_mean = np.dot(W, u) / W.sum()
    du = u - u_mean
    sxx = np.dot(W, du * du)
    slope = np.dot(W, du * zbar) / sxx if sxx > 0 else 0.0
    return _Linear(float(slope), float(-slope * u_mean), lo, hi)


def _fit_spline(u, zbar, W, s, lo, hi, previous=None):
    """Smoothing spline of degree k = min(#unique − 1, 3) with residual budget Σ Wᵤ(z̄ᵤ − g(u))² ≤ s.

    FITPACK (scipy's ``UnivariateSpline``) places the knots and then, among splines on them,
    takes the one with the smallest jumps of the k-th derivative whose residual is s; that is
    the penalized fit  min_c  Σ Wᵤ(z̄ᵤ − g(u))² + λ Σᵢ Dᵢ²  (Dᵢ = jump of g⁽ᵏ⁾ at interior knot i)
    with λ tuned to meet s. Both the knot count and λ move with z, so backfitting with it can
    cycle. Given ``previous`` (a spline component), its knots are kept and λ is matched to s
    once; afterwards knots and λ stay fixed: a linear smoother, for which backfitting converges.
    scipy's weights multiply the residual before squaring, hence √Wᵤ.
    """
    if hasattr(previous, "t") and len(previous.t) > 2 * (previous.k + 1):
        t, k = previous.t, previous.k
        R, qz, jumps = _reduced_problem(u, zbar, W, t, k)
        lam = previous.lam
        if lam is None:
            lam = _match_penalty(R, qz, jumps, s - _outside(u, zbar, W, R, qz))
        return _Spline(BSpline(t, _penalized_coef(R, qz, jumps, lam), k), lo, hi, t, k, lam)
    k = min(len(u) - 1, 3)
    with warnings.catch_warnings():
        # FITPACK warns when s is so small that it interpolates; interpolation is then the answer.
        warnings.simplefilter("ignore", UserWarning)
        spline = UnivariateSpline(u, zbar, w=np.sqrt(W), k=k, s=s)
    interior = spline.get_knots()[1:-1]
    t = np.r_[[u[0]] * (k + 1), interior, [u[-1]] * (k + 1)]
    return _Spline(spline, lo, hi, t, k, None)


def _reduced_problem(u, zbar, W, t, k):
    """QR-reduce the weighted B-spline least squares to (R, Qᵀ√W z̄), plus the k-th-derivative jump matrix J.

    ‖√W(Bc − z̄)‖² = ‖Rc − Qᵀ√W z̄‖² + (the part of √W z̄ outside the spline space).
    """
    n_coef = len(t) - k - 1
    sw = np.sqrt(W)
    design = sw[:, None] * BSpline.design_matrix(u, t, k).toarray()
    with factorization_threads(n_coef, design.shape[0]):  # small: one BLAS thread (see utils.linalg)
        Q, R = np.linalg.qr(design)
    edges = np.unique(t)
    mids = (edges[:-1] + edges[1:]) / 2  # g⁽ᵏ⁾ is constant between knots: sample it mid-interval
    deriv = BSpline(t, np.eye(n_coef), k).derivative(k)(mids)
    return R, Q.T @ (sw * zbar), np.diff(deriv, axis=0)


def _outside(u, zbar, W, R, qz):
    """The residual no spline on these knots can remove: ‖√W z̄‖² − ‖Qᵀ√W z̄‖²."""
    return max(float(np.dot(W, zbar**2) - np.dot(qz, qz)), 0.0)


def _penalty_residuals(R, qz, jumps):
    """r(λ) = ‖R c(λ) − Qᵀ√W z̄‖² of the penalized fit, as a function of λ, for the bisection.

    With R square and invertible, one SVD serves every λ (Reinsch's device): a = Rc turns the
    problem into min ‖a − q‖² + λ‖M a‖², M = J R⁻¹ = U Σ Vᵀ, so a = V (I + λΣᵀΣ)⁻¹ Vᵀ q and
    r(λ) = Σᵢ (λσᵢ² / (1 + λσᵢ²))² (Vᵀq)ᵢ²: O(p) per λ where a least-squares solve is O(p³)
    (40 of them per bisection made a GAMClassifier on 500 rows take a minute). A rank-deficient
    or ill-conditioned R (knots without data, or groups of weight near 0) is solved by least
    squares at each λ.
    """
    p = R.shape[1]
    pivots = np.abs(np.diag(R)) if R.shape[0] == p else np.zeros(1)
    if pivots.min() <= 1e-8 * pivots.max():  # R⁻¹ would lose digits (groups of weight near 0)

        def by_least_squares(lam):
            return float(np.sum((R @ _penalized_coef(R, qz, jumps, lam) - qz) ** 2))

        return by_least_squares
    with factorization_threads(p, len(jumps)):
        M = scipy.linalg.solve_triangular(R, jumps.T, trans="T").T  # J R⁻¹, from Rᵀ Mᵀ = Jᵀ
        _, sigma, vt = np.linalg.svd(M, full_matrices=True)
    squares = np.zeros(p)
    squares[: sigma.size] = sigma**2
    projected = (vt @ qz) ** 2

    def by_svd(lam):
        shrink = lam * squares / (1.0 + lam * squares)
        return float(np.sum(shrink**2 * projected))

    return by_svd


def _penalized_coef(R, qz, jumps, lam):
    """argmin_c ‖Rc − Qᵀ√W z̄‖² + λ‖Jc‖², as one small stacked least-squares problem."""
    A = np.vstack([R, np.sqrt(lam) * jumps])
    b = np.r_[qz, np.zeros(len(jumps))]
    with factorization_threads(A.shape[1], A.shape[0]):
        return np.linalg.lstsq(A, b, rcond=None)[0]


def _match_penalty(R, qz, jumps, s_inside):
    """λ at which the penalized fit leaves residual s (bisection on log λ; the residual grows with λ)."""
    scale = np.trace(R.T @ R) / max(np.sum(jumps**2), 1e-300)  # λ ≈ scale balances the two terms
    residual_at = _penalty_residuals(R, qz, jumps)

    def residual(log_lam):
        return residual_at(scale * np.exp(log_lam))

    lo, hi = -30.0, 30.0
    if residual(lo) >= s_inside:
        return scale * np.exp(lo)  # even the least-squares spline leaves more than s
    if residual(hi) <= s_inside:
        return scale * np.exp(hi)  # a single polynomial already meets s
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if residual(mid) > s_inside else (mid, hi)
    return scale * np.exp((lo + hi) / 2)


# LOESS is evaluated at no more than this many unique values (evenly spaced in rank) and
# interpolated linearly in between, as R's loess interpolates from a grid of vertices: this
# bounds the cost at LOESS_POINTS·span·n per smooth instead of span·n².
LOESS_POINTS = 400


@njit
def loess_fit(u, zbar, W, span, at):
    """Local linear regression (LOESS, degree 1) at the sorted unique values u[at].

    The neighbourhood of uᵢ holds the q = ⌈span·n⌉ nearest unique values (a contiguous window
    of the sorted array, slid along); each neighbour gets the tricube weight
    (1 − (|u − uᵢ|/d_max)³)³ times its group weight, d_max the window's largest distance
    (widened a hair so the farthest point keeps a small weight).
    """
    n = u.shape[0]
    q = min(n, max(2, int(np.ceil(span * n))))
    out = np.empty(at.shape[0])
    left = 0
    for a in range(at.shape[0]):
        i = at[a]
        # Slide the window [left, left+q) right while that brings it closer to u[i].
        while left + q < n and u[left + q] - u[i] < u[i] - u[left]:
            left += 1
        dmax = max(u[i] - u[left], u[left + q - 1] - u[i]) * 1.000001
        sw = 0.0
        sx = 0.0
        sz = 0.0
        for t in range(left, left + q):
            r = abs(u[t] - u[i]) / dmax if dmax > 0 else 0.0
            k = (1.0 - r * r * r) ** 3 * W[t]
            sw += k
            sx += k * u[t]
            sz += k * zbar[t]
        xm = sx / sw
        zm = sz / sw
        sxx = 0.0
        sxz = 0.0
        for t in range(left, left + q):
            r = abs(u[t] - u[i]) / dmax if dmax > 0 else 0.0
            k = (1.0 - r * r * r) ** 3 * W[t]
            sxx += k * (u[t] - xm) ** 2
            sxz += k * (u[t] - xm) * (zbar[t] - zm)
        slope = sxz / sxx if sxx > 1e-300 else 0.0
        out[a] = zm + slope * (u[i] - xm)
    return out


class _Component:
    """A fitted fⱼ: evaluate on x clamped to the training range, minus the centring shift."""

    shift = 0.0

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __call__(self, x):
        return self._raw(np.clip(np.asarray(x, dtype=np.float64), self.lo, self.hi)) - self.shift


class _Constant(_Component):
    def _raw(self, x):
        return np.zeros_like(x)


class _Linear(_Component):
    def __init__(self, slope, intercept, lo, hi):
        super().__init__(lo, hi)
        self.slope, self.intercept = slope, intercept

    def _raw(self, x):
        return self.slope * x + self.intercept


class _Spline(_Component):
    """A spline fⱼ with its full knot vector t, degree k and penalty weight λ (None while searched)."""

    def __init__(self, spline, lo, hi, t, k, lam):
        super().__init__(lo, hi)
        self.spline, self.t, self.k, self.lam = spline, t, k, lam

    def _raw(self, x):
        return self.spline(x)


class _Loess(_Component):
    """LOESS values at the training unique values, linearly interpolated in between."""

    def __init__(self, knots, values, lo, hi):
        super().__init__(lo, hi)
        self.knots, self.values = knots, values

    def _raw(self, x):
        return np.interp(x, self.knots, self.values)
