"""Text and Graphviz views of a fitted tree (000 §7.9.4 draws its trees through DOT files)."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._nodes import TREE_LEAF

__all__ = ["export_graphviz", "export_text"]

_PALETTE = ["#e58139", "#39e581", "#8139e5", "#e5d739", "#39d7e5", "#e53981", "#7be539", "#397be5", "#e57b39",
            "#a0a0a0"]


def _fmt(x, decimals):
    return f"{x:.{decimals}f}"


def _fmt_category(v, decimals):
    if np.isnan(v):
        return "NaN"
    return str(int(v)) if float(v).is_integer() else _fmt(v, decimals)


def _fmt_counts(counts, decimals):
    if np.allclose(counts, np.round(counts)):
        return ", ".join(str(round(c)) for c in counts)
    return ", ".join(_fmt(c, decimals) for c in counts)


def _names(estimator, feature_names, class_names):
    tree = estimator.tree_
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
    if feature_names is None:
        feature_names = [f"feature_{j}" for j in range(tree.n_features)]
    feature_names = [str(f) for f in feature_names]
    if len(feature_names) != tree.n_features:
        raise ValueError(f"feature_names has {len(feature_names)} entries but the tree has {tree.n_features} features.")
    if hasattr(estimator, "classes_"):
        class_names = estimator.classes_ if class_names is None else class_names
        if len(class_names) != len(estimator.classes_):
            raise ValueError(f"class_names has {len(class_names)} entries but there are "
                             f"{len(estimator.classes_)} classes.")
        class_names = [str(c) for c in class_names]
    return feature_names, class_names


def _edges(tree, u, feature_name, decimals):
    """(child, test text) for each child of node u."""
    children = tree.children(u)
    lo, hi = tree.category_ptr[u], tree.category_ptr[u + 1]
    if hi > lo:
        return [(c, f"{feature_name} = {_fmt_category(v, decimals)}")
                for c, v in zip(children, tree.category_values[lo:hi], strict=True)]
    t = _fmt(tree.threshold[u], decimals)
    return [(children[0], f"{feature_name} <= {t}"), (children[1], f"{feature_name} >  {t}")]


def _leaf_text(tree, u, class_names, decimals):
    value = tree.value[u, 0]
    if class_names is None:
        return f"value: {_fmt(value[0], decimals)}"
    counts = value * tree.weighted_n_node_samples[u]
    return f"class: {class_names[int(np.argmax(value))]} ({_fmt_counts(counts, decimals)})"


def export_text(decision_tree, *, feature_names=None, class_names=None, decimals=2, max_depth=10):
    """The rules of a fitted tree as indented text, one line per branch.

    A split line reads ``feat <= t`` / ``feat >  t`` (or ``feat = v`` for a categorical
    branch); a leaf shows its class with the weighted class counts, or its value.

    Parameters
    ----------
    decision_tree : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted lucidml tree.
    feature_names : list of str, default=None
        Names of the features (default ``feature_names_in_`` or ``feature_0``, …).
    class_names : list of str, default=None
        Names of the classes, in the order of ``classes_`` (default: the labels).
    decimals : int, default=2
        Digits shown for thresholds and values.
    max_depth : int, default=10
        Deeper branches are summarised as ``truncated branch of depth k``.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.tree.decision_tree import DecisionTreeClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
    >>> print(export_text(clf, feature_names=["x"]))
    |--- x <= 1.50
    |   |--- class: 0 (2, 0)
    |--- x >  1.50
    |   |--- class: 1 (0, 2)
    <BLANKLINE>
    """
    check_is_fitted(decision_tree, "tree_")
    tree = decision_tree.tree_
    feature_names, class_names = _names(decision_tree, feature_names, class_names)
    lines = []

    def subtree_depth(u):
        children = tree.children(u)
        return 0 if children.size == 0 else 1 + max(subtree_depth(c) for c in children)

    def visit(u, depth):
        indent = "|   " * depth + "|--- "
        if tree.children_left[u] == TREE_LEAF:
            lines.append(indent + _leaf_text(tree, u, class_names, decimals))
            return
        if depth > max_depth:
            lines.append(indent + f"truncated branch of depth {subtree_depth(u)}")
            return
        for child, text in _edges(tree, u, feature_names[tree.feature[u]], decimals):
            lines.append(indent + text)
            visit(child, depth + 1)

    if tree.children_left[0] == TREE_LEAF:
        lines.append("|--- " + _leaf_text(tree, 0, class_names, decimals))
    else:
        for child, text in _edges(tree, 0, feature_names[tree.feature[0]], decimals):
            lines.append("|--- " + text)
            visit(child, 1)
    return "\n".join(lines) + "\n"


def export_graphviz(decision_tree, out_file=None, *, max_depth=None, feature_names=None, class_names=None,
                    filled=False, impurity=True, node_ids=False, precision=3):
    """The tree in Graphviz DOT language, as a string (no graphviz dependency).

    Each node box shows its test, impurity, sample count, value (weighted class counts or the
    prediction) and, for a classifier, its class; ``filled`` colours nodes by majority class
    (darker = purer) or by value.

    Parameters
    ----------
    decision_tree : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted lucidml tree.
    out_file : str, path or file object, default=None
        Where to write the DOT text as well (it is returned in any case).
    max_depth : int, default=None
        Nodes deeper than this are drawn as "(...)".
    feature_names, class_names : list of str, default=None
        As in :func:`export_text`.
    filled : bool, default=False
        Fill the boxes with colours.
    impurity : bool, default=True
        Show the impurity of each node.
    node_ids : bool, default=False
        Show the node index.
    precision : int, default=3
        Digits of thresholds, impurities and values.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.tree.decision_tree import DecisionTreeRegressor
    >>> reg = DecisionTreeRegressor(max_depth=1).fit([[0.0], [1.0], [2.0]], [1.0, 1.0, 4.0])
    >>> dot = export_graphviz(reg, feature_names=["x"])
    >>> dot.splitlines()[0], 'x <= 1.5' in dot, dot.count("->")
    ('digraph Tree {', True, 2)
    """
    check_is_fitted(decision_tree, "tree_")
    tree = decision_tree.tree_
    feature_names, class_names = _names(decision_tree, feature_names, class_names)
    criterion = getattr(decision_tree, "criterion", "impurity")
    leaf_values = tree.value[tree.children_left == TREE_LEAF, 0, 0]
    lo_value, hi_value = float(leaf_values.min()), float(leaf_values.max())
    out = ["digraph Tree {", 'node [shape=box, style="filled", color="black", fontname="helvetica"] ;'
           if filled else 'node [shape=box, fontname="helvetica"] ;', 'edge [fontname="helvetica"] ;']

    def color(u):
        value = tree.value[u, 0]
        if class_names is not None:
            k = int(np.argmax(value))
            top = np.sort(value)[::-1]
            second = top[1] if top.size > 1 else 0.0
            alpha = 0.0 if top[0] >= 1.0 and second >= 1.0 else (top[0] - second) / max(1.0 - second, 1e-12)
            return _PALETTE[k % len(_PALETTE)] + f"{round(255 * min(alpha, 1.0)):02x}"
        alpha = 0.0 if hi_value == lo_value else (value[0] - lo_value) / (hi_value - lo_value)
        return _PALETTE[0] + f"{round(255 * min(max(alpha, 0.0), 1.0)):02x}"

    def label(u):
        parts = [f"node #{u}"] if node_ids else []
        if tree.children_left[u] != TREE_LEAF:
            lo, hi = tree.category_ptr[u], tree.category_ptr[u + 1]
            name = feature_names[tree.feature[u]]
            parts.append(f"{name} in categories" if hi > lo else f"{name} <= {round(tree.threshold[u], precision)}")
        if impurity:
            parts.append(f"{criterion} = {round(float(tree.impurity[u]), precision)}")
        parts.append(f"samples = {tree.n_node_samples[u]}")
        if class_names is None:
            parts.append(f"value = {round(float(tree.value[u, 0, 0]), precision)}")
        else:
            counts = tree.value[u, 0] * tree.weighted_n_node_samples[u]
            parts.append(f"value = [{_fmt_counts(counts, precision)}]")
            parts.append(f"class = {class_names[int(np.argmax(tree.value[u, 0]))]}")
        return "\\n".join(parts).replace('"', '\\"')

    def visit(u, depth):
        if max_depth is not None and depth > max_depth:
            out.append(f'{u} [label="(...)"] ;')
            return
        fill = f', fillcolor="{color(u)}"' if filled else ""
        out.append(f'{u} [label="{label(u)}"{fill}] ;')
        children = tree.children(u)
        lo, hi = tree.category_ptr[u], tree.category_ptr[u + 1]
        for k, child in enumerate(children):
            if hi > lo:
                text = f' [label="= {_fmt_category(tree.category_values[lo + k], precision)}"]'
            elif u == 0:
                text = ' [labeldistance=2.5, labelangle={}, headlabel="{}"]'.format(*((45, "True") if k == 0
                                                                                       else (-45, "False")))
            else:
                text = ""
            out.append(f"{u} -> {child}{text} ;")
            visit(child, depth + 1)

    visit(0, 0)
    out.append("}")
    dot = "\n".join(out) + "\n"
    if out_file is not None:
        if hasattr(out_file, "write"):
            out_file.write(dot)
        else:
            with open(out_file, "w", encoding="utf-8") as handle:
                handle.write(dot)
    return dot
