"""Gradient boosting on Dask data: histogram trees grown from per-chunk histograms (LightGBM/XGBoost style)."""


import dask
import numpy as np
from sklearn.utils import check_random_state

from ..ensemble import GradientBoostingClassifier as _LocalClassifier
from ..ensemble import GradientBoostingRegressor as _LocalRegressor
from ..ensemble._boosting import MIN_CHILD_HESSIAN
from ..ensemble._losses import LOSSES
from ..tree._base import histogram_data, work_arrays
from ..tree._binning import BIN_SUBSAMPLE
from ..tree._builder import Rules, Target
from ..tree._criteria import NEWTON
from ..tree._histogram import SampleStats
from ..tree._random import new_state
from ..utils import Options
from ..utils.validation import check_classification_targets
from ._base import DaskEstimator
from ._boost_chunk import advance, histograms, init_state, merge_ranges, state_loss, state_ranges
from ._boost_grow import Search, TreeGrowth
from ._categories import encode_categories, fit_categories
from ._chunks import as_dask_X, as_dask_y, compute, map_chunks, tree_reduce
from ._classify import labels_that_sort
from ._moments import finite
from ._predict import lazy_method
from ._rounds import Rounds
from ._sketch import chunk_summary, merge_summaries, summary_edges

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor"]

_NO_LIMIT = np.iinfo(np.int64).max // 4
_SHARED = ("n_estimators", "learning_rate", "max_depth", "max_leaf_nodes", "min_samples_leaf", "l2_regularization",
           "max_bins", "init", "criterion", "random_state")


def _first_pass(X, y, classifier, fraction, seed, index):
    """One chunk's quantile sketch of every feature, and what the baseline needs of y: its labels and
    their counts (classification), or Σy and the count.

    With ``fraction`` < 1 the sketch is made of a random share of the chunk's rows (each kept with
    that probability, drawn from ``seed`` and the chunk's ``index``): the in-memory booster's bins
    come from at most ``BIN_SUBSAMPLE`` rows, and sorting the chunk's columns is most of this pass.
    """
    X = np.asarray(X)
    if np.isinf(X).any():
        raise ValueError("Input X contains infinity; gradient boosting takes NaN as a missing value, not infinity.")
    sketched = X if fraction >= 1.0 else X[np.random.default_rng([seed, index]).random(X.shape[0]) < fraction]
    y = np.asarray(y)
    if classifier:
        with labels_that_sort():
            labels, counts = np.unique(y, return_counts=True)
        return chunk_summary(sketched), (labels, counts.astype(np.float64))
    y = finite(y.astype(np.float64), "y")  # (and |y| ≤ 1e100: the split gains square it, as in memory)
    return chunk_summary(sketched), (float(y.sum()), float(y.size))


def _merge_first(a, b):
    if isinstance(a[1][0], np.ndarray):
        labels = np.concatenate([a[1][0], b[1][0]])
        counts = np.concatenate([a[1][1], b[1][1]])
        with labels_that_sort():
            merged, index = np.unique(labels, return_inverse=True)
        target = (merged, np.bincount(index.ravel(), weights=counts, minlength=merged.size))
    else:
        target = (a[1][0] + b[1][0], a[1][1] + b[1][1])
    return merge_summaries(a[0], b[0]), target


class _DaskGradientBoosting(DaskEstimator):
    """The data-parallel boosting loop shared by the classifier and the regressor (not public)."""

    def _fit(self, X, y, classifier):
        local = self._new_local()
        self.categories_ = fit_categories(X)
        X, names = as_dask_X(encode_categories(X, self.categories_))
        y = as_dask_y(y, X)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D; got shape {y.shape}.")
        n, d = X.shape
        fraction = min(1.0, BIN_SUBSAMPLE / max(n, 1))
        # Drawn only when rows are sampled, as in memory: the trees' random states come next.
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max)) if fraction < 1 else 0
        summary, target_summary = compute(tree_reduce(
            map_chunks(_first_pass, X, y, classifier, fraction, seed, numbered=True), _merge_first))[0]
        classes = None
        if classifier:
            classes, counts = target_summary
            check_classification_targets(classes)
            if classes.size < 2:
                raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; got 1 class "
                                 f"({classes[0]!r}).")
            loss = LOSSES["log_loss"](None, classes.size)
            baseline = loss.baseline(np.arange(classes.size), counts)
            spec = ("log_loss", classes.size)
        else:
            loss = LOSSES[self.loss](None, 1)
            baseline = loss.baseline(np.array([target_summary[0] / target_summary[1]]), None)
            spec = (self.loss, 1)
        baseline = np.zeros(loss.n_trees) if self.init == "zero" else np.asarray(baseline, np.float64)
        edges = summary_edges(summary, int(self.max_bins))

        init = dask.delayed(init_state, pure=False)
        rounds = Rounds()
        rounds.start([init(xb, yb, edges, spec, classes, baseline)
                      for xb, yb in zip(X.to_delayed().ravel(), y.to_delayed().ravel())])
        roots = [(k, [], [0]) for k in range(loss.n_trees)]
        ranges, root_hists = rounds.totals([(state_ranges, (), merge_ranges), (histograms, (roots,))])
        search = self._search(edges, ranges, d, loss)
        rng = check_random_state(self.random_state)
        max_leaf_nodes = -1 if self.max_leaf_nodes is None else int(self.max_leaf_nodes)
        l2 = float(self.l2_regularization)
        stages, scores = [], []
        for stage in range(self.n_estimators):
            trees = []
            for k in range(loss.n_trees):
                target = search["target"]._replace(state=new_state(rng))
                tree = TreeGrowth(k, Search(search["data"], search["rules"], target, search["work"],
                                            search["first_order"], search["leaf_scale"]), max_leaf_nodes)
                tree.set_root(root_hists[k])
                trees.append(tree)
            self._grow(rounds, trees)
            finished = [tree.finish(l2) for tree in trees]
            stages.append([(records, values) for records, values, _, _ in finished])
            rounds.replace(advance,
                           [(k, splits, leaf_values) for k, (_, _, splits, leaf_values) in enumerate(finished)])
            if stage + 1 < self.n_estimators:  # the loss at the new scores, and the next roots, in one round
                total, root_hists = rounds.totals([(state_loss, ()), (histograms, (roots,))])
            else:
                total = rounds.total(state_loss)
            scores.append(total / n)
        rounds.close()
        leaves_finite = all(np.all(np.isfinite(values)) for stage in stages for _, values in stage)
        if not (leaves_finite and np.all(np.isfinite(scores))):  # as the in-memory booster refuses it
            raise ValueError(f"{type(self).__name__}: the model's predictions overflowed (learning_rate="
                             f"{self.learning_rate}); rescale y or lower learning_rate.")
        local._rng, local._weight_unit, local._bin_edges = rng, 1.0, edges
        local.baseline_prediction_ = baseline
        if classifier:
            local.classes_ = classes
        local._finish(stages, scores, None)
        return self._publish(local, d, names)

    def _search(self, edges, ranges, d, loss):
        """The split search's context: the engine's HistData of the bins (with the merged bin ranges), Rules,
        Target and scratch, as the in-memory booster makes them."""
        one = np.zeros(1, np.int32)
        unit = SampleStats(code=one, weight=np.zeros(1), target=np.zeros(1), classes=False, unit_weight=True)
        data = histogram_data(np.zeros((1, d)), edges, unit, 3, one, one, n_slots=1)
        data = data._replace(bin_lo=ranges[0], bin_hi=ranges[1])
        msl = int(self.min_samples_leaf)
        depth = _NO_LIMIT if self.max_depth is None else int(self.max_depth)
        rules = Rules(max_depth=depth, min_samples_split=2 * msl, min_samples_leaf=msl,
                      min_weight_leaf=MIN_CHILD_HESSIAN, min_impurity_decrease=0.0, max_features=d,
                      random_splitter=False)
        target = Target(codes=None, y=None, weight=np.zeros(1), criterion=NEWTON, is_class=False, total_weight=1.0,
                        is_categorical=np.zeros(d, np.bool_), state=None, l2=float(self.l2_regularization))
        work = work_arrays(1, 1, d, 1, NEWTON, data, False).hist
        return {"data": data, "rules": rules, "target": target, "work": work,
                "first_order": self.criterion != "newton" and not loss.constant_hessian,
                "leaf_scale": float(self.learning_rate) * getattr(loss, "leaf_factor", 1.0)}

    @staticmethod
    def _grow(rounds, trees):
        """Grow the stage's trees together, one round of histograms (a level, or a batch of best-first
        candidates) at a time."""
        while True:
            for tree in trees:
                tree.replay()
            keys = [tree.requests() for tree in trees]
            if not any(keys):
                if all(tree.replay() for tree in trees):
                    return
                continue
            request = [(tree.k, list(tree.splits), wanted) for tree, wanted in zip(trees, keys) if wanted]
            hists = rounds.total(histograms, request)
            i = 0
            for tree, wanted in zip(trees, keys):
                tree.receive(hists[i:i + len(wanted)])
                i += len(wanted)

    def _encoded(self, X):
        return encode_categories(X, getattr(self, "categories_", {}))

    def predict(self, X):
        """The in-memory model's ``predict`` on every chunk of X: a lazy dask array (n_samples,)."""
        return lazy_method(self._model(), "predict", self._encoded(X))


_DOC = """
    The data-parallel scheme of LightGBM and XGBoost on the active ``dask.distributed`` client,
    with the in-memory model's tree engine:

    - **bins**: one pass builds, per chunk, a quantile sketch of every feature (``_sketch``) —
      of a random share of its rows when X has more than 200,000, as the in-memory binning
      takes that many; merged on the client, it gives bin edges as the in-memory binning would
      (the same edges when the sketch is exact: up to 200,000 rows and few distinct values). Each chunk is binned where
      it lives by the engine's ``histogram_data`` and kept there (one byte per value): X itself
      is read twice and never kept, so it may be generated lazily or read from files.
    - **trees**: a round sends the splits made so far; every chunk partitions its rows with the
      engine's ``partition_hist`` and returns the (count, Σh, −Σg) histograms of the nodes asked
      (``build_histogram``), summed pairwise on the workers. The client chooses each split with
      the engine's ``find_split_hist`` and gets the larger child's histogram by subtraction, so a
      depth-limited tree costs one round per level; best-first trees (``max_leaf_nodes``)
      replay the in-memory heap, evaluating the best candidates' children a batch at a time.
    - **leaves**: Newton steps −ν·Σg/(Σh + λ) from the leaves' sums; each chunk adds its leaves'
      values to its raw scores and computes the next gradients, on its worker.

    Dask DataFrames with categorical columns are taken: each such column is split on the codes
    of its categories (fixed at fit, in ``categories_``; missing or unseen categories are NaN).
    NaN is a missing value, as in memory. ``to_local()`` gives the in-memory estimator (same
    attributes); it takes the codes in place of categorical columns.

    Parameters
    ----------
    n_estimators, learning_rate, max_depth, max_leaf_nodes, min_samples_leaf, l2_regularization, \
max_bins, init, criterion, random_state
        As the in-memory estimator's (no subsampling, early stopping, warm start or sample weights).
"""


class GradientBoostingRegressor(_DaskGradientBoosting):
    __doc__ = """Gradient-boosted regression trees (squared error) on Dask data, data-parallel.
    """ + _DOC + """    loss : {"squared_error"}, default="squared_error"

    Attributes
    ----------
    nodes_, node_values_, tree_roots_, baseline_prediction_, train_score_, n_estimators_, n_iter_, \
n_features_in_, feature_names_in_
        As :class:`lucidml.ensemble.GradientBoostingRegressor`.
    categories_ : dict
        The categories of each categorical column of a data frame X, by column name.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import GradientBoostingRegressor
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(2000, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = GradientBoostingRegressor(n_estimators=50).fit(da.from_array(X, chunks=(500, 3)),
    ...                                                         da.from_array(y, chunks=500))
    >>> bool(model.to_local().score(X, y) > 0.95)
    True
    >>> client.close()
    """

    _local_class = _LocalRegressor
    _parameter_constraints = {
        **{k: _LocalRegressor._parameter_constraints[k] for k in _SHARED},
        "loss": [Options({"squared_error"})],
    }

    def __init__(self, n_estimators=100, *, loss="squared_error", learning_rate=0.1, max_depth=3, max_leaf_nodes=None,
                 min_samples_leaf=1, l2_regularization=0.0, max_bins=255, init=None, criterion="friedman_mse",
                 random_state=None):
        self.n_estimators = n_estimators
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.init = init
        self.criterion = criterion
        self.random_state = random_state

    def fit(self, X, y):
        """Fit on X (dask array or DataFrame) and the real targets y; returns self."""
        return self._fit(X, y, classifier=False)


class GradientBoostingClassifier(_DaskGradientBoosting):
    __doc__ = """Gradient-boosted classification trees (log-loss) on Dask data, data-parallel.
    """ + _DOC + """    loss : {"log_loss"}, default="log_loss"

    Attributes
    ----------
    classes_, nodes_, node_values_, tree_roots_, baseline_prediction_, train_score_, n_estimators_, \
n_iter_, n_features_in_, feature_names_in_
        As :class:`lucidml.ensemble.GradientBoostingClassifier`.
    categories_ : dict
        The categories of each categorical column of a data frame X, by column name.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import GradientBoostingClassifier
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3))
    >>> y = (X[:, 0] + X[:, 1] ** 2 > 1).astype(int)
    >>> model = GradientBoostingClassifier(n_estimators=30).fit(da.from_array(X, chunks=(500, 3)),
    ...                                                          da.from_array(y, chunks=500))
    >>> bool((model.predict(da.from_array(X, chunks=(500, 3))).compute() == y).mean() > 0.95)
    True
    >>> client.close()
    """

    _local_class = _LocalClassifier
    _parameter_constraints = {
        **{k: _LocalClassifier._parameter_constraints[k] for k in _SHARED},
        "loss": [Options({"log_loss"})],
    }

    def __init__(self, n_estimators=100, *, loss="log_loss", learning_rate=0.1, max_depth=3, max_leaf_nodes=None,
                 min_samples_leaf=1, l2_regularization=0.0, max_bins=255, init=None, criterion="friedman_mse",
                 random_state=None):
        self.n_estimators = n_estimators
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.init = init
        self.criterion = criterion
        self.random_state = random_state

    def fit(self, X, y):
        """Fit on X (dask array or DataFrame) and its class labels y; returns self."""
        return self._fit(X, y, classifier=True)

    def predict_proba(self, X):
        """``predict_proba`` on every chunk of X: a lazy dask array (n_samples, n_classes)."""
        return lazy_method(self._model(), "predict_proba", self._encoded(X))

    def decision_function(self, X):
        """``decision_function`` on every chunk of X: the raw scores, lazily."""
        return lazy_method(self._model(), "decision_function", self._encoded(X))
