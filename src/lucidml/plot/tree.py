"""A fitted lucidml decision tree drawn node by node from its ``tree_`` node table."""

import numpy as np

from ..tree._nodes import TREE_LEAF
from ..tree.export import _fmt_category, _fmt_counts, _names
from ._axes import axes_or_new, check_attribute, check_fitted_estimator, finish_plot

__all__ = ["TreeDisplay"]


class TreeDisplay:
    """The tree as boxes and edges: each split's test, each leaf's class or value.

    Leaves sit side by side at the bottom and every split is centred over its children, so the
    drawing is as wide as the tree has leaves. A binary split ``x ≤ t`` has a "True" (left) and
    a "False" (right) edge; a multiway categorical split (004 §12) has one edge per category,
    labelled ``= v``. With ``show_missing`` the edge that a missing value (NaN) takes on a
    binary split is marked "+ NaN"; on a multiway split NaN is a category of its own.

    Parameters
    ----------
    tree : lucidml ``Tree``
        The fitted ``tree_`` of a lucidml DecisionTreeClassifier or DecisionTreeRegressor.
    feature_names : list of str
        One name per feature.
    class_names : list of str or None
        One name per class for a classifier; None for a regressor.
    max_depth : int, default=None
        Nodes deeper than this are drawn as "(...)".
    precision : int, default=2
        Digits of thresholds, impurities and values.
    show_missing : bool, default=True
        Mark where NaN goes at binary splits.

    Attributes
    ----------
    positions_ : dict
        Node id → (x, y) of its box; y = −depth.
    node_texts_ : dict
        Node id → matplotlib Text of its box.
    leaves_ : list of int
        Ids of the leaves drawn (all leaves of the tree when ``max_depth`` is None).
    truncated_ : set of int
        Ids of the splits drawn as "(...)" because they lie deeper than ``max_depth``.
    edge_lines_ : list of matplotlib Line2D
    edge_texts_ : list of matplotlib Text
        The edge labels, in the order of ``edge_lines_``.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.tree import DecisionTreeClassifier
    >>> from lucidml.plot import TreeDisplay
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
    >>> display = TreeDisplay.from_estimator(clf, feature_names=["x"])
    >>> display.node_texts_[0].get_text().splitlines()[0], len(display.leaves_)
    ('x <= 1.50', 2)
    >>> [text.get_text() for text in display.edge_texts_]
    ['True', 'False + NaN']
    """

    def __init__(self, tree, feature_names, class_names=None, *, max_depth=None, precision=2, show_missing=True):
        self.tree = tree
        self.feature_names = feature_names
        self.class_names = class_names
        self.max_depth = max_depth
        self.precision = precision
        self.show_missing = show_missing

    def plot(self, ax=None, *, fontsize=8):
        """Draw the tree.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        fontsize : float, default=8
            Size of the text in the boxes and on the edges.

        Returns
        -------
        self : TreeDisplay
        """
        if self.max_depth is not None and self.max_depth < 0:
            raise ValueError(f"max_depth must be None or ≥ 0; got {self.max_depth}.")
        ax = axes_or_new(ax)
        self.positions_, self.leaves_, self.truncated_ = {}, [], set()
        self._place(0, 0, [0])
        self.edge_lines_, self.edge_texts_, self.node_texts_ = [], [], {}
        for u, (x, y) in self.positions_.items():
            for child, label in self._edges(u):
                cx, cy = self.positions_[child]
                (line,) = ax.plot([x, cx], [y, cy], color="0.4", linewidth=0.8, zorder=1)
                self.edge_lines_.append(line)
                self.edge_texts_.append(ax.text((x + cx) / 2, (y + cy) / 2, label, fontsize=fontsize,
                                                ha="center", va="center", backgroundcolor="white", zorder=2))
        for u, (x, y) in self.positions_.items():
            self.node_texts_[u] = ax.text(x, y, self._node_text(u), fontsize=fontsize, ha="center", va="center",
                                          zorder=3, bbox={"boxstyle": "round", "facecolor": self._color(u)})
        xs, ys = zip(*self.positions_.values(), strict=True)
        ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
        ax.set_ylim(min(ys) - 0.6, 0.6)
        ax.set_axis_off()
        return finish_plot(self, ax)

    def _truncated(self, depth):
        return self.max_depth is not None and depth > self.max_depth

    def _place(self, u, depth, next_leaf_x):
        """Lay out the subtree of u: leaves left to right, each split over the middle of its children."""
        children = self.tree.children(u)
        if children.size == 0 or self._truncated(depth):
            self.positions_[u] = (float(next_leaf_x[0]), -float(depth))
            next_leaf_x[0] += 1
            if children.size == 0:
                self.leaves_.append(int(u))
            else:
                self.truncated_.add(int(u))
            return
        for child in children:
            self._place(int(child), depth + 1, next_leaf_x)
        xs = [self.positions_[int(c)][0] for c in children]
        self.positions_[u] = ((xs[0] + xs[-1]) / 2, -float(depth))

    def _edges(self, u):
        """(child, label) of each edge below u that is drawn."""
        tree = self.tree
        children = [int(c) for c in tree.children(u) if int(c) in self.positions_]
        if not children:
            return []
        lo, hi = tree.category_ptr[u], tree.category_ptr[u + 1]
        if hi > lo:
            values = tree.category_values[lo:hi]
            return [(c, f"= {_fmt_category(v, self.precision)}") for c, v in zip(children, values, strict=True)]
        missing_left = bool(tree.missing_go_to_left[u])
        labels = ["True", "False"]
        if self.show_missing:
            labels[0 if missing_left else 1] += " + NaN"
        return list(zip(children, labels, strict=True))

    def _node_text(self, u):
        tree, p = self.tree, self.precision
        lines = []
        if tree.children_left[u] != TREE_LEAF:
            if u in self.truncated_:
                return "(...)"
            name = self.feature_names[tree.feature[u]]
            multiway = tree.category_ptr[u + 1] > tree.category_ptr[u]
            lines.append(f"{name}: category" if multiway else f"{name} <= {tree.threshold[u]:.{p}f}")
        lines.append(f"impurity = {tree.impurity[u]:.{p}f}")
        lines.append(f"samples = {tree.n_node_samples[u]}")
        if self.class_names is None:
            lines.append(f"value = {tree.value[u, 0, 0]:.{p}f}")
        else:
            counts = tree.value[u, 0] * tree.weighted_n_node_samples[u]
            lines.append(f"value = [{_fmt_counts(counts, p)}]")
            lines.append(f"class = {self.class_names[int(np.argmax(tree.value[u, 0]))]}")
        return "\n".join(lines)

    def _color(self, u):
        """A classifier's node in its majority class's colour, paler when less pure; white otherwise."""
        if self.class_names is None:
            return "white"
        from matplotlib.colors import to_rgba

        fractions = self.tree.value[u, 0]
        k = int(np.argmax(fractions))
        purity = float(fractions[k] - np.partition(fractions, -2)[-2]) if fractions.size > 1 else 1.0
        return to_rgba(f"C{k % 10}", alpha=0.15 + 0.6 * purity)

    @classmethod
    def from_estimator(cls, estimator, *, feature_names=None, class_names=None, max_depth=None, precision=2,
                       show_missing=True, ax=None, fontsize=8):
        """Draw a fitted lucidml decision tree.

        Parameters
        ----------
        estimator : fitted lucidml DecisionTreeClassifier or DecisionTreeRegressor
        feature_names : list of str, default=None
            Default: ``feature_names_in_``, or ``feature_0``, ….
        class_names : list of str, default=None
            Default: the labels in ``classes_``.
        max_depth, precision, show_missing
            As in the class.
        ax, fontsize
            As in :meth:`plot`.

        Returns
        -------
        TreeDisplay
        """
        check_fitted_estimator(estimator, cls.__name__)
        tree = check_attribute(estimator, "tree_", cls.__name__, "a fitted lucidml decision tree")
        if not hasattr(tree, "category_ptr"):
            raise TypeError(f"TreeDisplay draws lucidml trees; the tree_ of {type(estimator).__name__} is "
                            f"{type(tree).__name__} (for scikit-learn's trees use sklearn.tree.plot_tree).")
        feature_names, class_names = _names(estimator, feature_names, class_names)
        display = cls(tree, feature_names, class_names, max_depth=max_depth, precision=precision,
                      show_missing=show_missing)
        return display.plot(ax=ax, fontsize=fontsize)
