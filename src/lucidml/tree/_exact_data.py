"""The exact search's data (``max_bins=None``): presorted columns, or X column by column for node sorting.

Two ways to give a node its samples in increasing order of a feature (``_builder.ExactData``):

- **presorted** (``_splitter``): every column's sample order is sorted once per fit (or once per
  ensemble, :func:`presort`) and every split partitions all of them, so no node ever sorts.
  Cost O(n·d·log n) once, then O(m·d) per node of m samples: the way for tall, narrow tables.
- **node-sorted** (``_node_sort``): a node sorts its samples by a feature only when it draws it,
  O(m log m) per feature examined and nothing for the others. The way for wide tables, where
  the presorted order of thousands of columns would be partitioned at every split, and for
  forests, whose nodes examine √d features of d. A tree that searches every feature reads them
  in column order from the rows of X (neighbouring columns share cache lines); one that draws
  some features at random gathers them from X copied column by column (:func:`column_table`,
  once per fit or ensemble), where a node's values of one feature lie close together.

:func:`node_sorted` chooses from the table's shape, its columns' numbers of distinct values and
``max_features``; both give the same tree (a tie between features goes to the same one either
way), up to the rounding of sums of non-integer weights.
"""

from collections import namedtuple

import numpy as np
import scipy.sparse

from ._builder import ExactData
from ._sparse_columns import SparseColumns

# The exact search's sample ids: unsigned, so that Numba loads y[i], w[i], x[i] at them without
# its negative-index wraparound (5–15% of a sweep), at no cost when the kernels run interpreted.
SAMPLE_IDS = np.uint32
# How the exact trees on one X search, and what they share, made once for an ensemble: when
# ``presorted``, the presorted ``order`` of X's columns (None: each tree sorts its own rows);
# else X copied column by column (``columns``; None: the trees read X's rows).
SharedTables = namedtuple("SharedTables", ["presorted", "order", "columns"])
_COLUMN_BLOCK = 256  # columns copied (and checked for float32 exactness) at a time
# A sparse X with categorical features is made dense for the exact search when the dense copy
# takes at most this many bytes; a larger one is grown on histograms of a binned copy (n × d
# bytes, ``_binning``). Without categorical features a sparse X is searched as it is (CSC).
SPARSE_DENSE_BYTES = 1 << 30
# A dense X with at most this share of nonzero values is searched as sparse (exact_search_input).
SPARSE_SEARCH_DENSITY = 0.1
_NO_HINTS = np.empty((0, 2))  # the two-value hints of the dense node-sorted search only (_builder.ExactData)


def node_sorted(X, max_features):
    """Whether trees on X drawing ``max_features`` features per node sort at their nodes rather
    than presort.

    Per node of m samples, presorting partitions every column, O(m) each; node sorting sorts the
    features the node draws, O(m · s) each, where s (about 2 + log₂ of a column's number of
    distinct values) is measured on a sample of rows: about 10 for continuous columns, 2–3
    for binary or small count columns, whose sort is one three-way partition. So node sorting
    wins when max_features · s < n_features (forests on many columns), and on tables of few
    distinct values whatever the draw (a count column is also constant in most small nodes,
    which node sorting then skips unread, where the presorted order is still partitioned).
    """
    n_features = X.shape[1]
    log_distinct = _mean_log_distinct(X)
    return log_distinct <= 2.0 or max_features * (2.0 + log_distinct) < n_features


def _mean_log_distinct(X, n_rows=256):
    """Mean over the columns of log₂(number of distinct values) in ``n_rows`` evenly spread rows."""
    rows = X[:: max(1, X.shape[0] // n_rows)][:n_rows]
    total = 0.0
    for j in range(0, X.shape[1], _COLUMN_BLOCK):
        block = np.sort(rows[:, j:j + _COLUMN_BLOCK], axis=0)
        distinct = 1 + np.count_nonzero(block[1:] != block[:-1], axis=0)
        total += float(np.log2(distinct).sum())
    return total / max(1, X.shape[1])


def presort(X):
    """Every column's sample order (NaN last): uint32 of shape (n_features, n_samples)."""
    order = np.empty((X.shape[1], X.shape[0]), SAMPLE_IDS)
    for f in range(X.shape[1]):  # one column at a time: the temporary memory of one column
        order[f] = np.argsort(X[:, f])
    return order


def column_table(X):
    """X column by column, C-contiguous (n_features, n_samples), for the node-sorted search.

    float32 when X is float32 or every value of X is exactly a float32 (counts, one-hot codes,
    small integers): half the memory and half the cache lines to gather from, the same values.
    Otherwise float64. Copied a block of columns at a time (the temporary memory of one block).
    """
    n_samples, n_features = X.shape
    table = np.empty((n_features, n_samples), np.float32)
    for j in range(0, n_features, _COLUMN_BLOCK):
        block = X[:, j:j + _COLUMN_BLOCK].T
        table[j:j + _COLUMN_BLOCK] = block
        if X.dtype != np.float32 and not np.array_equal(table[j:j + _COLUMN_BLOCK], block, equal_nan=True):
            del table
            return np.ascontiguousarray(X.T, dtype=np.float64)
    return table


def exact_search_input(tree, X):
    """X as the exact search of ``tree`` (a lucidml tree, or an ensemble's prototype member) reads
    it, made once for a fit or an ensemble.

    A sparse X becomes CSC (sorted indices, float64 values), whose nodes read only their nonzeros
    (``_sparse_columns``), growing the very trees of the same data dense. So does a dense X that
    the search would sort at its nodes (:func:`node_sorted`) when at most
    :data:`SPARSE_SEARCH_DENSITY` of its values are nonzero (a bag of words stored dense): its
    nodes then skip their zeros too. Trees with categorical features read dense columns: a sparse
    X is made dense for them when the copy takes at most :data:`SPARSE_DENSE_BYTES`, else grown on
    255 histogram bins (``_base.SPARSE_MAX_BINS``). Anything else is returned as it is.
    """
    from ._base import _BaseDecisionTree, _resolve_max_features  # (that module imports this one)
    from ._criteria import ABSOLUTE_ERROR

    if not isinstance(tree, _BaseDecisionTree) or tree.max_bins is not None or tree._criterion_code() == ABSOLUTE_ERROR:
        return X
    categorical = tree._categorical_mask(X.shape[1]).any()
    if not scipy.sparse.issparse(X):
        if categorical or _nonzero_share(X) > SPARSE_SEARCH_DENSITY:
            return X
        if not node_sorted(X, _resolve_max_features(tree.max_features, X.shape[1])):
            return X
        return _sorted_csc(X)
    if categorical:
        return X.toarray() if X.shape[0] * X.shape[1] * X.dtype.itemsize <= SPARSE_DENSE_BYTES else X
    return _sorted_csc(X)


def _nonzero_share(X, n_rows=1024):
    """The share of nonzero values (NaN counted) in ``n_rows`` evenly spread rows of a dense X."""
    rows = X[:: max(1, X.shape[0] // n_rows)][:n_rows]
    return np.count_nonzero(rows) / max(1, rows.size)


def _sorted_csc(X):
    """A sparse X as CSC with sorted row indices and float64 values (not copied when it is one)."""
    X = scipy.sparse.csc_matrix(X, dtype=np.float64)
    return X if X.has_sorted_indices else X.sorted_indices()


def shared_tables(tree, X):
    """:class:`SharedTables` for an ensemble whose members are lucidml exact trees like ``tree``
    (made once for all of them), else None."""
    from ._base import _BaseDecisionTree, _resolve_max_features  # (that module imports this one)

    if not isinstance(tree, _BaseDecisionTree) or tree.max_bins is not None or scipy.sparse.issparse(X):
        return None  # (a sparse X is shared as it is: exact_search_input)
    return _tables(X, _resolve_max_features(tree.max_features, X.shape[1]), presorted=True)


def _tables(X, max_features, presorted):
    """The SharedTables of X for trees drawing ``max_features`` features per node; the presorted
    order itself only with ``presorted`` (one tree sorts the rows it uses, not X)."""
    if not node_sorted(X, max_features):
        return SharedTables(presorted=True, order=presort(X) if presorted else None, columns=None)
    if max_features >= X.shape[1]:  # node-sorted, reading X's rows in column order
        return SharedTables(presorted=False, order=None, columns=None)
    return SharedTables(presorted=False, order=None, columns=column_table(X))


def _writable(X):
    """X C-contiguous and writable: a read-only X (a memory map, a frozen array) is copied.

    The search never writes to a dense X, but the compiled code is shared with the sparse search,
    which writes its scratch columns through the same field (``ExactData.table``): Numba types a
    read-only array apart and refuses that write even in the branch a dense fit never takes.
    """
    X = np.ascontiguousarray(X)
    return X if X.flags.writeable else X.copy()


def tables_of_features(shared, features):
    """The shared tables of the columns ``features`` of X (a bagging member's feature subset)."""
    if shared is None:
        return None
    return shared._replace(order=None if shared.order is None else shared.order[features],
                           columns=None if shared.columns is None else shared.columns[features])


def exact_data(X, samples, max_features, shared=None):
    """The exact search's data (``_builder.ExactData``) for the rows ``samples`` of X.

    ``shared``: the ensemble's :class:`SharedTables` of X, which also say which way to search;
    without them :func:`node_sorted` decides and the tables are made here. Presorted: only the
    sample ids (uint32) are kept, the sweeps read the values from X in its own precision (a
    float32 X is not copied; thresholds are midpoints computed in float64). Node-sorted: the
    node-ordered samples and the buffers that a node sorts its drawn features into; for a sparse
    X also its CSC arrays and each sample's place in the node order (``_sparse_columns``).
    """
    m = samples.size
    n_features = X.shape[1]
    if scipy.sparse.issparse(X):  # node-sorted on the nonzeros (_sparse_columns)
        X = _sorted_csc(X)  # (a bagging member's columns of the shared CSC X are one already)
        position = np.full(X.shape[0], -1, np.int64)
        position[samples] = np.arange(m)
        return ExactData(sidx=samples.astype(SAMPLE_IDS).reshape(1, m), table=np.zeros((2, X.shape[0])),
                         by_column=True, presorted=False, ids=np.zeros((3, m), SAMPLE_IDS), values=np.empty(m),
                         known=np.zeros(n_features, np.uint8), hints=_NO_HINTS, sparse=True,
                         csc=SparseColumns(indptr=X.indptr.astype(np.int64), indices=X.indices.astype(SAMPLE_IDS),
                                           data=X.data, position=position))
    if shared is None:
        shared = _tables(X, max_features, presorted=False)
    if not shared.presorted:  # node-sorted: the values read from X's rows, or from its columns
        by_column = shared.columns is not None
        return ExactData(sidx=samples.astype(SAMPLE_IDS).reshape(1, m),
                         table=shared.columns if by_column else _writable(X), by_column=by_column,
                         presorted=False, ids=np.empty((3, m), SAMPLE_IDS), values=np.empty(m),
                         known=np.zeros(n_features, np.uint8), hints=np.full((n_features, 2), np.nan),
                         sparse=False, csc=None)
    X = _writable(X)
    order = shared.order
    if order is not None and m == X.shape[0]:
        sidx = order.copy()
    elif order is not None:
        keep = np.zeros(X.shape[0], np.bool_)
        keep[samples] = True
        sidx = np.empty((X.shape[1], m), SAMPLE_IDS)
        for f in range(X.shape[1]):
            sidx[f] = order[f][keep[order[f]]]
    elif m == X.shape[0]:
        sidx = presort(X)
    else:
        sidx = np.empty((X.shape[1], m), SAMPLE_IDS)
        for f in range(X.shape[1]):
            sidx[f] = samples[np.argsort(X[samples, f])]
    return ExactData(sidx=sidx, table=X, by_column=False, presorted=True, ids=np.empty((1, m), SAMPLE_IDS),
                     values=None, known=np.zeros(0, np.uint8), hints=_NO_HINTS, sparse=False, csc=None)
