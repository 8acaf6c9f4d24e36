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


# The splines' penalties (the k-th derivative jumps, ∫g''²) grow like 1/h³ or faster in the knot
# spacing h: a feature spanning less than this overflows them, and is refused by name.
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
        component = _fit_spline(u, zbar, Wu, smoothing * len(u) * phi, lo, hi, previous,
                                cp_weight=None if dispersion is None else smoothing * dispersion)
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


def _fit_spline(u, zbar, W, s, lo, hi, previous=None, cp_weight=None):
    """Cubic smoothing spline (degree k = min(#unique − 1, 3)) of the group means z̄ᵤ, weights Wᵤ.

    Every spline here is a penalized fit on knots t, min_c Σ Wᵤ(z̄ᵤ − g(u))² + λ‖Pc‖², and the
    two rules differ in the penalty and in how t and λ are chosen:

    - *residual budget* (``cp_weight`` None, GAMRegressor): FITPACK (scipy's
      ``UnivariateSpline``) places the knots and, among splines on them, takes the one with the
      smallest jumps of g⁽ᵏ⁾ at the interior knots (P = :func:`_jump_matrix`) whose residual is s.
    - *Mallows' C_p* (``cp_weight`` = γφ, GAMClassifier, whose working response has the known
      variance φ/w): up to :data:`MAX_INTERIOR_KNOTS` knots at quantiles of the unique values,
      the penalty ∫g''² (P = :func:`_curvature_root`), and the λ that minimizes C_p = residual +
      2γφ·df (:func:`_cp_penalty`; the UBRE of penalized IRLS). A residual budget is no rule for
      local scoring: a sample whose fitted μ nears 0 or 1 on the wrong side has a working
      residual near 1/μ, which FITPACK chases with a knot at every value, and the fit interpolates.

    Both knots and λ move with z, so backfitting with them can cycle. Given ``previous`` (a
    spline component) its knots are kept and its λ too, once chosen: the first such call chooses
    it by the rule (λ is None while searched); from then on the smoother is linear and fixed, and
    backfitting converges. Every spline is frozen so, also FITPACK's without interior knots (a
    plain polynomial, with no jumps to penalize: λ = 0), so that FITPACK cannot add knots late.
    scipy's weights multiply the residual before squaring, hence √Wᵤ.
    """
    if not hasattr(previous, "t"):
        previous = None  # a constant component (one weighted value) is searched afresh
    if previous is not None or cp_weight is not None:
        if previous is not None:
            t, k = previous.t, previous.k
        else:
            k = min(len(u) - 1, 3)
            t = _quantile_knots(u, k)
        R, qz = _reduced_problem(u, zbar, W, t, k)
        root = getattr(previous, "penalty_root", None)  # P: the penalty is λ‖Pc‖²
        if root is None:
            root = _curvature_root(t, k) if cp_weight is not None and k >= 2 else _jump_matrix(t, k)
        lam = None if previous is None else previous.lam
        if len(root) == 0:
            lam = 0.0
        elif lam is None and cp_weight is not None:
            lam = _cp_penalty(R, qz, root, cp_weight)
        elif lam is None:
            lam = _match_penalty(R, qz, root, s - _outside(u, zbar, W, R, qz))
        return _Spline(BSpline(t, _penalized_coef(R, qz, root, lam), k), lo, hi, t, k,
                       None if previous is None else lam, root)
    k = min(len(u) - 1, 3)
    with warnings.catch_warnings():
        # FITPACK warns when s is so small that it interpolates; interpolation is then the answer.
        warnings.simplefilter("ignore", UserWarning)
        spline = UnivariateSpline(u, zbar, w=np.sqrt(W), k=k, s=s)
    interior = spline.get_knots()[1:-1]
    t = np.r_[[u[0]] * (k + 1), interior, [u[-1]] * (k + 1)]
    return _Spline(spline, lo, hi, t, k, None)


# The C_p spline's interior knots (pyGAM's default basis has 20 functions, mgcv's 10): enough for
# any shape a smoothing penalty would keep, few enough for a 24-column least squares.
MAX_INTERIOR_KNOTS = 20


def _quantile_knots(u, k):
    """Full knot vector of degree k with up to :data:`MAX_INTERIOR_KNOTS` interior knots evenly
    spaced in rank over the unique values u (at most one per value strictly inside the range)."""
    n_interior = max(0, min(MAX_INTERIOR_KNOTS, len(u) // 4))
    interior = u[np.round(np.linspace(0, len(u) - 1, n_interior + 2)).astype(np.intp)[1:-1]]
    interior = np.unique(interior[(interior > u[0]) & (interior < u[-1])])
    return np.r_[[u[0]] * (k + 1), interior, [u[-1]] * (k + 1)]


def _reduced_problem(u, zbar, W, t, k):
    """QR-reduce the weighted B-spline least squares to (R, Qᵀ√W z̄).

    ‖√W(Bc − z̄)‖² = ‖Rc − Qᵀ√W z̄‖² + (the part of √W z̄ outside the spline space).
    """
    n_coef = len(t) - k - 1
    sw = np.sqrt(W)
    design = sw[:, None] * BSpline.design_matrix(u, t, k).toarray()
    with factorization_threads(n_coef, design.shape[0]):  # small: one BLAS thread (see utils.linalg)
        Q, R = np.linalg.qr(design)
    return R, Q.T @ (sw * zbar)


def _curvature_root(t, k):
    """P with ‖P c‖² = ∫ g''(x)² dx for the spline g with coefficients c: the classic smoothing
    spline's penalty, whose null space is the straight lines only. (B-spline second derivatives
    are polynomials of degree k − 2 on each knot interval, so Gauss–Legendre with k − 1 points
    per interval integrates their products exactly.)"""
    nodes, weights = np.polynomial.legendre.leggauss(k - 1)
    edges = np.unique(t)
    half = np.diff(edges) / 2
    points = ((edges[:-1] + edges[1:]) / 2)[:, None] + half[:, None] * nodes
    second = BSpline(t, np.eye(len(t) - k - 1), k).derivative(2)(points.ravel())
    gram = second.T @ ((half[:, None] * weights).ravel()[:, None] * second)
    values, vectors = np.linalg.eigh(gram)
    keep = values > 1e-12 * max(values.max(), 0.0)
    return np.sqrt(values[keep])[:, None] * vectors[:, keep].T


def _jump_matrix(t, k):
    """J, with J c the jumps of g⁽ᵏ⁾ at the interior knots of the spline with coefficients c
    (g⁽ᵏ⁾ is constant between knots: it is sampled mid-interval)."""
    edges = np.unique(t)
    deriv = BSpline(t, np.eye(len(t) - k - 1), k).derivative(k)((edges[:-1] + edges[1:]) / 2)
    return np.diff(deriv, axis=0)


def _outside(u, zbar, W, R, qz):
    """The residual no spline on these knots can remove: ‖√W z̄‖² − ‖Qᵀ√W z̄‖²."""
    return max(float(np.dot(W, zbar**2) - np.dot(qz, qz)), 0.0)


def _penalty_path(R, qz, root):
    """λ ↦ (r(λ), df(λ)) of the penalized fit, for one λ or an array of them: its residual
    r = ‖R c(λ) − Qᵀ√W z̄‖² and its degrees of freedom df = trace of the hat matrix.

    With R square and invertible, one SVD serves every λ (Reinsch's device): a = Rc turns the
    problem into min ‖a − q‖² + λ‖M a‖², M = P R⁻¹ = U Σ Vᵀ, so a = V (I + λΣᵀΣ)⁻¹ Vᵀ q,
    r(λ) = Σᵢ (λσᵢ² / (1 + λσᵢ²))² (Vᵀq)ᵢ² and df(λ) = Σᵢ 1 / (1 + λσᵢ²): O(p) per λ where a
    least-squares solve is O(p³) (40 of them per bisection made a GAMClassifier on 500 rows take
    a minute). A rank-deficient or ill-conditioned R (knots without data, or groups of weight
    near 0) is solved by least squares at each λ, df as trace(R (RᵀR + λPᵀP)⁺ Rᵀ).
    """
    p = R.shape[1]
    pivots = np.abs(np.diag(R)) if R.shape[0] == p else np.zeros(1)
    if pivots.min() <= 1e-8 * pivots.max():  # R⁻¹ would lose digits (groups of weight near 0)

        def by_least_squares(lam):
            residual = np.sum((R @ _penalized_coef(R, qz, root, lam) - qz) ** 2)
            stacked = np.vstack([R, np.sqrt(lam) * root])
            with factorization_threads(p, stacked.shape[0]):
                inverse = np.linalg.pinv(stacked)[:, : R.shape[0]]  # (RᵀR + λPᵀP)⁺ Rᵀ
            return residual, np.trace(R @ inverse)

        return np.vectorize(by_least_squares)
    with factorization_threads(p, len(root)):
        M = scipy.linalg.solve_triangular(R, root.T, trans="T").T  # P R⁻¹, from Rᵀ Mᵀ = Pᵀ
        _, sigma, vt = np.linalg.svd(M, full_matrices=True)
    squares = np.zeros(p)
    squares[: sigma.size] = sigma**2
    projected = (vt @ qz) ** 2

    def by_svd(lam):
        kept = 1.0 / (1.0 + np.asarray(lam, dtype=np.float64)[..., None] * squares)
        return np.sum((1.0 - kept) ** 2 * projected, axis=-1), np.sum(kept, axis=-1)

    return by_svd


def _penalized_coef(R, qz, root, lam):
    """argmin_c ‖Rc − Qᵀ√W z̄‖² + λ‖Pc‖², as one small stacked least-squares problem."""
    A = np.vstack([R, np.sqrt(lam) * root])
    b = np.r_[qz, np.zeros(len(root))]
    with factorization_threads(A.shape[1], A.shape[0]):
        return np.linalg.lstsq(A, b, rcond=None)[0]


# The penalty searches run over λ = scale·e^x for x in [−LOG_LAMBDA_RANGE, LOG_LAMBDA_RANGE], where
# scale balances the two terms of the penalized fit.
LOG_LAMBDA_RANGE = 30.0


def _penalty_scale(R, root):
    """The λ that balances the fit's two terms, ‖R‖²/‖P‖², rounded to a power of 2: the penalty
    searches run over λ = scale·eˣ, and a scale that moved with the rounding of the data would
    move the C_p grid with it (integer weights and the repeated rows they stand for would then
    choose different λ)."""
    balance = np.trace(R.T @ R) / max(np.sum(root**2), 1e-300)
    return float(2.0 ** np.round(np.log2(max(balance, 1e-300))))


def _match_penalty(R, qz, root, s_inside):
    """λ at which the penalized fit leaves residual s (bisection on log λ; the residual grows with λ)."""
    scale = _penalty_scale(R, root)
    path = _penalty_path(R, qz, root)

    def residual(log_lam):
        return float(path(scale * np.exp(log_lam))[0])

    lo, hi = -LOG_LAMBDA_RANGE, LOG_LAMBDA_RANGE
    if residual(lo) >= s_inside:
        return scale * np.exp(lo)  # even the least-squares spline leaves more than s
    if residual(hi) <= s_inside:
        return scale * np.exp(hi)  # a single polynomial already meets s
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if residual(mid) > s_inside else (mid, hi)
    return scale * np.exp((lo + hi) / 2)


def _cp_penalty(R, qz, root, weight):
    """λ minimizing Mallows' C_p = r(λ) + 2·weight·df(λ), the unbiased estimate of the fit's
    error when the noise variance per unit weight is known (weight = γφ; UBRE).

    A grid search, not a minimizer: C_p can have several local minima, and near its minimum it
    is flat, so that a continuous minimizer lands anywhere in the rounding noise (weights and
    the repeated rows they stand for then give different λ). Log λ a quarter apart, then a
    twentieth between the best point's neighbours."""
    scale = _penalty_scale(R, root)
    path = _penalty_path(R, qz, root)

    def best(log_lams):
        residual, df = path(scale * np.exp(log_lams))
        return log_lams[int(np.argmin(residual + 2.0 * weight * df))]

    coarse = best(np.arange(-LOG_LAMBDA_RANGE, LOG_LAMBDA_RANGE + 0.125, 0.25))
    fine = best(np.clip(coarse + np.arange(-0.25, 0.26, 0.05), -LOG_LAMBDA_RANGE, LOG_LAMBDA_RANGE))
    return float(scale * np.exp(fine))


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
    """A spline fⱼ with its full knot vector t, degree k, penalty weight λ (None while searched)
    and, for a penalized fit, the root P of its penalty λ‖Pc‖² (c: its coefficients)."""

    penalty_root = None  # (models saved before it existed have none: they were FITPACK splines)

    def __init__(self, spline, lo, hi, t, k, lam, penalty_root=None):
        super().__init__(lo, hi)
        self.spline, self.t, self.k, self.lam, self.penalty_root = spline, t, k, lam, penalty_root

    def _raw(self, x):
        return self.spline(x)

    def roughness(self):
        """λ‖Pc‖², the penalty of a frozen penalized spline (0 for the others)."""
        if not self.lam or self.penalty_root is None:
            return 0.0
        rough = self.penalty_root @ self.spline.c
        return self.lam * float(np.dot(rough, rough))


class _Loess(_Component):
    """LOESS values at the training unique values, linearly interpolated in between."""

    def __init__(self, knots, values, lo, hi):
        super().__init__(lo, hi)
        self.knots, self.values = knots, values

    def _raw(self, x):
        return np.interp(x, self.knots, self.values)
