"""Compiled epochs of the online linear classifiers: one pass over the rows in a given order.

X is a dense array or a CSR matrix as :class:`~._rows.SparseRows`: rows are read through
:func:`~._rows.row_dot` and :func:`~._rows.row_add`. Every kernel updates the weights in place
and handles all one-vs-rest problems in the same pass (each row is read from memory once, not
once per class); a problem whose ``active`` flag is off is left untouched. Dot products are
summed left to right, the order scikit-learn's SGD uses, so that with the same sample order
both libraries take bit-for-bit the same steps.
"""

from collections import namedtuple

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

from ..utils import njit
from ..utils.rows import row_add, row_dot

# How many rows ahead of the current one to ask the memory system for. In a shuffled epoch
# each row is a cache miss; a prefetch hides most of it (×2 faster epochs on 100k×50).
_PREFETCH_AHEAD = 4

# The rows an epoch passes over: X (an array or SparseRows), the ±1 targets Y (n_samples,
# n_problems) of the one-vs-rest problems, and the samples' weights.
TrainingRows = namedtuple("TrainingRows", ["X", "Y", "weight"])

# What the one-vs-rest problems learn, updated in place: coef (n_problems, n_features), intercept,
# and the steps each problem has taken (the perceptron's rows, Adaline's updates).
Weights = namedtuple("Weights", ["coef", "intercept", "steps"])

# The perceptron's lazy averaging from step ``start`` (0: off): the lagged sums of its updates.
Averaging = namedtuple("Averaging", ["start", "lagged_coef", "lagged_intercept"])

# Adaline's mini-batch SGD: rows per batch, and the rate η_k = eta0 / ((t0 + k)/t0)^power_t.
Schedule = namedtuple("Schedule", ["batch_size", "eta0", "power_t", "t0"])


if numba.config.DISABLE_JIT:  # plain Python: a prefetch is only a hint

    def prefetch(X, i, j):
        pass

else:

    @intrinsic
    def prefetch(typingctx, X, i, j):
        """Hint that X[i, j] will soon be read (LLVM's prefetch: read, keep in all cache levels)."""
        sig = types.void(X, i, j)

        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            array = context.make_array(array_type)(context, builder, args[0])
            index = [context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], signature.args[1:])]
            pointer = cgutils.get_item_pointer(context, builder, array_type, array, index, wraparound=False)
            byte_pointer = ir.IntType(8).as_pointer()
            int32 = ir.IntType(32)
            prefetch_type = ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32])
            llvm_prefetch = cgutils.get_or_insert_function(builder.module, prefetch_type, "llvm.prefetch.p0")
            hint = [ir.Constant(int32, v) for v in (0, 3, 1)]  # read, high locality, data cache
            builder.call(llvm_prefetch, [builder.bitcast(pointer, byte_pointer), *hint])
            return context.get_dummy_value()

        return sig, codegen


def _prefetch_dense_row(X, order, s):
    ahead = s + _PREFETCH_AHEAD
    if ahead < order.shape[0]:
        row = order[ahead]
        n_features = X.shape[1]
        for j in range(0, n_features, 8):
            prefetch(X, row, j)
        prefetch(X, row, n_features - 1)  # a row need not start on a line boundary


def _no_prefetch(X, order, s):
    pass


def prefetch_row(X, order, s):
    """Prefetch the row ``order[s + _PREFETCH_AHEAD]`` of a dense X, one call per 64-byte cache line
    (a hint: nothing in plain Python, nothing for a sparse X, whose short rows are few lines)."""


if not numba.config.DISABLE_JIT:

    @overload(prefetch_row, inline="always")
    def _prefetch_row(X, order, s):
        return _prefetch_dense_row if isinstance(X, types.Array) else _no_prefetch


@njit
def perceptron_epoch(rows, order, active, weights, eta, fit_intercept, averaging):
    """Rosenblatt's rule on every row: if y·z ≤ 0 then w ← w + η s y x, b ← b + η s y.

    ``rows``: the :class:`TrainingRows`, visited in ``order``; ``weights``: the :class:`Weights`
    of the problems whose ``active`` flag is on, updated in place. Returns the summed weighted
    perceptron loss Σ sᵢ max(0, −yᵢzᵢ) and the number of mistakes per problem. ``steps`` counts
    the rows seen (one step per row). With :class:`Averaging` from step r₀ = ``averaging.start``
    (0: off), its ``lagged_*`` accumulate Σ (r − r₀) Δw_r over the updates of steps r ≥ r₀; the
    mean of w over those K steps is then w − lagged / K (lazy averaging: O(d) work per mistake
    instead of per step).
    """
    X, Y, weight = rows.X, rows.Y, rows.weight
    coef, intercept, steps = weights.coef, weights.intercept, weights.steps
    average_start, lagged_coef, lagged_intercept = averaging.start, averaging.lagged_coef, averaging.lagged_intercept
    n_samples = X.shape[0]
    n_problems = coef.shape[0]
    loss = np.zeros(n_problems)
    mistakes = np.zeros(n_problems, dtype=np.int64)
    for s in range(n_samples):
        prefetch_row(X, order, s)
        i = order[s]
        for c in range(n_problems):
            if not active[c]:
                continue
            steps[c] += 1
            z = row_dot(X, i, coef, c) + intercept[c]
            yz = Y[i, c] * z
            if yz > 0.0 or weight[i] == 0.0:
                continue
            loss[c] += weight[i] * -yz
            mistakes[c] += 1
            update = eta * Y[i, c] * weight[i]
            row_add(X, i, coef, c, update)
            if fit_intercept:
                intercept[c] += update
            lag = steps[c] - average_start
            if average_start > 0 and lag > 0:
                lagged = lag * update
                row_add(X, i, lagged_coef, c, lagged)
                if fit_intercept:
                    lagged_intercept[c] += lagged
    return loss, mistakes


@njit
def adaline_minibatch_epoch(rows, order, active, weights, fit_intercept, schedule):
    """Widrow–Hoff on mini-batches B of consecutive rows of ``order``:

        w ← w + η_k/|B| Σ_{i∈B} sᵢ (yᵢ − zᵢ) xᵢ,   b ← b + η_k/|B| Σ_{i∈B} sᵢ (yᵢ − zᵢ),

    all zᵢ computed with the weights at the start of the batch; ``rows``: the :class:`TrainingRows`;
    ``weights``: the :class:`Weights` of the problems whose ``active`` flag is on, updated in
    place. The :class:`Schedule`: ``batch_size`` rows per batch (1 is plain SGD) and
    η_k = eta0 / ((t0 + k)/t0)^power_t with k = ``weights.steps`` (updates made so far);
    power_t = 0 is the constant rate. Returns Σ ½ sᵢ (yᵢ − zᵢ)² per problem, each term taken
    just before the update that uses it.
    """
    X, Y, weight = rows.X, rows.Y, rows.weight
    coef, intercept, steps = weights.coef, weights.intercept, weights.steps
    batch_size, eta0, power_t, t0 = schedule.batch_size, schedule.eta0, schedule.power_t, schedule.t0
    n_samples = X.shape[0]
    n_problems = coef.shape[0]
    loss = np.zeros(n_problems)
    eta = np.zeros(n_problems)
    scaled_residual = np.zeros((batch_size, n_problems))
    for start in range(0, n_samples, batch_size):
        stop = min(start + batch_size, n_samples)
        size = stop - start
        for c in range(n_problems):
            if active[c]:
                eta[c] = eta0 / ((t0 + steps[c]) / t0) ** power_t
                steps[c] += 1
        for s in range(start, stop):  # residuals, all with the weights at the batch start
            prefetch_row(X, order, s)
            i = order[s]
            for c in range(n_problems):
                if not active[c]:
                    continue
                z = row_dot(X, i, coef, c) + intercept[c]
                residual = Y[i, c] - z
                loss[c] += 0.5 * residual * residual * weight[i]
                scaled_residual[s - start, c] = eta[c] * residual * weight[i] / size
        for s in range(start, stop):  # then one step along the batch's mean gradient
            i = order[s]
            for c in range(n_problems):
                if not active[c]:
                    continue
                update = scaled_residual[s - start, c]
                row_add(X, i, coef, c, update)
                if fit_intercept:
                    intercept[c] += update
    return loss


@njit
def adaline_batch_step(rows, weights, active, fit_intercept, eta):
    """One gradient step on J = 1/(2n) Σ sᵢ (yᵢ − zᵢ)² per active problem, in one pass over X:

        w ← w + η/n Σᵢ sᵢ (yᵢ − zᵢ) xᵢ,   b ← b + η/n Σᵢ sᵢ (yᵢ − zᵢ).

    ``rows``: the :class:`TrainingRows`; ``weights``: the :class:`Weights` (coef and intercept
    updated in place; the caller counts the step); ``eta``: each problem's rate. A loop rather
    than two BLAS products: it reads X once, and small multi-threaded BLAS calls repeated
    thousands of times are slow on busy machines. Returns J per problem before the step.
    """
    X, Y, weight = rows.X, rows.Y, rows.weight
    coef, intercept = weights.coef, weights.intercept
    n_samples, n_features = X.shape
    n_problems = coef.shape[0]
    loss = np.zeros(n_problems)
    descent = np.zeros((n_problems, n_features))  # −∇_w J · n
    descent_intercept = np.zeros(n_problems)
    for i in range(n_samples):
        for c in range(n_problems):
            if not active[c]:
                continue
            residual = Y[i, c] - (row_dot(X, i, coef, c) + intercept[c])
            loss[c] += 0.5 * weight[i] * residual * residual
            weighted = weight[i] * residual
            row_add(X, i, descent, c, weighted)
            descent_intercept[c] += weighted
    for c in range(n_problems):
        if active[c]:
            step = eta[c] / n_samples
            for j in range(n_features):
                coef[c, j] += step * descent[c, j]
            if fit_intercept:
                intercept[c] += step * descent_intercept[c]
    return loss / n_samples
