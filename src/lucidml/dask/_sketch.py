"""A mergeable quantile sketch: histogram bin edges for data spread over many chunks.

Every chunk summarizes each feature column by weighted points (value, weight), sorted by value:
its distinct values with their counts while there are at most ``size`` of them (an *exact*
summary), else ``size`` values read off the sorted column at evenly spaced ranks, each standing
for n/size samples. Two summaries merge by pooling their points (equal values add their
weights) and, when more than ``size`` points result, compressing them again to ``size`` points
at evenly spaced cumulative weights; each compression moves a point by at most half a
point's weight in rank, so the merged tree of log₂(chunks) levels stays within about
log₂(chunks)/(2·size) of the true ranks — far below one bin (1/max_bins) for the default size.

The edges are then read off the merged summary with ``lucidml.tree._binning``'s rule: the
midpoints between distinct values when a feature has at most ``max_bins`` of them, else the
midpoints of the order statistics around the quantiles 1/max_bins, …, (max_bins−1)/max_bins.
On an exact summary (small data, or few distinct values) these are the in-memory edges.
"""

import numpy as np

__all__ = ["chunk_summary", "merge_summaries", "summary_edges", "SKETCH_SIZE"]

# Points kept per feature and chunk: 16 per bin of the default 255 bins.
SKETCH_SIZE = 4096


def _column_summary(column, size):
    """(values, weights, exact) of one column, NaN left out."""
    values = np.sort(column[~np.isnan(column)]).astype(np.float64, copy=False)
    if values.size == 0:
        return values, np.zeros(0), True
    new = np.concatenate(([True], values[1:] != values[:-1]))
    starts = np.flatnonzero(new)
    distinct = values[starts]
    counts = np.diff(np.append(starts, values.size)).astype(np.float64)
    return _compressed(distinct, counts, True, size)


def _compressed(values, weights, exact, size):
    """The summary itself while it has at most ``size`` points, else ``size`` points at evenly spaced
    cumulative weights (the smallest and largest value always kept: they bound the edges)."""
    if values.size <= size:
        return values, weights, exact
    cumulative = np.cumsum(weights)
    total = cumulative[-1]
    ranks = (np.arange(size) + 0.5) * (total / size)
    picked = values[np.minimum(np.searchsorted(cumulative, ranks, side="right"), values.size - 1)]
    picked[0], picked[-1] = values[0], values[-1]
    keep, start = np.unique(picked, return_index=True)
    counts = np.diff(np.append(start, size)) * (total / size)
    return keep, counts, False


def chunk_summary(X, size=SKETCH_SIZE):
    """The sketch of one chunk: a list of (values, weights, exact) per column."""
    X = np.asarray(X)
    return [_column_summary(X[:, j], size) for j in range(X.shape[1])]


def merge_summaries(a, b, size=SKETCH_SIZE):
    """The sketch of two chunks together, from theirs."""
    merged = []
    for (va, wa, ea), (vb, wb, eb) in zip(a, b):
        values = np.concatenate([va, vb])
        weights = np.concatenate([wa, wb])
        order = np.argsort(values, kind="stable")
        values, weights = values[order], weights[order]
        if values.size:
            new = np.concatenate(([True], values[1:] != values[:-1]))
            starts = np.flatnonzero(new)
            values, weights = values[starts], np.add.reduceat(weights, starts)
        merged.append(_compressed(values, weights, ea and eb, size))
    return merged


def summary_edges(summary, max_bins):
    """Per-feature bin edges (strictly increasing float64 thresholds, at most max_bins − 1) from a sketch."""
    probabilities = np.arange(1, max_bins) / max_bins
    edges = []
    for values, weights, _ in summary:
        if values.size <= max_bins:
            # Halves first: (a + b) / 2 would overflow near the float64 maximum.
            edges.append(0.5 * values[:-1] + 0.5 * values[1:])
            continue
        cumulative = np.cumsum(weights)
        position = probabilities * (cumulative[-1] - 1.0)

        def order_statistic(k):  # the value of (0-based, weighted) rank k
            return values[np.minimum(np.searchsorted(cumulative, k, side="right"), values.size - 1)]

        below, above = order_statistic(np.floor(position)), order_statistic(np.ceil(position))
        edges.append(np.unique(0.5 * below + 0.5 * above))
    return edges
