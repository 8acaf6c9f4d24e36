"""What both CART estimators share: parameters, input checks, the call into the compiled builder."""

from math import ceil
from numbers import Integral, Real

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, clone
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import (
    Interval,
    Options,
    cancel_flag,
    check_sample_weight,
    interruptible,
    raise_if_cancelled,
    validate_params,
)
from ..utils.numerics import power_of_two_unit
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_predict_data
from ._binning import apply_bins, bin_value_ranges, cell_pointers, fit_bin_edges
from ._builder import ExactWork, HistData, HistWork, Rules, Target, Work, grow_tree
from ._criteria import ABSOLUTE_ERROR
from ._exact_data import exact_data, exact_search_input
from ._histogram import SampleStats
from ._pruning import ccp_path, prune_ccp, prune_error
from ._random import tree_state
from ._sparse_bins import MAX_DENSITY, sparse_bin_value_ranges, sparse_bins
from ._store import Store
from ._tree import tree_from_store

_NO_LIMIT = np.iinfo(np.int64).max // 4
_POOL_BYTES = 128 * 2**20  # memory for histograms kept for subtraction
# max_bins=None asks for the exact search, which reads a sparse X's nonzeros (_sparse_columns).
# With categorical features it reads dense columns: a sparse X is then made dense when that fits
# (``_exact_data.exact_search_input``), else it is grown on this many histogram bins (exact for
# every feature with at most this many distinct values).
SPARSE_MAX_BINS = 255


class _BaseDecisionTree(BaseEstimator):
    """Shared machinery of DecisionTreeClassifier and DecisionTreeRegressor (not public)."""

    _parameter_constraints = {
        "splitter": [Options({"best", "random"})],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_split": [Interval(Integral, 2, None, closed="left"), Interval(Real, 0.0, 1.0, closed="right")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0.0, 1.0, closed="neither")],
        "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
        "max_features": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0.0, 1.0, closed="right"),
                         Options({"sqrt", "log2"}), None],
        "random_state": ["random_state"],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
        "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
        "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
        "max_bins": [Interval(Integral, 2, 65535, closed="both"), None],
        "categorical_features": ["array-like", None],
        "error_prune_lambda": [Interval(Real, 0.0, None, closed="left"), None],
    }

    @interruptible
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on X (n_samples, n_features) and targets y; NaN in X is allowed."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, accept_sparse=("csr", "csc"), float32=True, ensure_all_finite="allow-nan",
                             y_numeric=not self._is_classifier)
        self._check_target(y)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        return self._fit_validated(X, y, sample_weight, params_checked=True)

    def _fit_validated(self, X, y, sample_weight=None, shared=None, params_checked=False, weight_unit=1.0):
        """``fit`` on already validated input (the fast path for ensembles).

        X: float64/float32 array or sparse matrix (n_samples, n_features) without infinities; y: 1-D labels
        (classifier) or floats (regressor); sample_weight: None or finite, non-negative floats;
        shared: ``_exact_data.SharedTables`` of X, made once for many trees on the same X (the
        exact search then takes each tree's samples out of them, instead of sorting or copying
        X for every tree). Parameters are checked unless ``params_checked`` (a forest checks its
        members' common prototype once); ``n_features_in_`` is set here. ``weight_unit``: what one
        unit of ``sample_weight`` is in the user's weights (a forest passes its weights divided by
        a power of 2), for ``weighted_n_node_samples``.
        """
        if not params_checked:
            validate_params(self)
        n_samples, n_features = X.shape
        self.n_features_in_ = n_features
        self.n_outputs_ = 1
        y_codes, y_values, n_values, weight = self._encode_target(y, sample_weight)
        samples = np.flatnonzero(weight > 0).astype(np.int32)
        if samples.size == 0:
            # (in a forest: a bootstrap that drew only zero-weight samples, e.g. of a class weighted 0)
            raise ValueError("sample_weight is zero for every sample, so no class carries any weight; at least one "
                             "weight must be positive.")
        # The tree does not change when every weight is multiplied by one constant; the power of 2
        # just below the largest weight as unit keeps the weighted sums (and the gini's squares) far
        # from overflow for weights near 1e300 and from underflow for weights near 1e-300, and
        # whole-number weights whole (the absolute error's median tests a sum for exactly half).
        unit = power_of_two_unit(weight)
        weight = weight / unit
        criterion = self._criterion_code()
        y_offset, y_unit, impurity_powers = 0.0, 1.0, 0
        if not self._is_classifier:
            # y in units of the power of 2 just below its largest |value| (exact: only exponents
            # change, and every comparison of the search with them), so that the split proxies S²/W
            # neither overflow for targets near 1e200 (no split was found: a one-leaf tree) nor
            # underflow near 1e-200; impurities are back in the user's units below. Then centred:
            # shifting y shifts only the leaf values, and the proxies are on the scale of the gains
            # they compare (and of the ties of _criteria.beats), however far from 0 the targets lie.
            y_unit = power_of_two_unit(np.abs(y_values[samples]))
            impurity_powers = 1 if criterion == ABSOLUTE_ERROR else 2  # (MAE is in y's units, MSE in their square)
            w = weight[samples]
            y_values = y_values / y_unit
            y_offset = float(w @ y_values[samples] / w.sum())
            y_values = y_values - y_offset
        X = exact_search_input(self, X)
        sparse = scipy.sparse.issparse(X)
        if criterion == ABSOLUTE_ERROR and sparse:
            raise TypeError("criterion='absolute_error' grows exact trees, which need dense data; use X.toarray() "
                            "or criterion='squared_error' (sparse X is grown on histograms).")
        if criterion == ABSOLUTE_ERROR and np.isnan(X).any():
            raise ValueError("criterion='absolute_error' does not support missing values (NaN) in X.")
        if criterion == ABSOLUTE_ERROR and self.max_bins is not None:
            raise ValueError("max_bins (histogram search) supports only criterion='squared_error' for regression.")
        is_cat = self._categorical_mask(n_features)
        total_weight = float(weight[samples].sum())
        rules = self._stopping_rules(n_samples, n_features, total_weight)
        if not self._is_classifier:
            threshold = rules.min_impurity_decrease
            for _ in range(impurity_powers):  # (divided once per power: y_unit² may be beyond any float)
                threshold /= y_unit
            rules = rules._replace(min_impurity_decrease=threshold)
        max_leaf_nodes = -1 if self.max_leaf_nodes is None else int(self.max_leaf_nodes)

        exact = hist = None  # one of the two modes; Numba compiles only the one given
        if self.max_bins is None and not (sparse and is_cat.any()):
            exact = exact_data(X, samples, rules.max_features, shared)
        else:
            stats = SampleStats(code=y_codes, weight=weight, target=weight * y_values if not self._is_classifier
                                else np.zeros(1), classes=self._is_classifier, unit_weight=False)
            max_bins = SPARSE_MAX_BINS if self.max_bins is None else int(self.max_bins)
            hist = _binned(X, samples, is_cat, max_bins, 1 + (n_values if self._is_classifier else 2),
                           check_random_state(self.random_state), stats)
        # A classifier's y and a regressor's class codes are None: Numba compiles only the task's own code.
        target = Target(codes=y_codes if self._is_classifier else None, y=None if self._is_classifier else y_values,
                        weight=weight, criterion=criterion, is_class=self._is_classifier, total_weight=total_weight,
                        is_categorical=is_cat, state=tree_state(self.random_state), l2=0.0)
        work = work_arrays(n_samples, samples.size, n_features, n_values, criterion, hist, bool(is_cat.any()))
        cancel = cancel_flag()
        fields, node_count = grow_tree(exact, hist, target, rules, work, max_leaf_nodes, samples.size, cancel)
        raise_if_cancelled(cancel)
        tree = tree_from_store(Store(*fields), node_count, n_features, self._n_classes_array(), max_leaf_nodes < 0)
        with np.errstate(over="ignore"):  # (a total of weights near the largest float is beyond it: inf)
            tree.nodes["weighted_n_node_samples"] *= unit
            tree.nodes["weighted_n_node_samples"] *= weight_unit
        with np.errstate(over="ignore"):  # (a squared error of targets near 1e200 is beyond any float: inf)
            tree.value += y_offset
            tree.value *= y_unit
            for _ in range(impurity_powers):  # (once per power: 0 stays 0 where the squared unit is inf)
                for field in ("impurity", "improvement"):
                    tree.nodes[field] *= y_unit
        if self.ccp_alpha > 0.0:
            tree = prune_ccp(tree, float(self.ccp_alpha))
        if self.error_prune_lambda is not None:
            tree = prune_error(tree, float(self.error_prune_lambda), self._is_classifier)
        self.tree_ = tree
        return self

    def _stopping_rules(self, n_samples, n_features, total_weight):
        msl = self.min_samples_leaf
        msl = ceil(msl * n_samples) if isinstance(msl, Real) and not isinstance(msl, Integral) else int(msl)
        mss = self.min_samples_split
        mss = max(2, ceil(mss * n_samples)) if isinstance(mss, Real) and not isinstance(mss, Integral) \
            else int(mss)
        mss = max(mss, 2 * msl)
        self.max_features_ = _resolve_max_features(self.max_features, n_features)
        max_depth = _NO_LIMIT if self.max_depth is None else int(self.max_depth)
        mwl = float(self.min_weight_fraction_leaf) * total_weight
        return Rules(max_depth=max_depth, min_samples_split=mss, min_samples_leaf=msl, min_weight_leaf=mwl,
                     min_impurity_decrease=float(self.min_impurity_decrease), max_features=self.max_features_,
                     random_splitter=self.splitter == "random")

    def _categorical_mask(self, n_features):
        mask = np.zeros(n_features, dtype=np.bool_)
        if self.categorical_features is None:
            return mask
        spec = np.asarray(self.categorical_features)
        if spec.dtype == bool:
            if spec.shape != (n_features,):
                raise ValueError(f"categorical_features as a mask needs {n_features} entries; got {spec.size}.")
            return spec.copy()
        if spec.size and (not np.issubdtype(spec.dtype, np.integer) or spec.min() < 0 or spec.max() >= n_features):
            raise ValueError(f"categorical_features must be feature indices in [0, {n_features}); got {spec!r}.")
        mask[spec.astype(np.intp)] = True
        return mask

    def _prepare_X(self, X):
        check_is_fitted(self)
        return check_predict_data(self, X, order="C", dtype=FLOAT_DTYPES, allow_nan=self._nan_allowed(),
                                  accept_sparse="csr")

    def _nan_allowed(self):
        return self.criterion != "absolute_error"

    def apply(self, X):
        """Index of the leaf each sample ends in (the categorical node itself for an unseen category)."""
        X = self._prepare_X(X)
        return self.tree_.apply(X)

    def decision_path(self, X):
        """Sparse indicator (n_samples, node_count) of the nodes each sample passes through."""
        X = self._prepare_X(X)
        return self.tree_.decision_path(X)

    def get_depth(self):
        """Depth of the tree: the longest root-to-leaf path (a lone root has depth 0)."""
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self)
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Weighted impurity decrease brought by each feature, normalised to sum to 1."""
        check_is_fitted(self)
        return self.tree_.compute_feature_importances()

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The weakest-link path: Bunch(ccp_alphas, impurities) of the unpruned tree (000 §7.6)."""
        est = clone(self).set_params(ccp_alpha=0.0, error_prune_lambda=None)
        est.fit(X, y, sample_weight=sample_weight)
        alphas, impurities = ccp_path(est.tree_)
        return Bunch(ccp_alphas=alphas, impurities=impurities)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._nan_allowed()
        tags.input_tags.sparse = self._nan_allowed()  # every criterion but the absolute error's
        return tags


def _resolve_max_features(max_features, n_features):
    if max_features is None:
        return n_features
    if max_features == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(max_features, Integral):
        if max_features > n_features:
            raise ValueError(f"max_features={max_features} exceeds the number of features ({n_features}).")
        return int(max_features)
    return max(1, int(max_features * n_features))


def _binned(X, samples, is_cat, max_bins, n_stats, rng, stats):
    """CART's histogram data: quantile bins, one bin per category of a categorical feature."""
    Xs = X if samples.size == X.shape[0] else X[samples]
    edges = fit_bin_edges(Xs, max_bins, random_state=rng)
    categories = {}
    for j in np.flatnonzero(is_cat):
        column = Xs[:, [j]].toarray().ravel() if scipy.sparse.issparse(Xs) else Xs[:, j]
        levels = np.unique(column[~np.isnan(column)])
        if levels.size > max_bins:
            raise ValueError(f"categorical feature {j} has {levels.size} categories, more than max_bins={max_bins}.")
        edges[j] = 0.5 * levels[:-1] + 0.5 * levels[1:]
        categories[j] = levels
    return histogram_data(X, edges, stats, n_stats, samples, samples, categories=categories)


def histogram_data(X, edges, stats, n_stats, samples, present, *, categories=None, occupancy=0, n_slots=None):
    """The builder's histogram mode (HistData) for X cut at ``edges``, every tree model's.

    ``stats``: what a sample adds to its bins (``_histogram.SampleStats``), ``n_stats`` columns per
    bin; ``samples``: the int32 rows to grow on (copied; the builder partitions them);
    ``present``: the rows whose values set each bin's range, hence the thresholds (those of
    positive weight); ``categories``: {feature: its sorted levels}, one bin each. A histogram has a
    row (cell) per bin of each feature and per feature's missing bin (``_binning.cell_pointers``);
    the pool keeps ``n_slots`` of them for subtraction (by default as many as 128 MiB hold).
    """
    lengths = np.array([len(e) for e in edges], dtype=np.int64)
    edge_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    cell_ptr = cell_pointers(edge_ptr)
    flat = np.concatenate([np.asarray(e, dtype=np.float64) for e in edges] + [np.zeros(1)])
    full = present.size == X.shape[0]
    binned = sparse = None
    if scipy.sparse.issparse(X) and X.nnz <= MAX_DENSITY * X.shape[0] * max(X.shape[1], 1):
        X = scipy.sparse.csr_matrix(X)  # codes for the stored entries only, row by row (_sparse_bins)
        X = X if X.has_canonical_format else X.sorted_indices()
        sparse = sparse_bins(X, flat, edge_ptr, n_stats)
        Xp = X if full else X[present]
        bin_lo, bin_hi = sparse_bin_value_ranges(Xp, sparse if full else sparse_bins(Xp, flat, edge_ptr, 1), cell_ptr)
    else:
        if scipy.sparse.issparse(X):
            X = scipy.sparse.csc_matrix(X)  # binned column by column, once
        # uint8 (≤ 255 bins) or uint16, Fortran order
        binned = apply_bins(X, edges, max(2, int(lengths.max(initial=0)) + 1))
        bin_lo, bin_hi = bin_value_ranges(X if full else X[present], binned if full else binned[present], cell_ptr)
    n_cells = int(cell_ptr[-1])
    bin_values = np.full(n_cells, np.nan)
    for j, levels in (categories or {}).items():
        bin_values[cell_ptr[j]:cell_ptr[j] + len(levels)] = levels
    if n_slots is None:
        n_slots = int(max(2, min(256, _POOL_BYTES // (max(n_cells, 1) * n_stats * 8))))
    pool = np.zeros((n_slots, n_cells, n_stats))
    scratch = np.zeros((n_cells, n_stats))
    m = samples.size
    return HistData(binned=binned, sparse=sparse, samples=samples.copy(), tmp_samples=np.empty(m, np.int32), edges=flat,
                    edge_ptr=edge_ptr, cell_ptr=cell_ptr, bin_values=bin_values, bin_lo=bin_lo,
                    bin_hi=bin_hi, pool=pool, scratch=scratch, free=np.zeros(n_slots, np.int64), stats=stats,
                    gathered=(np.empty(m), np.empty(m), np.empty(m, np.int32)), occupancy=occupancy,
                    all_samples=m == X.shape[0])


def work_arrays(n_samples, m, n_features, n_values, criterion, hist, any_categorical):
    """Scratch buffers of the builder and splitters (``_builder.Work``), allocated once per fit.

    Buffers of one entry per sample exist only where the fit needs them (the absolute error's
    medians and ranks, categorical groups): the rest is O(n_features + n_classes).
    """
    # The absolute error's buffers are None for every other criterion, and each mode's scratch is
    # None in the other mode: Numba then leaves their code out, and the node kernels, which take
    # ``work`` whole, count no references to arrays they never read.
    mae = criterion == ABSOLUTE_ERROR
    m_cat = m + 2 if any_categorical else 2
    exact = hist_work = None
    if hist is None:
        exact = ExactWork(counts=np.zeros(n_values), y_buffer=np.empty(m) if mae else None,
                          w_buffer=np.empty(m) if mae else None, features=np.arange(n_features, dtype=np.int64),
                          feature_lists=np.empty((2, n_features + 1), np.int64),
                          groups=np.empty(m_cat, np.int64), best_groups=np.empty(m_cat, np.int64),
                          rank_of=np.empty(n_samples, np.int64) if mae else None,
                          sorted_y=np.empty(m) if mae else None, fenwick=np.zeros((2, m + 1)) if mae else None,
                          abs_errors=np.zeros((2, m)) if mae else None)
    else:
        n_cells, n_stats = int(np.diff(hist.cell_ptr).max(initial=2)), hist.scratch.shape[1]  # (the most of a feature)
        hist_work = HistWork(features=np.empty(n_features, np.int64), groups=np.empty(n_cells, np.int64),
                             best_groups=np.empty(n_cells, np.int64), left=np.zeros(n_stats),
                             right=np.zeros(n_stats), bin_to_group=np.zeros(n_cells, np.int64), sums=np.zeros(n_stats))
    child_of = np.empty(n_samples if hist is None else 1, np.int32)  # the exact partition's
    return Work(value=np.zeros(max(n_values, 1)), median_y=np.empty(m) if mae else None,
                median_w=np.empty(m) if mae else None, child_of=child_of, exact=exact, hist=hist_work)
