"""The penalized log loss of linear classifiers (logistic and softmax regression) and its minimization.

Parameters are one flat vector θ holding, per score vector v, the weights wᵥ and (with an
intercept) bᵥ; the scores are zᵥ = wᵥ·x + bᵥ. Three models share the code:

- ``"binary"``: one score, P(y = 1 | x) = σ(z), loss ℓ = log(1 + eᶻ) − y z;
- ``"full"``: k scores, P(y = l | x) = softmax(z)ₗ, loss ℓ = logsumexp(z) − z_y;
- ``"reference"``: k − 1 scores and the last class's score fixed at 0 (the notes' k − 1 form).

The objective is the weighted mean loss plus penalties on the weights (never the intercepts):

    f(θ) = (1/S) Σᵢ sᵢ ℓᵢ + ½ λ₂ ‖W‖² (+ λ₁ ‖W‖₁ handled by a proximal step),   S = Σᵢ sᵢ,

which for λ₂ = 1/(C S) has scikit-learn's minimizer of C Σ sᵢ ℓᵢ + ½‖W‖².

With an intercept, θ holds the intercepts b′ᵥ = bᵥ + wᵥ·x̄ of the features centred at their
weighted means x̄ (the same f, as intercepts are not penalized; no centred copy of X is made):
uncentred, a feature of mean 1e7 and spread 1 left L-BFGS at a point it took for the minimum with
probabilities 0.5 away from the optimum's.
"""

from contextlib import nullcontext

import numpy as np
import scipy.sparse
import scipy.special

from ..optim.gradient_descent import gradient_descent
from ..optim.newton import newton
from ..optim.proximal_gradient import proximal_gradient, soft_threshold
from ..optim.quasi_newton import lbfgs
from ..optim.scaling import diagonally_scaled, linear_model_scales
from ..optim.sgd import sgd
from ..utils.centered import CentredFeatures, centered_gram, uncentred
from ..utils.linalg import blas_threads

__all__ = ["LogLoss", "minimize_log_loss", "preconditioned", "weight_mask"]

# L-BFGS and Newton stop on the gradient; the change of f only stops them when it is at round-off
# level (SciPy's L-BFGS-B uses the same 64ε guard).
_FTOL = 64 * np.finfo(np.float64).eps
# Up to this many entries of X, the fit keeps BLAS on one thread (see minimize_log_loss).
SMALL_PRODUCT = 2**20
# The rows argument meaning every sample (distinct from a slice, which would copy a sparse X).
ALL = None
# Epochs of plain decaying-step SGD before the variance-reduced ones (see minimize_log_loss).
SGD_PLAIN_EPOCHS = 1
# Rows per block of a full evaluation (f and ∇f): 32,768 rows × 10 classes of float64 is 2.5 MiB.
BLOCK_ROWS = 32_768


class LogLoss(CentredFeatures):
    """f, ∇f and ∇²f of the penalized mean log loss; the last evaluation is cached.

    ``y`` holds class indices 0 … k−1 (0/1 for ``"binary"``).
    """

    # The probabilities are kept after an evaluation only for Newton's Hessian; the other solvers
    # let the gradient overwrite them (one n × k array fewer at 1,000,000 samples).
    keep_probabilities = False

    def __init__(self, X, y, n_classes, sample_weight, l2, fit_intercept, model, x_mean=None):
        """``x_mean``: the centre x̄ (default: X's means, weighted; a chunk of a larger X passes the
        whole table's). Without an intercept, no centring."""
        # 0/1 labels in X's precision, so that float32 data give float32 residuals (no float64 copy of X).
        self.X, self.y, self.model = X, (y.astype(X.dtype) if model == "binary" else y), model
        self.fit_intercept, self.l2 = fit_intercept, l2
        self.n_vectors = {"binary": 1, "full": n_classes, "reference": n_classes - 1}[model]
        self.n_classes = n_classes
        self.weight = sample_weight
        self.unweighted = sample_weight is None  # then sᵢ = 1: no products with the weights, no array of ones
        self.weight_sum = float(X.shape[0] if sample_weight is None else sample_weight.sum())
        self.size = self.n_vectors * (X.shape[1] + fit_intercept)
        self._set_centre(X, sample_weight, fit_intercept, x_mean)
        self._cached = None

    def unpack(self, theta):
        """(W of shape (n_vectors, d), b′ of shape (n_vectors,)): θ's own intercepts, those of the
        centred features."""
        theta = theta.reshape(self.n_vectors, -1)
        if self.fit_intercept:
            return theta[:, :-1], theta[:, -1]
        return theta, np.zeros(self.n_vectors)

    def coefficients(self, theta):
        """(W, b) of the scores z = Wx + b on X itself."""
        return uncentred(*self.unpack(theta), self.x_mean)

    def _rows(self, rows):
        # Indexing a sparse matrix copies it, even with a full slice.
        return self.X if rows is ALL else self.X[rows]

    def scores(self, theta, rows=ALL, X_rows=None):
        """Zᵀ = W Xᵀ + b, class-major (n_vectors × rows), in X's precision (a float32 X is multiplied
        as float32: no float64 copy of it). ``X_rows``: ``X[rows]`` when the caller has it already.

        Class-major because every per-sample step reduces over the k classes: along axis 0 these
        are k − 1 element-wise operations on contiguous rows of n numbers, where a reduction along
        a short last axis is a loop of n tiny ones (on digits, 1,437 × 10: an evaluation 0.5 → 0.35 ms).
        """
        W, b = self.coefficients(theta)
        X_rows = self._rows(rows) if X_rows is None else X_rows
        W, b = W.astype(self.X.dtype, copy=False), b.astype(self.X.dtype, copy=False)[:, None]
        if scipy.sparse.issparse(X_rows):
            return np.ascontiguousarray((X_rows @ W.T).T) + b
        return W @ X_rows.T + b  # one BLAS product, Xᵀ read in place

    def _evaluate(self, theta, rows=ALL, X_rows=None):
        """(Σ sᵢℓᵢ, ∂(sᵢℓᵢ)/∂zᵢ, probabilities) over ``rows``; the last two class-major (v × rows)."""
        Z = self.scores(theta, rows, X_rows)
        y = self.y if rows is ALL else self.y[rows]
        s = None if self.unweighted else (self.weight if rows is ALL else self.weight[rows])
        if self.model == "binary":
            z = Z[0]
            losses = np.logaddexp(0.0, z) - y * z
            prob = scipy.special.expit(z)
            dZ = (prob - y)[None, :]
        else:
            free = np.flatnonzero(y < self.n_vectors)  # the reference class has score 0
            own_class = y[free]
            own = np.zeros(len(y), dtype=Z.dtype)
            own[free] = Z[own_class, free]
            shift = Z.max(axis=0)
            if self.model == "reference":
                shift = np.maximum(shift, 0.0)  # the fixed zero score takes part in the max
            # In place on Z (a fresh array): Z − shift, its exponential, the probabilities.
            Z -= shift
            E = np.exp(Z, out=Z)
            total = E.sum(axis=0)
            if self.model == "reference":
                total += np.exp(-shift)
            losses = shift + np.log(total) - own
            prob = np.divide(E, total, out=E)
            dZ = prob.copy() if self.keep_probabilities else prob  # else the gradient overwrites them
            dZ[own_class, free] -= 1.0
        # The total is accumulated in float64 whatever the data's precision.
        if self.unweighted:
            return float(losses.sum(dtype=np.float64)), dZ, prob
        return float(s @ losses.astype(np.float64, copy=False)), dZ * s.astype(dZ.dtype), prob

    def _data_gradient(self, weighted_dZ, rows, X_rows=None):
        """Σ over ``rows`` of ∂(sᵢℓᵢ)/∂θ, shaped (n_vectors, d [+ 1]), in float64; ``weighted_dZ`` is
        class-major (v × rows)."""
        X_rows = self._rows(rows) if X_rows is None else X_rows
        # (Xᵀ dZᵀ)ᵀ: the transpose of a CSR matrix is a CSC one, whose product with a dense matrix SciPy
        # computes without converting; for a dense X it is one BLAS product with both operands in place.
        grad_W = (X_rows.T @ weighted_dZ.T).T.astype(np.float64)
        if not self.fit_intercept:
            return grad_W
        sums = weighted_dZ.sum(axis=1, dtype=np.float64)
        grad_W -= np.outer(sums, self.x_mean)  # (X − 1x̄ᵀ)ᵀ dZᵀ
        return np.hstack([grad_W, sums[:, None]])

    def _penalty_gradient(self, theta):
        W, _ = self.unpack(theta)
        return np.hstack([self.l2 * W, np.zeros((self.n_vectors, int(self.fit_intercept)))])

    def _compute(self, theta):
        if self._cached is None or not np.array_equal(self._cached[0], theta):
            # By blocks of rows, so that the scores and their temporaries take O(block · k) memory
            # rather than several n × k arrays; Newton keeps the n × k probabilities for its Hessian.
            # A sparse X is taken whole: a block of it would be a copy of its rows (at 100,000 ×
            # 50,000 with 100 entries per row, 89 MiB of peak memory against 11 in one pass).
            n = self.X.shape[0]
            one_pass = self.keep_probabilities or n <= 2 * BLOCK_ROWS or scipy.sparse.issparse(self.X)
            blocks = [ALL] if one_pass else [slice(a, min(n, a + BLOCK_ROWS)) for a in range(0, n, BLOCK_ROWS)]
            total, data_grad, prob = 0.0, 0.0, None
            for rows in blocks:
                X_rows = self._rows(rows)  # a view of dense X, a copy of a sparse block
                block_total, weighted_dZ, prob = self._evaluate(theta, rows, X_rows)
                total += block_total
                data_grad = data_grad + self._data_gradient(weighted_dZ, rows, X_rows)
            W, _ = self.unpack(theta)
            f = total / self.weight_sum + 0.5 * self.l2 * float(np.sum(W * W))
            grad = (data_grad / self.weight_sum + self._penalty_gradient(theta)).ravel()
            self._cached = (theta.copy(), f, grad, prob if one_pass else None)
        return self._cached

    def fun(self, theta):
        return self._compute(theta)[1]

    def grad(self, theta):
        return self._compute(theta)[2]

    def batch_data_grad(self, theta, idx):
        """The mean over ``idx`` of the gradients of the per-sample terms (n/S) sᵢℓᵢ, whose mean is the
        data part of f (the penalty is left to a proximal step)."""
        _, weighted_dZ, _ = self._evaluate(theta, idx)
        scale = self.X.shape[0] / (self.weight_sum * len(idx))
        return (scale * self._data_gradient(weighted_dZ, idx)).ravel()

    def hessian(self, theta):
        """∇²f: blocks Xᵀ diag(sᵢ pᵢₗ(δₗₘ − pᵢₘ)) X / S (+ λ₂ I on the weights), intercepts included."""
        prob = self._compute(theta)[3]
        if self.model == "binary":
            prob = prob[None, :]
        s = np.full(self.X.shape[0], 1.0 / self.weight_sum) if self.unweighted else self.weight / self.weight_sum
        d, p, v = self.X.shape[1], self.X.shape[1] + self.fit_intercept, self.n_vectors
        H = np.empty((v * p, v * p))
        for l in range(v):
            for m in range(l, v):
                block = self._weighted_gram(prob[l] * ((l == m) - prob[m]) * s)
                H[l * p:(l + 1) * p, m * p:(m + 1) * p] = block
                H[m * p:(m + 1) * p, l * p:(l + 1) * p] = block.T
        penalized = np.tile(np.r_[np.ones(d), np.zeros(int(self.fit_intercept))], v)
        H[np.diag_indices_from(H)] += self.l2 * penalized
        if self.model == "full":
            _fill_shift_directions(H, v, p, ~penalized.astype(bool)[:p] if self.l2 > 0 else np.ones(p, bool))
        return H

    def _weighted_gram(self, c):
        """[Xc 1]ᵀ diag(c) [Xc 1] (Xc = X − 1x̄ᵀ) without building it, by ``centered_gram``.

        c is one-signed: pₗ(1 − pₗ)sᵢ ≥ 0 in the Hessian's diagonal blocks, −pₗpₘsᵢ ≤ 0 off them."""
        sign = -1.0 if c.sum() < 0 else 1.0
        gram, column = centered_gram(self.X, np.ones((len(c), 1)), np.maximum(sign * c, 0.0), self.x_mean,
                                     np.zeros(1), at_means=False)
        gram, column = sign * gram, sign * column
        if not self.fit_intercept:
            return gram
        return np.block([[gram, column], [column.T, np.array([[c.sum()]])]])

    def weight_mask(self):
        """True on the entries of θ that are weights (penalized), False on intercepts."""
        return weight_mask(self.n_vectors, self.X.shape[1], self.fit_intercept)


def weight_mask(n_vectors, n_features, fit_intercept):
    """True on the entries of a flat θ (n_vectors blocks of weights [+ intercept]) that are weights."""
    mask = np.ones((n_vectors, n_features + fit_intercept), dtype=bool)
    if fit_intercept:
        mask[:, -1] = False
    return mask.ravel()


def _fill_shift_directions(H, v, p, free):
    """Make H positive definite along the directions that change no probability (in place).

    With one score vector per class (the "full" softmax), adding the same number to every
    class's coordinate j leaves every probability unchanged; where nothing penalizes coordinate
    j (the intercepts; every coordinate without L2) f is flat along u_j = (e_j, …, e_j), so H is
    singular there and a Newton step's component along u_j is rounding noise divided by
    rounding noise: it differed with X's memory layout, and the line search then shortened the
    useful part of the step too. The gradient is orthogonal to every u_j (Σ_l (p_il − y_il) = 0),
    so adding c·u_juⱼᵀ to H changes no other component of the step and makes this one zero: the
    minimum-norm Newton step.
    """
    columns = np.flatnonzero(free)
    # On the scale of the curvature of those coordinates themselves (not of the penalized ones,
    # which a strong L2 makes 1e300 times larger: added here, that would swamp the data's part).
    diagonal = np.abs(np.diag(H)).reshape(v, p)[:, columns]
    scale = max(float(diagonal.mean()) if diagonal.size else 0.0, np.finfo(float).tiny)
    for j in columns:
        rows = np.arange(v) * p + j
        H[np.ix_(rows, rows)] += scale


def minimize_log_loss(loss, theta0, *, solver, l1=0.0, max_iter=100, tol=1e-4, eta0=0.5, batch_size=32,
                      shuffle=True, random_state=None):
    """Minimize ``loss`` (+ l1‖W‖₁) with one of the notes' solvers; return the OptimizeResult.

    - ``"lbfgs"``: L-BFGS with a Wolfe line search;
    - ``"newton"``: Newton's method (IRLS: the Hessian XᵀSX is a weighted least-squares matrix);
    - ``"gd"``: gradient descent with backtracking, or proximal gradient (ISTA) with an L1 term;
    - ``"sgd"``: mini-batches reshuffled every epoch (in the data's order with ``shuffle=False``,
      the notes' online learner). The first epoch is plain SGD with step γₖ = η₀/(1 + k/u) after k
      updates, u per epoch (the notes' c₁/(k + c₂) with c₂ = u, c₁ = η₀u), the gradient being the
      data term's and the penalty applied after each step by its proximal map (L2: the shrinkage
      W ← W/(1 + γλ₂), stable for any step; L1: the cumulative penalty); one such epoch from zero
      with batch size 1 is the online learner of seed 000 §10. The following epochs are
      variance-reduced (SVRG; Prox-SVRG with soft-thresholding for L1, see
      :func:`lucidml.optim.sgd`), so that the iterates converge to the minimizer itself rather
      than to a neighbourhood whose size the step's decay sets: on
      standardized breast cancer a decaying step alone is still 12 % above the optimum after 500
      epochs at C = 1, where these epochs reach 1e-4 in a few dozen.

    All stop when ‖∇f‖∞ ≤ tol (at an epoch's end for ``"sgd"``: a small change of f between two
    epochs of decaying steps says little about the distance to the minimum); with L1, ``"gd"``
    and ``"sgd"`` read the gradient mapping instead, which is zero exactly at the minimizer.
    """
    if l1 > 0 and solver not in ("gd", "sgd"):
        raise ValueError(f"penalty='l1' needs solver='gd' or 'sgd' (a proximal step); got solver={solver!r}.")
    # Matrix–vector products on up to a million entries take under a millisecond on one thread: a
    # second BLAS thread saves nothing then, and stalls the whole product when another process
    # takes its core (benchmarks.contention: 3.3× slower beside a busy process, against 1.8×).
    loss.keep_probabilities = solver == "newton"
    stored = loss.X.nnz if scipy.sparse.issparse(loss.X) else loss.X.size
    with blas_threads(1) if stored <= SMALL_PRODUCT else nullcontext():
        return _minimize(loss, theta0, solver, l1, max_iter, tol, eta0, batch_size, shuffle, random_state)


def _minimize(loss, theta0, solver, l1, max_iter, tol, eta0, batch_size, shuffle, random_state):
    mask = loss.weight_mask()

    def prox(theta, gamma):
        """The proximal map of γ(λ₁‖W‖₁ + ½λ₂‖W‖²): soft-thresholding, then the shrinkage 1/(1 + γλ₂)."""
        out = theta.copy()
        out[mask] = soft_threshold(theta[mask], gamma * l1) / (1.0 + gamma * loss.l2)
        return out

    if solver == "newton":
        return newton(loss.fun, theta0, loss.grad, loss.hessian, max_iter=max_iter, tol=tol, ftol=_FTOL)
    if solver == "lbfgs":
        return preconditioned(loss, theta0, mask, lambda fun, x0, grad: lbfgs(
            fun, x0, grad, max_iter=max_iter, tol=tol, ftol=_FTOL))
    if solver == "gd":
        if l1 > 0:  # λ₂ = 0 with L1 (the models take one penalty): prox is the soft-thresholding alone
            return proximal_gradient(loss.fun, theta0, loss.grad, prox, h=lambda t: l1 * np.abs(t[mask]).sum(),
                                     max_iter=max_iter, tol=tol)
        return preconditioned(loss, theta0, mask, lambda fun, x0, grad: gradient_descent(
            fun, x0, grad, lr=1.0, max_iter=max_iter, tol=tol, ftol=_FTOL))
    n = loss.X.shape[0]
    batch_size = min(batch_size, n)
    updates_per_epoch = -(-n // batch_size)
    # The stopping test and the history read the whole objective, L1 term included.
    objective = (lambda t: loss.fun(t) + l1 * np.abs(t[mask]).sum()) if l1 > 0 else loss.fun
    # The penalties enter through their proximal map, exact for any step: a strong L2 term (λ₂ = 1/(C S)
    # is 1e297 for weights of 1e-300) would make a gradient step on it overshoot and diverge.
    penalized = l1 > 0 or loss.l2 > 0
    return sgd(objective, theta0, loss.batch_data_grad, n_samples=n, batch_size=batch_size,
               order="shuffle" if shuffle else "cyclic", schedule="c1_c2", c1=eta0 * updates_per_epoch,
               c2=updates_per_epoch, max_iter=max_iter, tol=tol, ftol=0.0, random_state=random_state,
               prox=prox if penalized else None, online_prox=_cumulative_l1(mask, l1) if l1 > 0 else None,
               variance_reduced_from=SGD_PLAIN_EPOCHS + 1)


def preconditioned(loss, theta0, mask, run):
    """``run(fun, x0, grad)`` on θ rescaled to the curvature of its weights: u = Dθ with
    Dⱼ = √(σⱼ² + λ₂) on the weight of feature j (σⱼ its spread about the centre) and 1 on the
    intercepts; the OptimizeResult in θ (:func:`lucidml.optim.scaling.diagonally_scaled`).

    ``loss`` has ``fun``, ``grad``, ``l2``, ``x_spread``, ``n_vectors`` and ``fit_intercept`` (a
    :class:`LogLoss`, or the dask models' chunked one, which run the same iterates); ``mask`` is
    :func:`weight_mask`.

    A weight's curvature is about σⱼ²h + λ₂ (h ≤ ¼, the loss's). In u it is about 1 whatever the
    features' units and whatever λ₂: raw breast cancer's features (spreads from 3e-3 to 350) left
    L-BFGS at max_iter where the standardized table converges in 22 iterations, and at sample
    weights of 1e-300 (or C = 1e-300) λ₂ = 1/(C S) is 1e300 against an intercept curvature of at
    most ¼, where gradient descent and L-BFGS took steps of 1/λ₂ and never moved the intercept from
    0. On standardized features with λ₂ ≪ 1 nothing changes. The stopping test reads ∇ᵤf = D⁻¹∇f:
    the gradient with respect to the standardized features' weights.
    """
    d = linear_model_scales(loss.x_spread, loss.l2, loss.fit_intercept, loss.n_vectors)
    return diagonally_scaled(run, loss.fun, loss.grad, theta0, d)


def _cumulative_l1(mask, l1):
    """The L1 step of SGD with the cumulative penalty (Tsuruoka, Tsujii & Ananiadou 2009).

    Soft-thresholding every noisy step by γₖλ leaves a weight that should be 0 jittering around
    it. Instead each weight may receive, in total, the penalty u = Σₖ γₖλ accumulated so far:
    after a gradient step a positive w becomes max(0, w − (u + qⱼ)) and a negative one
    min(0, w + (u − qⱼ)), qⱼ being the penalty it has already received. A weight whose gradients
    do not outweigh the penalty lands on exactly 0 and stays there.
    """
    penalty = {"total": 0.0, "received": np.zeros(int(np.count_nonzero(mask)))}

    def prox(theta, gamma):
        penalty["total"] += gamma * l1
        total, received = penalty["total"], penalty["received"]
        w = theta[mask]
        shrunk = np.where(w > 0, np.maximum(0.0, w - (total + received)),
                          np.where(w < 0, np.minimum(0.0, w + (total - received)), 0.0))
        received += shrunk - w
        out = theta.copy()
        out[mask] = shrunk
        return out

    return prox
