"""Compiled histogram tree grower for gradient boosting (prediction: ``lucidml.tree._traversal``).

One regression tree is grown on binned features (see ``lucidml.tree._binning``) from per-sample
gradients gᵢ = ∂L/∂f and hessians hᵢ = ∂²L/∂f² (both already multiplied by the sample weight):

- a node's histogram holds, for every (feature, bin), the sample count, Σh and −Σg (the one
  histogram of every tree model, ``lucidml.tree._histogram``); it is built for the smaller child only, the larger child's is parent − smaller
  (histogram subtraction), so each level costs about half a pass over the data;
- a split (feature j, bin b) sends bin ≤ b left and the missing bin left or right, whichever
  scores better; its gain is the second-order loss reduction (XGBoost / LightGBM form)

      gain = ½ [ G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ) ],

  and a node splits only on a gain above rounding noise with ≥ min_samples_leaf samples and
  Σh > min_hessian on each side (ties go to the first feature in the tree's random order, as
  in scikit-learn's trees, then to the lowest threshold);
- growth is best-first (largest gain first) when ``max_leaf_nodes`` is set, depth-first
  otherwise (the same tree; depth-first keeps only O(depth) histograms alive);
- every node's value is the Newton step −G/(H+λ) (times ``leaf_scale``); for squared error
  (h = 1) it is the mean residual, for log-loss Σr/Σp(1−p), the leaf of 000 §7.8.4 Alg 11.

The tree is returned as flat node arrays; ``left == -1`` marks a leaf. The in-bag sample
indices are partitioned in place, so leaf ℓ owns ``sample_idx[start[ℓ]:stop[ℓ]]`` (used for the
exact line searches of the absolute-error, Huber and quantile losses, and to update the
training predictions without a tree traversal).
"""

import numpy as np

from ..tree._histogram import build_histogram, gap_threshold
from ..utils import njit

__all__ = ["add_leaf_values", "grow_tree", "newton_leaf_values"]

# Node arrays returned by grow_tree, in this order.
NODE_FIELDS = ("feature", "bin", "threshold", "missing_left", "left", "right", "value", "gain", "count", "start", "stop")


@njit
def _score(G, H, l2):
    return G * G / (H + l2) if H + l2 > 0.0 else 0.0


@njit
def _best_split(hist, feature_order, n_bins, missing_bin, G, H, C, l2, min_samples_leaf, min_hessian):
    """Best (gain, feature, bin, missing_left, G_L, H_L, C_L) over all features and thresholds.

    Features are visited in ``feature_order``; of splits with equal gain the first one found wins.
    """
    parent = _score(G, H, l2)
    best = (0.0, -1, -1, False, 0.0, 0.0, 0.0)
    for j in feature_order:
        hj = hist[j]
        # The histogram's columns are (count, Σh, −Σg): lucidml.tree._histogram's layout.
        gm, hm, cm = -hj[missing_bin, 2], hj[missing_bin, 1], hj[missing_bin, 0]
        # Pass 1 puts missing values right, pass 2 (only if the node has some) left.
        for pass_ in range(2 if cm > 0 else 1):
            missing_left = pass_ == 1
            gl, hl, cl = (gm, hm, cm) if missing_left else (0.0, 0.0, 0.0)
            # b = n_bins − 1 with missing right is the split "present" vs "missing".
            for b in range(n_bins[j]):
                if hj[b, 0] == 0.0:
                    continue  # an empty bin splits as the bin before it: same gain, which never wins a tie
                gl -= hj[b, 2]
                hl += hj[b, 1]
                cl += hj[b, 0]
                cr = C - cl
                if cr < min_samples_leaf:
                    break
                if cl < min_samples_leaf:
                    continue
                hr = H - hl
                if hl <= min_hessian or hr <= min_hessian:
                    continue
                score_l, score_r = _score(gl, hl, l2), _score(G - gl, hr, l2)
                gain = 0.5 * (score_l + score_r - parent)
                # Gains within rounding of 0 (a pure node) or of the best so far are no gain:
                # the first of tied splits wins however the sums were rounded.
                if gain > best[0] * (1.0 + 1e-9) and gain > 1e-10 * (score_l + score_r):
                    # A node without missing values sends future ones to the bigger child.
                    go_left = missing_left if cm > 0 else cl >= cr
                    best = (gain, j, b, go_left, gl, hl, cl)
    return best


@njit
def _leaf_value(G, H, l2, scale):
    # A node without curvature (p = 0 or 1 everywhere, or zero weights) cannot improve: 0.
    return 0.0 if H + l2 < 1e-150 else -scale * G / (H + l2)


@njit(interpret_small=True)
def grow_tree(
    Xb, stats, sample_idx, identity, feature_order, n_bins, missing_bin, flat_edges, edge_offsets, bin_lo,
    bin_hi, occupancy,
    max_depth, max_leaf_nodes, min_samples_leaf, min_hessian, l2, leaf_scale, pool, gathered, buffer,
):
    """Grow one tree; returns (node arrays in NODE_FIELDS order, pool — possibly enlarged).

    ``stats``: the samples' hessians (``weight``, or ``unit_weight``) and negated gradients
    (``target``), as ``lucidml.tree._histogram.build_histogram`` reads them. max_depth or
    max_leaf_nodes < 0 means unlimited. ``identity`` says sample_idx is 0..n−1.
    """
    n = sample_idx.shape[0]
    capacity = 2 * n - 1
    if max_leaf_nodes > 0:
        capacity = min(capacity, 2 * max_leaf_nodes - 1)
    if 0 <= max_depth < 30:
        capacity = min(capacity, 2 ** (max_depth + 1) - 1)
    feature = np.full(capacity, -1, np.int32)
    bin_ = np.full(capacity, -1, np.int32)
    threshold = np.full(capacity, np.nan)
    missing_left = np.zeros(capacity, np.bool_)
    left = np.full(capacity, -1, np.int32)
    right = np.full(capacity, -1, np.int32)
    value = np.zeros(capacity)
    gain = np.zeros(capacity)
    count = np.zeros(capacity, np.int64)
    start = np.zeros(capacity, np.int64)
    stop = np.zeros(capacity, np.int64)
    depth = np.zeros(capacity, np.int64)
    sum_g = np.zeros(capacity)
    sum_h = np.zeros(capacity)
    slot = np.full(capacity, -1, np.int64)
    # The best split found for each open node.
    cand_gain = np.zeros(capacity)
    cand_feature = np.zeros(capacity, np.int32)
    cand_bin = np.zeros(capacity, np.int32)
    cand_missing_left = np.zeros(capacity, np.bool_)
    cand_sums = np.zeros((capacity, 3))
    open_nodes = np.empty(capacity, np.int64)
    n_open = 0
    free = np.arange(pool.shape[0] - 1, -1, -1)
    n_free = free.shape[0]

    G = 0.0
    H = 0.0
    for k in range(n):
        s = k if identity else sample_idx[k]
        G -= stats.target[s]
        H += 1.0 if stats.unit_weight else stats.weight[s]
    sum_g[0], sum_h[0], count[0], start[0], stop[0] = G, H, n, 0, n
    value[0] = _leaf_value(G, H, l2, leaf_scale)
    n_nodes = 1
    n_leaves = 1

    # New nodes whose best split is still to be found: the root, then children in pairs.
    pending = np.empty(2, np.int64)
    n_pending = 0
    if (max_depth != 0) and n >= 2 * min_samples_leaf and max_leaf_nodes != 1:
        n_free -= 1
        slot[0] = free[n_free]
        build_histogram(Xb, sample_idx, np.int64(0), n, stats, identity, gathered, pool[slot[0]])
        pending[0] = 0
        n_pending = 1

    while True:
        # Look for the best split of the newly created nodes; they either open or become leaves.
        for p in range(n_pending):
            node = pending[p]
            found = _best_split(pool[slot[node]], feature_order, n_bins, missing_bin, sum_g[node], sum_h[node],
                                float(count[node]), l2, min_samples_leaf, min_hessian)
            if found[1] >= 0:
                cand_gain[node], cand_feature[node], cand_bin[node] = found[0], found[1], found[2]
                cand_missing_left[node] = found[3]
                cand_sums[node, 0], cand_sums[node, 1], cand_sums[node, 2] = found[4], found[5], found[6]
                open_nodes[n_open] = node
                n_open += 1
            else:
                free[n_free] = slot[node]
                n_free += 1
                slot[node] = -1
        n_pending = 0
        if n_open == 0 or (max_leaf_nodes > 0 and n_leaves >= max_leaf_nodes):
            break
        # Best-first: the open node with the largest gain; depth-first: the last one opened.
        pick = n_open - 1
        if max_leaf_nodes > 0:
            for q in range(n_open - 1):
                if cand_gain[open_nodes[q]] > cand_gain[open_nodes[pick]]:
                    pick = q
        node = open_nodes[pick]
        open_nodes[pick] = open_nodes[n_open - 1]
        n_open -= 1

        j, b, ml = cand_feature[node], cand_bin[node], cand_missing_left[node]
        feature[node], bin_[node], missing_left[node], gain[node] = j, b, ml, cand_gain[node]
        threshold[node] = gap_threshold(pool[slot[node]][j], occupancy, b, n_bins[j],
                                     flat_edges[edge_offsets[j]:edge_offsets[j + 1]], bin_lo[j], bin_hi[j])
        # Stable partition of the node's samples: left ones first, order kept (cache-friendly).
        lo, hi = start[node], stop[node]
        column = Xb[:, j]
        n_left = 0
        n_right = 0
        for k in range(lo, hi):
            s = sample_idx[k]
            v = column[s]
            if (v == missing_bin and ml) or (v != missing_bin and v <= b):
                sample_idx[lo + n_left] = s
                n_left += 1
            else:
                buffer[n_right] = s
                n_right += 1
        sample_idx[lo + n_left:hi] = buffer[:n_right]
        identity = False

        GL, HL = cand_sums[node, 0], cand_sums[node, 1]
        children = (n_nodes, n_nodes + 1)
        left[node], right[node] = children
        for t in range(2):
            c = children[t]
            if t == 0:
                sum_g[c], sum_h[c], count[c], start[c], stop[c] = GL, HL, n_left, lo, lo + n_left
            else:
                sum_g[c], sum_h[c] = sum_g[node] - GL, sum_h[node] - HL
                count[c], start[c], stop[c] = n_right, lo + n_left, hi
            depth[c] = depth[node] + 1
            value[c] = _leaf_value(sum_g[c], sum_h[c], l2, leaf_scale)
        n_nodes += 2
        n_leaves += 1

        grow = np.zeros(2, np.bool_)
        for t in range(2):
            c = children[t]
            grow[t] = ((max_depth < 0 or depth[c] < max_depth) and count[c] >= 2 * min_samples_leaf
                       and sum_h[c] > 2.0 * min_hessian and (max_leaf_nodes < 0 or n_leaves < max_leaf_nodes))
        if not (grow[0] or grow[1]):
            free[n_free] = slot[node]
            n_free += 1
            continue
        # Smaller child from the data, larger = parent − smaller, in the parent's slot.
        small, large = (0, 1) if n_left <= n_right else (1, 0)
        if n_free == 0:
            old = pool.shape[0]
            bigger = np.empty((2 * old,) + pool.shape[1:])
            bigger[:old] = pool
            pool = bigger
            free = np.empty(2 * old, np.int64)
            free[:old] = np.arange(2 * old - 1, old - 1, -1)
            n_free = old
        n_free -= 1
        s_small = free[n_free]
        c_small, c_large = children[small], children[large]
        build_histogram(Xb, sample_idx, start[c_small], stop[c_small], stats, identity, gathered, pool[s_small])
        parent_hist = pool[slot[node]]
        parent_hist -= pool[s_small]
        slot[c_small], slot[c_large] = s_small, slot[node]
        slot[node] = -1
        for t in range(2):
            c = children[t]
            if grow[t]:
                pending[n_pending] = c
                n_pending += 1
            else:
                free[n_free] = slot[c]
                n_free += 1
                slot[c] = -1

    m = n_nodes
    nodes = (feature[:m], bin_[:m], threshold[:m], missing_left[:m], left[:m], right[:m],
             value[:m], gain[:m], count[:m], start[:m], stop[:m])
    return nodes, pool


@njit(interpret_small=True)
def newton_leaf_values(sample_idx, left, start, stop, g, h, l2, scale, value):
    """value[leaf] = −scale · Σg/(Σh + λ) over each leaf's samples, for a tree whose splits were
    chosen on other sums (the first-order criterion: splits on h = 1, leaves on the true h)."""
    for node in range(left.shape[0]):
        if left[node] == -1:
            G = 0.0
            H = 0.0
            for k in range(start[node], stop[node]):
                G += g[sample_idx[k]]
                H += h[sample_idx[k]]
            value[node] = _leaf_value(G, H, l2, scale)


@njit(interpret_small=True)
def add_leaf_values(raw, column, sample_idx, left, start, stop, value):
    """raw[s, column] += value[leaf] for every in-bag sample s of every leaf (no traversal)."""
    for node in range(left.shape[0]):
        if left[node] == -1:
            v = value[node]
            for k in range(start[node], stop[node]):
                raw[sample_idx[k], column] += v
