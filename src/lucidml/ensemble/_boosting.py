"""The boosting loop shared by GradientBoostingRegressor and GradientBoostingClassifier."""

from collections import namedtuple
from contextlib import nullcontext
from itertools import pairwise
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from numba import prange
from sklearn.base import BaseEstimator
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._config import kernel_threads
from ..tree._base import histogram_data, work_arrays
from ..tree._binning import fit_bin_edges
from ..tree._builder import Rules, Target, grow_tree
from ..tree._criteria import NEWTON
from ..tree._histogram import PARALLEL_MIN_ENTRIES, SampleStats
from ..tree._nodes import TREE_LEAF
from ..tree._random import new_state
from ..tree._store import Store
from ..tree._traversal import sum_leaf_values, tree_rows
from ..utils import (
    VERBOSE,
    Interval,
    Options,
    StageTable,
    cancel_flag,
    check_sample_weight,
    njit,
    raise_if_cancelled,
    unsigned,
)
from ..utils._interrupt import unfit
from ..utils.numerics import power_of_two_unit
from ..utils.validation import FLOAT_DTYPES, check_predict_data
from ._losses import gradient_arrays

# A grown boosting tree's leaves and their samples: leaf ℓ (``nodes[ℓ]["left_child"] == -1``)
# holds the samples ``samples[start[ℓ]:stop[ℓ]]`` (the builder's order after partitioning).
Leaves = namedtuple("Leaves", ["samples", "nodes", "start", "stop"])
# A Newton leaf value −scale · Σg/(Σh + λ): the gradients and hessians of the tree's class (h
# unused when ``unit_hessian``), λ and the shrinkage.
NewtonStep = namedtuple("NewtonStep", ["g", "h", "unit_hessian", "l2", "scale"])

_NO_CLASSES = np.zeros(1, np.int32)  # a regression tree's histograms have no class column
_NO_LIMIT = np.iinfo(np.int64).max // 4

# Children need some curvature, Σh > 10⁻³·(mean weight), as in LightGBM and scikit-learn's
# HistGradientBoosting: it keeps log-loss trees from isolating samples that are already certain.
MIN_CHILD_HESSIAN = 1e-3

COMMON_DOC = """
    Algorithm (000 §7.8.3–7.8.4, Alg 11; second-order trees as in XGBoost/LightGBM)::

        f₀ = argmin_μ Σᵢ wᵢ L(yᵢ, μ)
        for m = 1 … n_estimators:
            gᵢ = wᵢ ∂L/∂f(xᵢ),  hᵢ = wᵢ ∂²L/∂f(xᵢ)²        (rᵢ = −gᵢ/wᵢ is the working target)
            grow a tree on binned features, split gain ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)]
                (H = Σw: a least-squares fit to rᵢ; H = Σh with criterion="newton")
            leaf γ = −G/(H+λ) (Newton), or the exact argmin_γ Σ_leaf L(y, f + γ)
            f_m = f_{m−1} + ν · tree

    With squared error (h = 1, λ = 0) this is Alg 11 exactly: the gain is the drop in the sum
    of squared residuals and γ the mean residual. Features are cut once into at most
    ``max_bins`` quantile bins (``lucidml.tree._binning``); a feature with fewer distinct values
    keeps them all, so small data get the exact splits. Missing values (NaN) have their own bin
    and go to whichever child lowers the loss (to the bigger child when the node saw none).
    Histograms are built for the smaller child only; the sibling's is the parent's minus it.
    Children must hold Σh > 10⁻³ (mean weight) as in LightGBM. Trees live in one flat node array
    and are predicted in one compiled pass.

    Parameters
    ----------
    learning_rate : float, default=0.1
        Shrinkage ν of every tree (the notes use 1.0).
    n_estimators : int, default=100
        Number of boosting stages.
    subsample : float in (0, 1], default=1.0
        Fraction of samples drawn without replacement for each stage (stochastic boosting);
        below 1 the out-of-bag loss is tracked in ``oob_improvement_``.
    max_depth : int or None, default=3
        Depth limit of each tree (edges from the root; None = unlimited).
    max_leaf_nodes : int or None, default=None
        When set, trees grow best-first (largest gain first) up to this many leaves.
    min_samples_leaf : int, default=1
        Minimum number of training samples in a leaf (HistGradientBoosting's default is 20).
    l2_regularization : float, default=0.0
        λ in the gain and in the Newton leaf −G/(H+λ).
    max_bins : int, default=255
        Maximum number of bins per feature for non-missing values (2 … 65535; above 255 the
        bins are uint16 and the histograms larger).
    validation_fraction : float, default=0.1
        Share of the training data held out for early stopping.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not beaten any of the last ``n_iter_no_change``
        losses by ``tol``.
    tol : float, default=1e-4
        Required improvement of the validation loss for early stopping.
    criterion : {"friedman_mse", "squared_error", "newton"}, default="friedman_mse"
        How a split is scored. "friedman_mse" and "squared_error" (the same splits: Friedman's
        improvement w_L·w_R/(w_L + w_R)·(r̄_L − r̄_R)² is the drop in squared error) fit each tree
        to the working target r = −g/w by least squares, as Alg 11 and scikit-learn's
        GradientBoosting do; "newton" scores with the hessians too, the second-order gain above
        (XGBoost, LightGBM, HistGradientBoosting). Leaves are Newton steps either way. Only the
        log-losses tell the two apart: elsewhere the hessian is the weight.
    init : None or "zero", default=None
        None starts from f₀ above, "zero" from f₀ = 0.
    warm_start : bool, default=False
        Keep the fitted stages and add new ones up to ``n_estimators`` (same data expected).
    random_state : int, RandomState or None
        Draws the subsamples, the bin subsample and the validation split.
    verbose : int, default=0
        Progress on standard output: 0 prints nothing; 1 prints a header and the training loss
        (with the out-of-bag improvement when subsample < 1) and the estimated remaining time for
        stages 1–10, then every 10th, every 100th, …; 2 or more prints every stage. The losses
        printed are those of ``train_score_``.

    Attributes
    ----------
    nodes_ : ndarray of ``lucidml.tree._nodes.NODE_DTYPE`` records
        Every node of every tree, one tree after another, in the layout of every lucidml tree:
        ``feature``, ``threshold`` (go left iff x ≤ threshold), ``missing_go_to_left``,
        ``left_child``/``right_child`` (−1 at a leaf; ids within the node's tree: node ``u`` of
        the tree rooted at ``r`` is ``nodes_[r + u]``), ``improvement`` (the split's gain),
        ``n_node_samples`` and ``weighted_n_node_samples`` (Σh of the in-bag samples).
    node_values_ : ndarray of shape (n_nodes,)
        What each leaf adds to the raw score (ν·γ, already shrunk); 0 at the other nodes.
    tree_roots_ : ndarray of shape (n_estimators_, n_trees_per_stage)
        Index in ``nodes_`` of the root of each tree (the grid of scikit-learn's ``estimators_``).
    baseline_prediction_ : ndarray of shape (n_trees_per_stage,)
        f₀ on the raw (link) scale.
    n_estimators_ : int
        Stages fitted (fewer than ``n_estimators`` after early stopping); ``n_iter_`` is the same.
    train_score_ : ndarray of shape (n_estimators_,)
        Loss on the in-bag samples after each stage, on scikit-learn's scale; ``loss_curve_``
        is the same array. (No ConvergenceWarning: n_estimators is a size, not an iteration cap.)
    oob_improvement_, oob_scores_, oob_score_ : present when subsample < 1
        Out-of-bag loss decrease per stage, out-of-bag loss per stage, and its last value.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Total split gain (loss reduction) per feature, normalised to sum to 1.
    n_features_in_ : int
"""


class _BaseGradientBoosting(BaseEstimator):
    """Histogram gradient boosting: state, the stage loop and raw (link-scale) predictions."""

    _parameter_constraints: ClassVar[dict] = {
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "n_estimators": [Interval(Integral, 1, None)],
        "subsample": [Interval(Real, 0, 1, closed="right")],
        "max_depth": [Interval(Integral, 1, None), None],
        "max_leaf_nodes": [Interval(Integral, 2, None), None],
        "min_samples_leaf": [Interval(Integral, 1, None)],
        "l2_regularization": [Interval(Real, 0, None)],
        "max_bins": [Interval(Integral, 2, 65535)],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None), None],
        "tol": [Interval(Real, 0, None)],
        "init": [Options({"zero"}), None],
        "criterion": [Options({"friedman_mse", "squared_error", "newton"})],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags

    def _continuing(self):
        return self.warm_start and hasattr(self, "nodes_")

    def _fit(self, X, y, sample_weight, loss, stratify):
        """Boost on validated X (float32/float64 array or CSR matrix) and encoded y; sets every fitted attribute."""
        w = check_sample_weight(sample_weight, X.shape[0])
        # Losses, gradients and hessians are linear in the weights: measured in units of the
        # power of 2 just below the largest weight (λ too: exact), the model is the same and Σw·g stays
        # finite for weights near 1e300.
        self._weight_unit = 1.0 if w is None else power_of_two_unit(w)
        w = None if w is None else w / self._weight_unit
        continuing = self._continuing()
        if continuing and self.n_estimators < self.n_estimators_:
            raise ValueError(f"n_estimators={self.n_estimators} must be ≥ the {self.n_estimators_} stages "
                             "already fitted when warm_start=True.")
        validation = None
        if self.n_iter_no_change is not None:
            parts = train_test_split(X, y, *([] if w is None else [w]), test_size=self.validation_fraction,
                                     random_state=self.random_state, stratify=y if stratify else None)
            X, X_val, y, y_val = parts[:4]
            w, w_val = (parts[4], parts[5]) if w is not None else (None, None)
            validation = (X_val, y_val, w_val, self._raw_predict_validated(X_val) if continuing else None)
        if continuing:
            stages, scores = self._unflatten(), list(self.train_score_)
            oob = (list(self.oob_improvement_), list(self.oob_scores_)) if hasattr(self, "oob_scores_") else None
        else:
            self._rng = check_random_state(self.random_state)
            # Zero-weight samples add no threshold (weight 0 ≡ sample removed).
            self._bin_edges = fit_bin_edges(X if w is None else X[w > 0], self.max_bins, random_state=self._rng)
            self.baseline_prediction_ = (np.zeros(loss.n_trees) if self.init == "zero"
                                         else loss.baseline(y, w).astype(np.float64))
            stages, scores, oob = [], [], None
        if self.subsample < 1.0 and oob is None:
            oob = ([np.nan] * len(stages), [np.nan] * len(stages))
        raw = self._raw_predict_validated(X) if continuing else np.tile(self.baseline_prediction_, (X.shape[0], 1))
        if validation is not None and validation[3] is None:
            validation = (*validation[:3], np.tile(self.baseline_prediction_, (validation[0].shape[0], 1)))
        # A small table is boosted on the calling thread alone: its histograms are built serially
        # anyway (_histogram.PARALLEL_MIN_ENTRIES), and a thread team woken for every gradient and
        # leaf pass costs more than the pass (on a busy machine, many times the whole fit).
        small = X.shape[0] * X.shape[1] < PARALLEL_MIN_ENTRIES
        with kernel_threads(1) if small else nullcontext(), np.errstate(over="ignore", invalid="ignore"):
            self._boost(X, y, w, loss, raw, stages, scores, oob, validation)
        leaves_finite = all(np.all(np.isfinite(values)) for stage in stages for _, values in stage)
        if not (leaves_finite and np.all(np.isfinite(raw))):
            if not continuing:  # (a warm start's earlier stages are kept: nothing new was stored)
                unfit(self)
            raise ValueError(f"{type(self).__name__}: the model's predictions overflowed (targets up to "
                             f"{float(np.max(np.abs(y))):.3g}, learning_rate={self.learning_rate}); rescale y or "
                             "lower learning_rate.")
        self._finish(stages, scores, oob)
        return self

    def _boost(self, X, y, w, loss, raw, stages, scores, oob, validation):
        """Alg 11: stages of K trees on the gradients at the current raw predictions."""
        n, K = X.shape[0], loss.n_trees
        n_inbag = max(1, int(self.subsample * n))
        l2 = float(self.l2_regularization) / self._weight_unit
        leaf_scale = self.learning_rate * getattr(loss, "leaf_factor", 1.0)
        # The first-order criterion grows each tree as a least-squares fit to the working target
        # −g/w (split sums Σg and Σw), as scikit-learn's GradientBoosting and Alg 11 do; "newton"
        # uses Σh in the splits too. Only the log-losses have h other than w.
        first_order = self.criterion != "newton" and not loss.constant_hessian
        # Zero-weight samples count as absent where a threshold is placed, as in the bin edges,
        # when the histogram's hessian column is Σw (weighted fits whose splits use h = w): a bin
        # holding only them is a gap, and their values are left out of the bin ranges.
        occupancy = 1 if w is not None and (first_order or loss.constant_hessian) else 0
        present = np.flatnonzero(w > 0) if occupancy == 1 else np.arange(n)
        depth = None if self.max_depth is None else int(self.max_depth)
        leaves = -1 if self.max_leaf_nodes is None else int(self.max_leaf_nodes)
        # Live histograms: one per open node (best-first) or per level of the depth-first stack.
        n_slots = leaves + 1 if leaves > 0 else (depth + 2 if depth is not None else 64)
        all_rows = np.arange(n, dtype=np.int32)
        order, minus_g = np.empty(n, dtype=np.int32), np.empty(n)  # filled anew for every tree
        unit = SampleStats(code=_NO_CLASSES, weight=np.zeros(1), target=np.zeros(1), classes=False, unit_weight=True)
        base = histogram_data(X, self._bin_edges, unit, 3, all_rows, present, occupancy=occupancy, n_slots=n_slots)
        work = work_arrays(n, n, X.shape[1], 1, NEWTON, base, False)
        no_categories = np.zeros(X.shape[1], np.bool_)
        min_hessian = MIN_CHILD_HESSIAN * (1.0 if w is None else float(np.mean(w)))
        rules = Rules(max_depth=_NO_LIMIT if depth is None else depth, min_samples_split=2 * self.min_samples_leaf,
                      min_samples_leaf=self.min_samples_leaf, min_weight_leaf=min_hessian,
                      min_impurity_decrease=0.0, max_features=X.shape[1], random_splitter=False)
        cancel = cancel_flag()
        history = np.full(self.n_iter_no_change or 1, np.inf)
        wsub = (lambda rows: None) if w is None else (lambda rows: w[rows])
        # The log-losses and the squared error return the training loss at f with the gradients at f:
        # a stage's score is then filled in by the next stage's gradient pass (one pass over the data saved).
        fused = hasattr(loss, "gradients_and_loss") and n_inbag == n
        gradients = gradient_arrays(loss, n) if fused else None  # rewritten at every stage
        do_oob = n_inbag < n
        table = StageTable(self.verbose, self.n_estimators, ["Train Loss", "OOB Improve"] if do_oob else ["Train Loss"],
                           begin=len(stages))

        def report(j):  # the row of 0-based stage j, once its training loss is known
            table.row(j + 1, scores[j], *([oob[0][j]] if do_oob else []))

        for stage in range(len(stages), self.n_estimators):
            in_bag = all_rows
            if n_inbag < n:
                in_bag = np.sort(self._rng.choice(n, n_inbag, replace=False)).astype(np.int32)
                out_of_bag = np.setdiff1d(np.arange(n), in_bag)
                oob_before = loss(y[out_of_bag], raw[out_of_bag], wsub(out_of_bag))
            trees = []
            if fused:
                g, h, current = loss.gradients_and_loss(y, raw, w, out=gradients)
                if scores and scores[-1] is None:
                    scores[-1] = current
                    report(len(scores) - 1)
            else:
                g, h = loss.gradients(y, raw, w)
            for k in range(K):
                raise_if_cancelled(cancel)
                split_h = (w if first_order else h[k]) if h is not None else None  # None: h ≡ 1
                # The histograms' columns: count, Σh (Σw for the first-order criterion), −Σg.
                stats = SampleStats(code=_NO_CLASSES, weight=g[k] if split_h is None else split_h,
                                    target=np.negative(g[k], out=minus_g), classes=False, unit_weight=split_h is None)
                # The builder partitions the samples in place: into one array for every tree (a fresh
                # array per tree is a fresh mapping, its pages faulted in again each time).
                order[:n_inbag] = in_bag
                hist = base._replace(samples=order[:n_inbag], stats=stats, all_samples=n_inbag == n)
                # A random feature order per node breaks ties between equally good splits as
                # scikit-learn's trees do; always the first feature would repeat one choice in every tree.
                target = Target(codes=None, y=None, weight=stats.weight, criterion=NEWTON, is_class=False,
                                total_weight=1.0, is_categorical=no_categories, state=new_state(self._rng), l2=l2)
                fields, node_count = grow_tree(None, hist, target, rules, work, leaves, n_inbag, cancel)
                store = Store(*fields)
                raise_if_cancelled(cancel)
                # The tree in creation order; the builder partitioned hist.samples into its leaves.
                growth = store.growth[:node_count]
                nodes = store.nodes[:node_count].copy()
                in_leaves = Leaves(hist.samples, nodes, growth["start"].copy(), growth["end"].copy())
                value = np.zeros(node_count)
                newton = None
                if loss.newton:  # the Newton step −Σg/(Σh + λ) of each leaf, on the true hessians
                    newton = NewtonStep(g[k], g[k] if h is None else h[k], h is None, l2, leaf_scale)
                else:  # the exact line search of Alg 11 line 5, leaf by leaf
                    for leaf in np.flatnonzero(nodes["left_child"] == TREE_LEAF):
                        rows = in_leaves.samples[in_leaves.start[leaf]:in_leaves.stop[leaf]]
                        value[leaf] = self.learning_rate * loss.leaf_value(y[rows] - raw[rows, k], wsub(rows))
                add_leaf_values(raw, k, in_leaves, value, newton)
                if n_inbag < n:
                    raw[out_of_bag, k] += _apply_tree(X[out_of_bag], nodes, value)
                trees.append((nodes, value))
            stages.append(trees)
            if fused:
                scores.append(None)
            else:
                scores.append(loss(y[in_bag], raw[in_bag], wsub(in_bag)) if n_inbag < n else loss(y, raw, w))
            if n_inbag < n:
                oob[1].append(loss(y[out_of_bag], raw[out_of_bag], wsub(out_of_bag)))
                oob[0].append(oob_before - oob[1][-1])
            elif oob is not None:  # a warm start went on without subsampling
                oob[0].append(np.nan)
                oob[1].append(np.nan)
            if not fused:
                report(stage)
            if validation is not None:
                X_val, y_val, w_val, raw_val = validation
                for k, (nodes, value) in enumerate(trees):
                    raw_val[:, k] += _apply_tree(X_val, nodes, value)
                # Go on while this loss beats one of the last n_iter_no_change by tol.
                val_loss = loss(y_val, raw_val, w_val)
                if not np.any(val_loss + self.tol < history):
                    break
                history[stage % history.size] = val_loss
        if scores and scores[-1] is None:
            scores[-1] = loss(y, raw, w)
            report(len(scores) - 1)

    def _finish(self, stages, scores, oob):
        """Put the trees, one after another, into nodes_ / node_values_ / tree_roots_ and set the summaries."""
        trees = [tree for stage in stages for tree in stage]
        sizes = [nodes.size for nodes, _ in trees]
        self.nodes_ = np.concatenate([nodes for nodes, _ in trees])
        self.node_values_ = np.concatenate([value for _, value in trees])
        self.tree_roots_ = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64).reshape(len(stages), -1)
        self.n_estimators_ = self.n_iter_ = len(stages)
        self.train_score_ = self.loss_curve_ = np.array(scores)
        if oob is not None:
            self.oob_improvement_, self.oob_scores_ = np.array(oob[0]), np.array(oob[1])
            self.oob_score_ = float(self.oob_scores_[-1])

    def _unflatten(self):
        """The per-stage lists of (nodes, values) of each tree that _finish put together (for warm_start)."""
        bounds = np.append(self.tree_roots_.ravel(), self.nodes_.size)
        trees = [(self.nodes_[a:b].copy(), self.node_values_[a:b].copy()) for a, b in pairwise(bounds)]
        K = self.tree_roots_.shape[1]
        return [trees[i:i + K] for i in range(0, len(trees), K)]

    @property
    def feature_importances_(self):
        check_is_fitted(self)
        split = self.nodes_["left_child"] != TREE_LEAF
        total = np.bincount(self.nodes_["feature"][split], weights=self.nodes_["improvement"][split],
                            minlength=self.n_features_in_)
        return total / total.sum() if total.sum() > 0 else total

    def _raw_predict_validated(self, X, stages=None):
        """f₀ plus the trees' values: raw scores (n_samples, n_trees_per_stage); ``stages`` a slice of them."""
        raw = np.tile(self.baseline_prediction_, (X.shape[0], 1))
        self._add_stages(tree_rows(X), raw, slice(None) if stages is None else stages)
        return raw

    def _add_stages(self, X, raw, stages):
        """raw[:, k] += the values of the trees of class k in the given stages."""
        roots = self.tree_roots_[stages]
        columns = np.broadcast_to(np.arange(roots.shape[1]), roots.shape)
        sum_leaf_values(X, self.nodes_, self.node_values_[:, None], roots.ravel().astype(np.intp),
                        columns.ravel().astype(np.intp), raw)

    def _validate_X(self, X):
        check_is_fitted(self)
        return check_predict_data(self, X, dtype=FLOAT_DTYPES, allow_nan=True, accept_sparse="csr")

    def _raw_predict(self, X):
        return self._raw_predict_validated(self._validate_X(X))

    def _staged_raw_predict(self, X):
        X = tree_rows(self._validate_X(X))
        raw = np.tile(self.baseline_prediction_, (X.shape[0], 1))
        for stage in range(self.n_estimators_):
            self._add_stages(X, raw, slice(stage, stage + 1))
            yield raw.copy()


@njit(parallel=True, interpret_small=True)
def add_leaf_values(raw, column, leaves, value, newton):
    """raw[s, column] += value[leaf] for every in-bag sample s of every leaf (no traversal).

    With ``newton`` (a :class:`NewtonStep`), each leaf's value is first set, in the same pass over
    its samples, to the Newton step −scale · Σg/(Σh + λ) (Σh = the count when ``unit_hessian``); a
    leaf without curvature (p = 0 or 1 everywhere, or zero weights) cannot improve: 0. Leaves go
    to the threads (each sample is in one leaf).
    """
    for node in prange(leaves.nodes.shape[0]):
        if leaves.nodes[node]["left_child"] == -1:
            if newton is not None:
                G = 0.0
                H = 0.0
                for k in range(leaves.start[node], leaves.stop[node]):
                    i = unsigned(leaves.samples[k])  # (indexes without Numba's negative-index wraparound)
                    G += newton.g[i]
                    H += 1.0 if newton.unit_hessian else newton.h[i]
                value[node] = 0.0 if H + newton.l2 < 1e-150 else -newton.scale * G / (H + newton.l2)
            v = value[node]
            for k in range(leaves.start[node], leaves.stop[node]):
                raw[unsigned(leaves.samples[k]), column] += v


def _apply_tree(X, nodes, value):
    """One tree's values for the rows of X."""
    out = np.zeros((X.shape[0], 1))
    sum_leaf_values(tree_rows(X), nodes, value[:, None], np.zeros(1, np.intp), np.zeros(1, np.intp), out)
    return out[:, 0]
