"""Fitted state saved by earlier lucidml releases, brought to today's layout as a file loads.

Model files keep loading across releases (``tests/io/fixtures``). When a class changes how it
holds its fitted state, the conversion of the old state lives here, keyed by the class's path:
:data:`OLD_NAMES` lists the attribute names an old file may still set on that class (the
conversion consumes them), and :data:`RETIRED_CLASSES` describes classes old files name that
lucidml no longer has.

Trees before the one node layout (``lucidml.tree._nodes``) held parallel node arrays
(``children_left``, …; a forest's table ``left``, ``right``, …); gradient boosting held its own
node dtype, with child ids into the whole ``nodes_`` array, the leaf values in it, and a walk
table ``_table`` of ``Splits``.
"""

from collections import namedtuple

import numpy as np

from ._errors import ModelFileError

__all__ = ["OLD_NAMES", "RETIRED_CLASSES", "upgrade"]

# The boosting walk table's tuple (lucidml.tree._traversal.Splits); only decoded, then dropped.
_Splits = namedtuple("Splits", ["feature", "threshold", "left", "right", "missing_left"])
RETIRED_CLASSES = {"lucidml.tree._traversal.Splits": _Splits}

_TREE_FIELDS = {"left_child": "children_left", "right_child": "children_right", "feature": "feature",
                "threshold": "threshold", "impurity": "impurity", "n_node_samples": "n_node_samples",
                "weighted_n_node_samples": "weighted_n_node_samples", "missing_go_to_left": "missing_go_to_left"}
_FOREST_FIELDS = {"left_child": "left", "right_child": "right", "feature": "feature", "threshold": "threshold",
                  "missing_go_to_left": "missing_left"}
_BOOSTING = ("lucidml.ensemble.gradient_boosting.GradientBoostingClassifier",
             "lucidml.ensemble.gradient_boosting.GradientBoostingRegressor")

OLD_NAMES = {
    "lucidml.tree._tree.Tree": frozenset(_TREE_FIELDS.values()) | {"node_count", "capacity"},
    "lucidml.ensemble._forest_predict.FlatForest": frozenset(_FOREST_FIELDS.values()),
}


def upgrade(path, state):
    """``state`` of an object of class ``path`` in today's layout (the same dict when it already is)."""
    if path == "lucidml.tree._tree.Tree" and "nodes" not in state:
        return _tree(state)
    if path == "lucidml.ensemble._forest_predict.FlatForest" and "nodes" not in state:
        return _records(state, _FOREST_FIELDS)
    if path in _BOOSTING and "nodes_" in state and "gain" in (state["nodes_"].dtype.names or ()):
        return _boosting(state)
    return state


def _records(state, fields):
    """The state with the parallel arrays named in ``fields`` (new name: old name) as one ``nodes`` array."""
    from ..tree._nodes import NODE_DTYPE

    state = dict(state)
    nodes = np.zeros(np.asarray(state[fields["left_child"]]).size, dtype=NODE_DTYPE)
    for new, old in fields.items():
        nodes[new] = state.pop(old)
    state["nodes"] = nodes
    return state


def _tree(state):
    """A Tree's state; each split's improvement is recomputed from the impurities."""
    from ..tree._tree import Tree

    state = _records(state, _TREE_FIELDS)
    for name in ("node_count", "capacity"):
        state.pop(name, None)
    tree = Tree.__new__(Tree)
    tree.__dict__.update(state)
    nodes = state["nodes"]
    ptr, ids = tree.children_csr()
    weighted = nodes["weighted_n_node_samples"] * nodes["impurity"]
    for u in np.flatnonzero(nodes["left_child"] != -1):
        decrease = weighted[u] - weighted[ids[ptr[u]:ptr[u + 1]]].sum()
        nodes["improvement"][u] = decrease / nodes["weighted_n_node_samples"][0]
    return state


def _boosting(state):
    """Gradient boosting's state: child ids local to each tree, values in node_values_, no walk table."""
    from ..tree._nodes import NODE_DTYPE

    state = dict(state)
    old = state.pop("nodes_")
    state.pop("_table", None)
    roots = np.asarray(state["tree_roots_"]).ravel()
    # Checked before the repeat below, whose size the roots set (a 7 KB file asked for 2.3 GB).
    if not (roots.dtype.kind in "iu" and roots.size and roots[0] == 0 and np.all(np.diff(roots) > 0)
            and roots[-1] < old.size):
        raise ModelFileError("tree_roots_: not the increasing first node ids of the trees in nodes_")
    base = np.repeat(roots, np.diff(np.append(roots, old.size)))
    nodes = np.zeros(old.size, dtype=NODE_DTYPE)
    internal = old["left"] >= 0
    nodes["left_child"] = np.where(internal, old["left"] - base, -1)
    nodes["right_child"] = np.where(internal, old["right"] - base, -1)
    for new, name in (("feature", "feature"), ("threshold", "threshold"), ("missing_go_to_left", "missing_go_left"),
                      ("improvement", "gain"), ("n_node_samples", "n_samples")):
        nodes[new] = old[name]
    nodes["weighted_n_node_samples"] = np.nan  # not kept by those files
    state["nodes_"] = nodes
    state["node_values_"] = np.ascontiguousarray(old["value"], dtype=np.float64)
    return state
