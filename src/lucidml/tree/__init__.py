"""Decision trees (CART) with pre- and post-pruning, and the tree engine every tree model uses.

How a tree is grown and read, file by file (the ensembles in ``lucidml.ensemble`` grow theirs
with the same pieces)::

    X ──► _binning      quantile bins, NaN in its own bin        (histogram trees: max_bins,
    │                   (bin_value_ranges: each bin's min/max)     gradient boosting)
    │     _base         the presorted sample order of every       (exact trees: max_bins=None)
    │                   feature, int32; values read from X
    ▼
    _histogram          build_histogram: per node, feature and bin, (count, Σw or Σw per class,
    │                   Σtarget) from one SampleStats record; larger child = parent − smaller
    ▼
    _splitter           the best split of a node: sweeps over the sorted order (exact) or over
    _histogram          the histogram's bins; criteria and their proxies in _criteria (gradient
    _criteria           boosting's second-order gain is one of them), absolute error in
    │                   _absolute_error
    ▼
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
"""

from .decision_tree import DecisionTreeClassifier, DecisionTreeRegressor
from .export import export_graphviz, export_text

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "export_graphviz", "export_text"]
