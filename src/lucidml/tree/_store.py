"""The store a tree grows in (``_builder``): node records, the builder's bookkeeping, values, child lists.

Everything is indexed by creation order and enlarged by doubling (``grow``). The node records
are ``_nodes.NODE_DTYPE``: what the fitted tree keeps; the rest is the builder's own.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit
from ._nodes import NODE_DTYPE, TREE_UNDEFINED

__all__ = ["GROWTH_DTYPE", "Store", "enlarged", "found_room", "grow", "grow_for_children", "keep_found", "list_room",
           "mark_known", "new_store"]

# What the builder knows of a node beside its record: its samples ``start``:``end`` in the
# builder's sample order, its depth, the kind of its split, where its children are listed in the
# store's child list (``children``, ``n_children``), the pool slot of its histogram (−1: none),
# whether its children exist (``expanded``) and whether it has a split to expand (``splittable``);
# its ``parent`` (−1 for the root) and, for a node-sorted exact search, the features found constant
# in it (not in its ancestors): ``found[first_found:first_found + n_found]`` of the store.
GROWTH_DTYPE = np.dtype({
    "names": ["start", "end", "depth", "kind", "children", "n_children", "slot", "parent", "first_found", "n_found",
              "expanded", "splittable"],
    "formats": [np.int64] * 10 + [np.uint8] * 2,
}, align=True)
# The growing tree, in creation order: node records, growth records, node values (n_nodes, n_values),
# and the child list: child c of node u is ``child_ids[k]``, k = growth[u].children + c, holding
# samples child_bounds[k]:child_bounds[k + 1] (category ``child_values[k]`` for a multiway split);
# ``found``: the lists of constant features (``counter[3]`` entries used).
Store = namedtuple("Store", ["nodes", "growth", "value", "child_bounds", "child_values", "child_ids", "found"])


@njit
def new_store(n_values):
    """An empty store with room for 64 nodes of ``n_values`` values and 256 child-list entries."""
    cap = 64
    return Store(np.empty(cap, dtype=NODE_DTYPE), np.empty(cap, dtype=GROWTH_DTYPE), np.empty((cap, n_values)),
                 np.empty(4 * cap, dtype=np.int64), np.empty(4 * cap), np.empty(4 * cap, dtype=np.int64),
                 np.empty(4 * cap, dtype=np.int64))


@njit
def grow(store, counter, need_nodes, need_list, need_found):
    """The store, enlarged (doubled) where it cannot hold ``need_nodes`` more nodes, ``need_list``
    more child-list entries or ``need_found`` more constant features."""
    nodes, growth, value = store.nodes, store.growth, store.value
    if counter[0] + need_nodes > nodes.size:
        cap = max(2 * nodes.size, counter[0] + need_nodes)
        nodes, growth = enlarged(nodes, cap), enlarged(growth, cap)
        new_value = np.empty((cap, value.shape[1]))
        for u in range(counter[0]):
            for k in range(value.shape[1]):
                new_value[u, k] = value[u, k]
        value = new_value
    bounds, values, ids = store.child_bounds, store.child_values, store.child_ids
    if counter[1] + need_list > bounds.size:
        cap = max(2 * bounds.size, counter[1] + need_list)
        bounds, values, ids = enlarged(bounds, cap), enlarged(values, cap), enlarged(ids, cap)
    found = store.found
    if counter[3] + need_found > found.size:
        found = enlarged(found, max(2 * found.size, counter[3] + need_found))
    return Store(nodes, growth, value, bounds, values, ids, found)


@njit
def list_room(n, r, multiway):
    """Child-list entries that r new nodes holding n samples may take for their own splits: a
    binary split takes 3 (two children and an end), a multiway one up to one per sample and 1."""
    return n + 2 * r + 2 if multiway else 3 * r


@njit
def enlarged(a, size):
    """A copy of ``a`` with room for ``size`` entries (a loop: np.concatenate compiles slowly)."""
    bigger = np.empty(size, dtype=a.dtype)
    for k in range(a.size):
        bigger[k] = a[k]
    return bigger


@njit
def unsplit(node):
    """A node whose split was found but not made: a leaf again."""
    node["feature"] = TREE_UNDEFINED
    node["threshold"] = TREE_UNDEFINED
    node["missing_go_to_left"] = 0
    node["improvement"] = 0.0


@njit
def unsplit_unexpanded(store, n):
    """Every node not expanded (its split was not made: no room under max_leaf_nodes, or a
    cancelled fit) as a leaf."""
    for u in range(n):
        if not store.growth[u]["expanded"]:
            unsplit(store.nodes[u])


@njit(inline="always")
def grow_for_children(store, counter, u, multiway, exact):
    """The store, with room for the children of u, their child lists and constant features."""
    growth = store.growth[u]
    r = growth["n_children"]
    need_list, need_found = list_room(growth["end"] - growth["start"], r, multiway), found_room(exact, r)
    if (counter[0] + r <= store.nodes.size and counter[1] + need_list <= store.child_bounds.size
            and counter[3] + need_found <= store.found.size):
        return store  # room already: no call that would count the store's arrays up and down
    return grow(store, counter, r, need_list, need_found)


@njit(inline="always")
def found_room(exact, r):
    """Room for the features that r nodes may find constant (each at most all of them)."""
    if exact is not None:
        if not exact.presorted:
            return r * exact.known.size
    return r * 0


@njit(inline="always")
def mark_known(store, node, exact, flag):
    """Set ``exact.known`` to ``flag`` for the features found constant in ``node`` and its
    ancestors (node-sorted search; a presorted one has no use for it)."""
    if not exact.presorted:
        while node >= 0:
            g = store.growth[node]
            for k in range(g["first_found"], g["first_found"] + g["n_found"]):
                exact.known[store.found[k]] = flag
            node = g["parent"]


# The constant-feature lists kept at once, in units of the number of features (see keep_found).
FOUND_LISTS_PER_FEATURE = 16


@njit(inline="always")
def keep_found(store, counter, growth, found):
    """Keep the features found constant in a node to be split (``found[0]`` of them, listed from
    ``found[1]``): its descendants skip them unread. Not beyond FOUND_LISTS_PER_FEATURE lists' worth
    of entries at once (the descendants then read those features again, and find them constant):
    the lists of the nodes waiting on the stack, each up to all the features, grew with depth ×
    features on a sparse X (a deep tree on 5,000 × 20,000: 470 MB for a 1.2 MB matrix)."""
    growth["first_found"] = counter[3]
    growth["n_found"] = 0
    if counter[3] + found[0] > FOUND_LISTS_PER_FEATURE * (found.size - 1):  # (found: 1 + n_features entries)
        return
    growth["n_found"] = found[0]
    for k in range(found[0]):
        store.found[counter[3] + k] = found[1 + k]
    counter[3] += found[0]
