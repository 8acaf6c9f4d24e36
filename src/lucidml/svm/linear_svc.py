"""Linear support vector classification: dual coordinate descent, or primal Newton when n > d."""

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import (
    VERBOSE,
    Interval,
    IterationLog,
    Options,
    check_sample_weight,
    validate_params,
)
from ..utils.linalg import factorization_threads
from ..utils.rows import SparseRows, as_rows
from ..utils.validation import (
    FLOAT_DTYPES,
    check_classification_targets,
    check_fit_data,
    check_predict_data,
    check_square_fits,
    class_weights,
)
from ._linear_svc_kernels import binary_problem, dual_cd
from ._linear_svc_primal import primal_newton

# Above this many features a sparse X is solved in the dual (dual="auto"): the primal's Newton
# matrix is d × d and dense, factored in O(d³) per step (20,000 × 1,900 at 0.2% density: 0.39 s
# against the dual's 0.04 s on well-scaled data; on unscaled data the dual may stop at max_iter
# far from the optimum, which the primal reaches: 3,000 × 1,200 in 0.56 s).
SPARSE_PRIMAL_MAX_FEATURES = 2_000


class LinearSVC(ClassifierMixin, BaseEstimator):
    """Linear support vector classifier (soft margin), trained by dual coordinate descent.

    For labels yᵢ ∈ {−1, +1} it minimises the primal of 002 §5.3.4 / 001 §8.1,

        P(w) = ½‖w‖² + Σᵢ Cᵢ ξ(w; xᵢ, yᵢ),   ξ = max(0, 1 − yᵢwᵀx̃ᵢ)   ("hinge")
                                            or  ξ = max(0, 1 − yᵢwᵀx̃ᵢ)²  ("squared_hinge"),

    where x̃ᵢ = (xᵢ, s) appends the constant s = ``intercept_scaling``, so the intercept b = s·w_{d+1} is a
    regularised weight, as in liblinear (Cᵢ = C × class weight × sample weight). The notes give no solver;
    this is the dual coordinate descent of Hsieh, Chang, Lin, Keerthi & Sundararajan (2008): with
    w = Σ yᵢαᵢx̃ᵢ kept up to date, coordinate i takes the exact step

        G = yᵢwᵀx̃ᵢ − 1 + Dᵢᵢαᵢ,   αᵢ ← clip(αᵢ − G/Q̄ᵢᵢ, 0, Uᵢ),   w ← w + Δαᵢ yᵢ x̃ᵢ,

    (hinge: Uᵢ = Cᵢ, Dᵢᵢ = 0; squared hinge: Uᵢ = ∞, Dᵢᵢ = 1/(2Cᵢ); Q̄ᵢᵢ = ‖x̃ᵢ‖² + Dᵢᵢ), visiting the
    coordinates in a fresh random order each pass and shrinking bound coordinates whose projected
    gradient points outwards. It stops when the projected gradients span ≤ ``tol`` (scikit-learn's
    liblinear rule). When n_samples > n_features (``dual="auto"``, as in scikit-learn) the squared-hinge
    primal is minimised instead by a finite Newton method (Keerthi & DeCoste 2005): with the violators
    I = {i : yᵢwᵀx̃ᵢ < 1}, w ← w − t H⁻¹∇P, H = I + 2Σ_I Cᵢx̃ᵢx̃ᵢᵀ, t by exact line search; it reaches
    the same optimum in a few passes where the dual needs hundreds. The hinge is the convex surrogate
    of the 0–1 loss (000 §8.5). Several classes are fitted one-vs-rest; in class k's problem the
    positives get C × class_weight[k] and the negatives C (liblinear's convention), times their
    sample weights.

    Parameters
    ----------
    loss : {"squared_hinge", "hinge"}, default="squared_hinge"
    dual : "auto" or bool, default="auto"
        True: dual coordinate descent. False: primal Newton (squared hinge only). "auto": primal when
        n_samples > n_features and loss="squared_hinge" (scikit-learn's rule), except for a sparse X
        of more than 2,000 features, whose d × d Newton matrix would be large: it is solved in the
        dual, each step touching one row's stored entries. A float32 X is read as it is (the
        weights are float64).
    C : float, default=1.0
        Inverse regularisation strength (> 0).
    tol : float, default=1e-4
        Dual: stop when max PG − min PG ≤ tol over a pass (PG: projected dual gradient). Primal: stop
        when ‖∇P(w)‖₂ ≤ tol·‖w‖₂, which bounds w's relative error by tol.
    max_iter : int, default=1000
        Passes over the data (dual) or Newton steps (primal) at most, per one-vs-rest problem.
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
        The constant feature s; a larger s regularises the intercept less.
    class_weight : dict, "balanced" or None, default=None
        Multiplies C per class ("balanced": n_samples / (n_classes · count)).
    random_state : int, RandomState instance or None, default=None
        The order of the coordinates.
    verbose : int, default=0
        1 or more prints, on standard output, one line per binary problem (the positive class)
        once its solver has returned (the dual sweeps run inside one compiled kernel):
        ``Problem c, n_iter = …, objective = …``, the length and last entry of that problem's
        objective curve; 0 prints nothing.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    n_iter_ : int
        Passes (dual) or Newton steps (primal) of the longest one-vs-rest problem.
    loss_curve_ : ndarray of shape (n_iter_,)
        Summed over the one-vs-rest problems (a finished problem keeps its last value): the dual objective
        Σαᵢ − ½‖w‖² − ½ΣDᵢᵢαᵢ² after each pass, rising to the optimum, or the primal objective P(w) after
        each Newton step, falling to it.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.svm.linear_svc import LinearSVC
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = LinearSVC(C=10.0, random_state=0).fit(X, y)
    >>> clf.predict([[0.5, 0.5], [2.5, 2.5]])
    array([0, 1])
    """

    _parameter_constraints: ClassVar[dict] = {
        "loss": [Options({"squared_hinge", "hinge"})],
        "dual": [Options({"auto"}), "boolean"],
        "C": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "class_weight": [dict, Options({"balanced"}), None],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, *, loss="squared_hinge", dual="auto", C=1.0, tol=1e-4, max_iter=1000, fit_intercept=True,
                 intercept_scaling=1.0, class_weight=None, random_state=None,
                 verbose=0):
        self.loss = loss
        self.dual = dual
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit on X (n_samples, n_features) and class labels y; sample_weight multiplies C per sample."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, accept_sparse="csr", float32=True, order="C")
        check_classification_targets(y)
        squared = self.loss == "squared_hinge"
        sparse = scipy.sparse.issparse(X)
        if self.dual is False and not squared:
            raise ValueError("loss='hinge' is only solved in the dual; use dual=True or 'auto'.")
        # "auto": the primal when n > d (scikit-learn's rule), for a sparse X only while its d × d
        # Newton matrix is small; the dual of a wide sparse X touches only the stored entries.
        dual = (self.dual is True or not squared
                or (self.dual == "auto" and (X.shape[0] <= X.shape[1]
                                             or (sparse and X.shape[1] > SPARSE_PRIMAL_MAX_FEATURES))))
        if not dual:
            check_square_fits(self, X.shape[1] + 1, copies=2, what="the Newton matrix and its factor",
                              advice="Use dual=True (or 'auto') or reduce the features first.")
        self.classes_, y_index = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(f"LinearSVC needs at least 2 classes; got 1 class ({self.classes_[0]!r}).")
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        weight = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        class_weight = class_weights(self.class_weight, self.classes_, y, sample_weight)
        keep = weight > 0  # a zero-weight sample has Cᵢ = 0: it is simply left out
        X, y_index, weight = (X, y_index, weight) if keep.all() else (X[keep], y_index[keep], weight[keep])
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        bias = self.intercept_scaling if self.fit_intercept else 0.0
        positives = [1] if n_classes == 2 else range(n_classes)
        if not dual:  # the primal works on x̃ = (x, s) explicitly, in X's precision
            if sparse:  # (a copy, with each row's duplicate entries summed: the Newton matrix needs it)
                X = scipy.sparse.hstack([X, np.full((X.shape[0], 1), bias, X.dtype)], format="csr") if bias else X
                X = scipy.sparse.csr_matrix(X, copy=True)
                X.sum_duplicates()
                X = as_rows(X)
            else:
                X = np.hstack([X, np.full((X.shape[0], 1), bias, X.dtype)]) if bias else np.ascontiguousarray(X)
        W, curves, converged, wider = [], [], True, []
        log = IterationLog(self.verbose)
        for k in positives:
            sign = np.where(y_index == k, 1.0, -1.0)
            if n_classes == 2:  # binary: every sample weighted by its own class
                C = self.C * weight * class_weight[y_index]
            else:
                C = self.C * weight * np.where(y_index == k, class_weight[k], 1.0)
            if dual:
                w, curve = _linear_svc_dual(X, sign, C, bias, squared, self.tol, self.max_iter, seed)
                ok = len(curve) < self.max_iter
            else:  # d×d systems and tall products: one BLAS thread is faster than contended threads
                with factorization_threads(X.shape[1]):
                    w, curve, ok = _primal(X, sign, C, float(self.tol), int(self.max_iter), wider)
                w = w if bias else np.r_[w, 0.0]
            W.append(w)
            curves.append(curve)
            converged &= ok
            log.summary(f"Problem {self.classes_[k]}", n_iter=len(curve),
                        objective=curve[-1] if len(curve) else np.nan)
        W = np.array(W)
        self.coef_ = W[:, :-1]
        self.intercept_ = W[:, -1] * bias
        self.n_iter_ = max(len(c) for c in curves)
        self.loss_curve_ = sum(np.pad(c, (0, self.n_iter_ - len(c)), mode="edge") if len(c) else np.zeros(0)
                               for c in curves)
        if not converged:
            test = "the dual gradients" if dual else "the primal gradient"
            warnings.warn(f"LinearSVC stopped at max_iter={self.max_iter} before {test} met tol={self.tol}; "
                          "increase max_iter or scale the features.", ConvergenceWarning, stacklevel=2)
        return self

    def decision_function(self, X):
        """Signed score wᵀx + b: shape (n_samples,) for two classes (positive: classes_[1]), else
        (n_samples, n_classes)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """The class with the largest score (two classes: classes_[1] where the score is > 0)."""
        scores = self.decision_function(X)
        index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _primal(X, sign, C, tol, max_iter, wider):
    """``primal_newton`` of one binary problem. A float32 X's products are summed in float32: with
    collinear features or an offset, and a large C, their rounding can outweigh the Newton matrix's
    +I (features 5 + 2 collinear, offset 100, C = 1e3). Such a problem is solved again on X in
    float64, made once for all the classes (``wider``: empty, or that copy)."""
    try:
        return primal_newton(X, sign, C, tol, max_iter, _rounding_floor(X))
    except np.linalg.LinAlgError as error:  # no Newton step: ∇P or H = I + 2ΣCᵢxᵢxᵢᵀ unusable
        overflow, message = _newton_failure(error, X, C)
        if overflow or _data(X).dtype != np.float32:
            raise ValueError(message) from None
    if not wider:
        wider.append(X._replace(data=X.data.astype(np.float64)) if isinstance(X, SparseRows)
                     else X.astype(np.float64))
    try:
        return primal_newton(wider[0], sign, C, tol, max_iter, _rounding_floor(wider[0]))
    except np.linalg.LinAlgError as error:
        raise ValueError(_newton_failure(error, wider[0], C)[1]) from None


def _data(X):
    """The values of a dense X or of its SparseRows."""
    return X.data if isinstance(X, SparseRows) else X


def _newton_failure(error, X, C):
    """(whether it overflowed, the message) for a primal Newton step that could not be taken."""
    largest = float(np.abs(_data(X)).max())
    scale = f"features up to {largest:.3g}, C·sample_weight up to {C.max():.3g}"
    # (Σ Cᵢxᵢxᵢᵀ near float64's limit fails its factorization before it is infinite)
    near_limit = 2 * np.log10(max(largest, 1e-300)) + np.log10(max(C.max(), 1e-300) * X.shape[0]) > 300
    if "not finite" in str(error) or near_limit:
        return True, (f"LinearSVC's primal gradient or Newton matrix I + 2ΣCᵢxᵢxᵢᵀ overflowed float64 ({scale}); "
                      "rescale the features or the weights, or use dual=True.")
    return False, (f"LinearSVC's primal Newton matrix I + 2ΣCᵢxᵢxᵢᵀ lost its positive definiteness to rounding "
                   f"in {np.dtype(_data(X).dtype).name} ({scale}; collinear features?); lower C, or use dual=True.")


def _rounding_floor(X):
    """The primal Newton's rounding stop, ‖∇P‖₂ ≤ floor·max(‖w‖₂, ‖Σ_I …‖₂) (the two terms that cancel
    in ∇P): the level below which X's precision cannot bring the gradient (a float32 X: products
    summed in float32 blocks; ‖∇P‖ ≤ tol·‖w‖ was out of reach, and 1,000 Newton steps ran to max_iter)."""
    return 100.0 * float(np.finfo(_data(X).dtype).eps)


def _linear_svc_dual(X, y, C, bias, squared, tol, max_iter, seed):
    """One binary problem (y ∈ ±1) by dual coordinate descent; returns (w with bias weight last, dual curve)."""
    w = np.zeros((1, X.shape[1] + 1))
    history = np.empty(max_iter)
    _, n_iter = dual_cd(binary_problem(X, y, C, bias, squared), tol, max_iter, seed, w, history)
    return w[0], history[:n_iter]
