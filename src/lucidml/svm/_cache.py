"""The kernel-column cache of the SMO solver: least recently used columns k(x_s, ·), computed on demand.

SMO needs two columns of the kernel matrix per iteration and revisits the same few (those of
the free support vectors) over and over, so keeping recent columns avoids most recomputation
(Joachims 1998; Chang & Lin 2011 §5). Columns are indexed by sample, hold one float64 per sample,
and while variables are shrunk away only the entries of *active* samples are filled in: a column
computed for one active set stays valid for every later subset of it. The generation number
counts the times the active set grew back; a partial column of an older generation is stale.

With kind = 0 the "cache" is the whole Gram matrix and nothing is ever computed.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit
from ..utils.rows import as_rows
from ._kernel import kernel_column, kernel_column_all, kernel_map, row_norms

__all__ = ["ColumnCache", "KernelData", "column", "diagonal", "kernel_data", "make_cache", "set_active"]

# The kernel of the training samples: rows of X (kind 1–4) or their Gram matrix (kind 0), and its parameters.
KernelData = namedtuple("KernelData", ["X", "gram", "kind", "gamma", "coef0", "degree"])

# The cache of kernel columns (make_cache); kernel_column and kernel_column_all take the kernel and scratch from it.
ColumnCache = namedtuple("ColumnCache", [
    "X", "sq", "kind", "gamma", "coef0", "degree",  # the kernel
    "rows",  # (n_slots, n_samples) the cached columns, or the Gram matrix when kind = 0
    "slot_of", "owner", "last", "slot_gen", "slot_full",  # sample → slot, slot → sample, LRU clock, validity
    "state",  # [clock, generation, slots used, number of active samples, number of inactive samples]
    "act_s", "inact_s",  # sorted active and inactive samples
    "buf", "work",  # scratch for one column
    "scratch",  # (1, n_features) zeros: a sparse sample scattered while its column is computed
])


def kernel_data(X, gram, kind, gamma, coef0, degree):
    """A :data:`KernelData` (X dense or CSR), its scalars cast to the types the solver is compiled for."""
    return KernelData(as_rows(X), gram, int(kind), float(gamma), float(coef0), int(degree))


@njit
def make_cache(kernel, n_slots):
    """An empty cache of at most ``n_slots`` columns of ``kernel`` (a :data:`KernelData`)."""
    X, gram, kind, gamma, coef0, degree = kernel.X, kernel.gram, kernel.kind, kernel.gamma, kernel.coef0, kernel.degree
    n_s = gram.shape[0] if kind == 0 else X.shape[0]
    if kind == 0:
        rows = gram
        sq = np.empty(0)
    else:
        rows = np.empty((max(2, min(n_slots, n_s)), n_s))
        sq = row_norms(X)  # summed as the columns sum xᵢᵀxⱼ, so k(x, x) comes out exact
    n_rows = rows.shape[0]
    state = np.zeros(5, dtype=np.int64)
    state[3] = n_s
    return ColumnCache(X, sq, kind, gamma, coef0, degree, rows, np.full(n_s, -1, dtype=np.int64),
                       np.full(n_rows, -1, dtype=np.int64), np.zeros(n_rows, dtype=np.int64),
                       np.zeros(n_rows, dtype=np.int64), np.zeros(n_rows, dtype=np.bool_), state,
                       np.arange(n_s), np.empty(n_s, dtype=np.int64), np.empty(n_s), np.empty(n_s),
                       np.zeros((1, X.shape[1])))


@njit
def diagonal(cc):
    """k(x_s, x_s) for every sample."""
    if cc.kind == 0:
        return np.diag(cc.rows).copy()
    out = cc.sq.copy()
    if cc.kind == 3:
        out[:] = 1.0
    else:
        kernel_map(out, out.shape[0], cc.kind, cc.gamma, cc.coef0, cc.degree, np.empty(out.shape[0]))
    return out


@njit
def _fill(cc, s, slot, rows, n_rows):
    kernel_column(cc, s, rows, n_rows, cc.rows[slot])


@njit
def column(cc, s, full):
    """The cached column k(x_s, ·): valid on the active samples, or on every sample when ``full``."""
    if cc.kind == 0:
        return cc.rows[s]
    state = cc.state
    state[0] += 1
    n_act, n_inact = state[3], state[4]
    slot = cc.slot_of[s]
    if slot >= 0:
        cc.last[slot] = state[0]
        if cc.slot_full[slot]:
            return cc.rows[slot]
        if cc.slot_gen[slot] == state[1]:
            if full:  # only the inactive samples are missing
                _fill(cc, s, slot, cc.inact_s, n_inact)
                cc.slot_full[slot] = True
            return cc.rows[slot]
    else:
        if state[2] < cc.rows.shape[0]:
            slot = state[2]
            state[2] += 1
        else:  # evict the least recently used column
            slot = np.argmin(cc.last)
            cc.slot_of[cc.owner[slot]] = -1
        cc.owner[slot] = s
        cc.slot_of[s] = slot
        cc.last[slot] = state[0]
    if full or 2 * n_act >= n_act + n_inact:
        # Most samples needed: all of them by one BLAS product is cheaper than a gathered subset.
        kernel_column_all(cc, s, cc.rows[slot])
        cc.slot_full[slot] = True
    else:
        _fill(cc, s, slot, cc.act_s, n_act)
        cc.slot_full[slot] = False
    cc.slot_gen[slot] = state[1]
    return cc.rows[slot]


@njit
def set_active(cc, active, n_active, sample_of, grew):
    """Record which samples sit behind the active variables; ``grew``: the set is not a subset of the last."""
    if cc.kind == 0:
        return
    if grew:
        cc.state[1] += 1
    n_s = cc.act_s.shape[0]
    mark = np.zeros(n_s, dtype=np.bool_)
    for t in range(n_active):
        mark[sample_of[active[t]]] = True
    n_act = 0
    n_inact = 0
    for s in range(n_s):
        if mark[s]:
            cc.act_s[n_act] = s
            n_act += 1
        else:
            cc.inact_s[n_inact] = s
            n_inact += 1
    cc.state[3] = n_act
    cc.state[4] = n_inact
