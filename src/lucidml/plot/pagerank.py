"""PageRank scores on a small directed graph: bigger, brighter nodes rank higher."""

import numpy as np
import scipy.sparse

from ..graph.pagerank import pagerank
from ._axes import axes_or_new, finish_plot

__all__ = ["PageRankDisplay"]

# Area (points²) of the node with the highest score.
_LARGEST_NODE = 1500.0


class PageRankDisplay:
    """The graph drawn with plain matplotlib: nodes sized and coloured by score, links as arrows.

    Meant for small graphs (tens of nodes), where the drawing shows why a node ranks high: many
    links in, or links from high-ranking nodes. Self-loops are not drawn.

    Parameters
    ----------
    adjacency : array-like or SciPy sparse matrix of shape (n, n)
        ``adjacency[i, j] > 0`` is a link i → j.
    scores : array-like of shape (n,)
        The PageRank score of every node.
    positions : array-like of shape (n, 2), default=None
        Where to draw each node; None places them on a circle.
    labels : list of str, default=None
        Node names; default 0, 1, ….

    Attributes
    ----------
    nodes_ : matplotlib PathCollection
        The nodes; areas ∝ score (the highest is 1500 pt²), colours = scores.
    edges_ : list of matplotlib Annotation
        One arrow per link, in row-major order of the adjacency matrix.
    texts_ : list of matplotlib Text
        "label\\nscore" beside each node.
    positions_ : ndarray of shape (n, 2)
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.plot import PageRankDisplay
    >>> A = np.array([[0, 1, 1], [0, 0, 1], [1, 0, 0]])   # 0 → 1, 0 → 2, 1 → 2, 2 → 0
    >>> display = PageRankDisplay.from_graph(A)
    >>> np.asarray(display.nodes_.get_array()).round(4), len(display.edges_)
    (array([0.3878, 0.2148, 0.3974]), 4)
    """

    def __init__(self, adjacency, scores, *, positions=None, labels=None):
        self.adjacency = adjacency
        self.scores = scores
        self.positions = positions
        self.labels = labels

    def plot(self, ax=None, *, cmap="viridis", decimals=3):
        """Draw the graph.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        cmap : str, default="viridis"
        decimals : int, default=3
            Digits of the scores written beside the nodes.

        Returns
        -------
        self : PageRankDisplay
        """
        links = scipy.sparse.coo_array(self.adjacency)
        scores = np.asarray(self.scores, dtype=np.float64)
        n = scores.size
        if scores.ndim != 1 or links.shape != (n, n):
            raise ValueError(f"adjacency must be (n, n) and scores (n,); got shapes {links.shape} and {scores.shape}.")
        if np.any(scores < 0):
            raise ValueError("Scores must be non-negative (they set the node sizes).")
        self.positions_ = _circle(n) if self.positions is None else np.asarray(self.positions, dtype=np.float64)
        if self.positions_.shape != (n, 2):
            raise ValueError(f"positions must have shape ({n}, 2); got {self.positions_.shape}.")
        labels = [str(i) for i in range(n)] if self.labels is None else [str(label) for label in self.labels]
        if len(labels) != n:
            raise ValueError(f"labels has {len(labels)} entries for {n} nodes.")
        ax = axes_or_new(ax)
        x, y = self.positions_.T
        top = scores.max() if scores.max() > 0 else 1.0
        self.nodes_ = ax.scatter(x, y, s=_LARGEST_NODE * scores / top, c=scores, cmap=cmap, zorder=3,
                                 edgecolors="k")
        ax.figure.colorbar(self.nodes_, ax=ax, label="PageRank score")
        order = np.lexsort((links.col, links.row))
        self.edges_ = [
            ax.annotate("", xy=self.positions_[j], xytext=self.positions_[i], zorder=2,
                        arrowprops={"arrowstyle": "-|>", "color": "0.4", "shrinkA": 12, "shrinkB": 12})
            for i, j, w in zip(links.row[order], links.col[order], links.data[order], strict=True) if i != j and w > 0
        ]
        self.texts_ = [ax.text(xi, yi - 0.16, f"{label}\n{s:.{decimals}f}", ha="center", va="top", fontsize=8)
                       for xi, yi, label, s in zip(x, y, labels, scores, strict=True)]
        ax.set_aspect("equal")
        ax.margins(0.2)
        ax.set_axis_off()
        return finish_plot(self, ax)

    @classmethod
    def from_graph(cls, adjacency, *, positions=None, labels=None, ax=None, cmap="viridis", decimals=3,
                   **pagerank_params):
        """Compute the scores with :func:`lucidml.graph.pagerank` and draw them.

        Parameters
        ----------
        adjacency : array-like or SciPy sparse matrix of shape (n, n)
        positions, labels
            As in the class.
        ax, cmap, decimals
            As in :meth:`plot`.
        **pagerank_params
            ``damping``, ``personalization``, ``dangling``, ``tol``, ``max_iter``, ``method``.

        Returns
        -------
        PageRankDisplay
        """
        scores = pagerank(adjacency, **pagerank_params).scores
        display = cls(adjacency, scores, positions=positions, labels=labels)
        return display.plot(ax=ax, cmap=cmap, decimals=decimals)


def _circle(n):
    """n points evenly spaced on the unit circle, the first at the top."""
    angles = np.pi / 2 - 2 * np.pi * np.arange(n) / n
    return np.column_stack([np.cos(angles), np.sin(angles)])
