"""Decision trees (CART) with pre- and post-pruning, and the tree engine every tree model uses.

How a tree is grown and read, file by file (the ensembles in ``lucidml.ensemble`` grow theirs
with the same pieces)::

    X ──► _binning      quantile bins, NaN in its own bin        (histogram trees: max_bins,
    │                   (bin_value_ranges: each bin's min/max)     gradient boosting, sparse X)
    │     _sparse_bins  a sparse X (≤ 25% nonzero): codes of its stored entries only, row by row
    │     _exact_data   presorted: every column's sample order,    (exact trees: max_bins=None)
    │                   uint32; or node-sorted (_node_sort): each
    │                   node sorts the features it draws; or, for
    │                   a sparse or mostly-zero X, each node sorts
    │                   only its nonzeros (_sparse_columns)
    ▼
    _histogram          build_histogram: per node, feature and bin, (count, Σw or Σw per class,
    │                   Σtarget) from one SampleStats record; larger child = parent − smaller;
    │                   one row (cell) per bin of each feature, its missing bin last
    ▼
    _splitter           the best split of a node: sweeps over the sorted order (exact) or over
    _histogram          the histogram's bins; criteria and their proxies in _criteria (gradient
    _criteria           boosting's second-order gain is one of them), absolute error in
    │                   _absolute_error; scores equal to rounding are ties, won by the feature
    │                   drawn first, or of the lower random rank when all are searched
    │                   (_criteria.beats_ranked), so every search grows the same tree
    ▼
    _hist_partition     a histogram split's samples into its children (exact: _splitter.assign_children)
    _builder            grows a _store.Store depth-first or best-first from named records
    │                   (ExactData or HistData, the other None, so only the fit's own mode,
    │                   task and criterion are compiled; Target, Rules); stops on Ctrl-C.
    │                   CART, forests, bagging, AdaBoost and gradient boosting all grow here
    ▼
    _nodes              the one node layout, NODE_DTYPE: one record per node with
    │                   scikit-learn's field names (left_child, feature, threshold, …)
    ▼
    _tree               Tree: the node records and values, read as scikit-learn's tree_ arrays
    │                   (children_left, threshold, value, …: views of the records), plus CSR
    │                   lists for multiway categorical nodes; _pruning rebuilds it. A forest's
    │                   table and gradient boosting's nodes_ are the same records, tree after tree
    ▼
    _traversal          the one walk: descend / apply / decision paths of a tree, and
                        sum_leaf_values over a table of trees (forests, AdaBoost, boosting)

What a fit costs, for n rows, d columns, k = max_features and m samples in a node (a tree of
depth D visits each row once per level):

- **presorted exact search**: O(d · n log n) once per fit (once per ensemble for forests,
  bagging and AdaBoost), then O(d · m) per node to keep every column sorted, O(k · m) to sweep:
  O(d · n · D) in all. Memory: 4 bytes per row and column. The way for tall, narrow tables.
- **node-sorted exact search**: no presorting; per node a sort of the m samples for each of the
  k' features it examines (k drawn, constant ones included, plus the draws until one is not
  constant; features already constant in an ancestor are skipped unread): O(m) for a feature of
  two values in the node and no NaN (one-hot and binary columns: scored in one pass over X's
  values, unsorted, ``_threshold_sweep.two_value_sweep``), O(m · b) for 64 samples or more (a
  radix sort over the b ≤ 8 bytes of the values that vary), O(m log m) below.
  O(k' · n · D · b) in all, however wide the table. A forest gathers the values from X copied
  column by column, once per ensemble (n · d · 4 bytes when the values are exact in float32).
  ``_exact_data.node_sorted`` picks the cheaper way from d, k and the columns' numbers of
  distinct values.
- **sparse exact search** (a sparse X, or a dense one with at most 10% nonzeros that would be
  node-sorted): X as CSC, once per fit or ensemble; per node and examined feature, its nonzeros
  in the node found by walking the column (O(nnz_f)) or bisecting it per sample (O(m log nnz_f)),
  whichever is cheaper, and only those p sorted (as above: O(p · b) from 64 on); the zeros go to
  a child at once. Per node O(k' · (min(nnz_f, m log nnz_f) + p · b)), whatever the width;
  memory O(nnz + n).
- **histogram search** (``max_bins``, gradient boosting, a large sparse X with categorical
  features): binning O(d · n log n) once, then O(d · m) per node to build the smaller child's
  histogram (the larger one by subtraction) and O(Σ bins) to scan it; n · d bytes for the bin
  codes. A sparse X of at most 25% nonzeros keeps codes for its stored entries only (nnz bytes)
  and builds a node's histogram from its rows' stored entries, O(nnz in the node + Σ bins).
  Either way a histogram is ragged: each feature has a row per bin it has, plus its missing bin
  (``_binning.cell_pointers``), so a histogram of 50,000 word counts of a few bins each is
  a few MB where the most bins of any feature, for every feature, was 66 MB.

The constant per node and per examined feature was mostly Numba's reference counting: every
array taken out of a record, every view, every record built and every array argument bound
(by a call, or by a function inlined with ``inline="always"``) counts the array's owner up and
down with an atomic operation, unless LLVM's pruning pass removes the pair, which it does in
simple functions only (a ``break`` out of a loop is enough to keep them). On a regression tree
of the Ames table (2,344 × 310, 4,479 nodes) these counts were 45% of the fit. So
``grow_tree`` hands the rest of the build its records *borrowed* (``utils._borrowed``: the same
arrays without an owner to count, which the fit holds anyway), and ``find_split_exact``
borrows its own on entry, which lets LLVM drop every count from its loop over features.

What a first fit compiles: Numba compiles each kernel once per signature, and all the code that
signature can reach. So the fit's mode, task and way of sorting are None-typed arguments
(``exact`` or ``hist``; ``yk`` or ``y``; the exact search's ``values`` and ``csc``), tested as
arguments: Numba's branch pruning drops the side a None argument rules out before typing (it
prunes on nothing else: a test of a record's field, or of an array argument, compiles both
sides). A presorted and a node-sorted fit therefore compile apart (``lucidml warmup`` makes
both). And a constant handed to a kernel, or a variable that starts as one (``size = 0``), is
typed as a literal and compiles a second copy of the callee: such values start as
``np.int64(0)`` or ``np.bool_(False)``.
"""

from .decision_tree import DecisionTreeClassifier, DecisionTreeRegressor
from .export import export_graphviz, export_text

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "export_graphviz", "export_text"]
