"""What bagging and random forests share: bootstrap draws, parallel fitting, voting, out-of-bag scores.

Each member m gets its own seed sₘ, drawn from ``random_state`` one after another exactly as
scikit-learn draws the seeds of its forest trees. From sₘ come the member's bootstrap sample,
as integer multiplicities cᵢ (how often sample i was drawn; cᵢ = 0 means out of bag), its
feature subset (bagging only) and the member's own ``random_state``. The member is fitted with
sample weights sᵢ·cᵢ, which for a tree equals fitting on the drawn sample with repetitions
(seeds: 001 §11–12, 002 §5.4.2).
"""

import copy
import warnings
from numbers import Integral
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from ..tree._exact_data import exact_search_input, shared_tables, tables_of_features
from ..utils import (
    StageTable,
    cancel_flag,
    cancel_scope,
    check_sample_weight,
    interruptible,
    raise_if_cancelled,
    thread_count,
    validate_params,
)
from ..utils.numerics import power_of_two_unit
from ..utils.validation import FLOAT_DTYPES, check_classification_targets, check_fit_data, check_predict_data
from ._forest_predict import FlatForest

_MAX_SEED = np.iinfo(np.int32).max


class MemberSource(NamedTuple):
    """What every member of one fit starts from: the unfitted prototype member and, for lucidml
    trees, the tables of X they share (``_exact_data.shared_tables``)."""

    prototype: object
    shared: object

# Rows × members below which the members are fitted (or evaluated) on one thread: a small tree
# takes well under a millisecond, about what handing it to another thread costs.
SERIAL_BELOW = 200_000


def fresh_member(prototype, seed):
    """A new unfitted copy of ``prototype`` with ``random_state=seed`` (if it has one).

    A lucidml tree is a shallow copy: its parameters are plain values that fit never changes,
    and ``clone`` reads every parameter through ``inspect.signature``, which costs as much as
    fitting a small tree. Any other estimator is cloned.
    """
    if hasattr(prototype, "_fit_validated"):
        member = copy.copy(prototype)
        member.random_state = seed
        return member
    member = clone(prototype)
    if "random_state" in member.get_params():
        member.set_params(random_state=seed)
    return member


class _BaseForest(BaseEstimator):
    """Fit/predict machinery; subclasses say how to build a member (``_make_member``)."""

    _is_classifier = False

    @interruptible
    def fit(self, X, y, sample_weight=None):
        """Fit ``n_estimators`` members on bootstrap samples of X (n_samples, n_features) and y."""
        validate_params(self)
        # A warm start keeps the fitted members: X must have their features (reset=False checks the
        # width), y their classes, and an out-of-bag score their rows and sample sizes.
        continuing = self.warm_start and hasattr(self, "estimators_")
        X, y = check_fit_data(self, X, y, accept_sparse="csr", float32=True, y_numeric=not self._is_classifier,
                             ensure_all_finite="allow-nan" if self._nan_allowed() else True, reset=not continuing)
        n_samples = X.shape[0]
        sw = check_sample_weight(sample_weight, n_samples)
        # Every refusal comes before anything is stored: a refused warm start keeps its model.
        if self._is_classifier:
            check_classification_targets(y)
            classes, y = np.unique(y, return_inverse=True)
            if continuing and not np.array_equal(classes, self.classes_):
                raise ValueError(f"warm_start=True needs the same classes as the first fit ({list(self.classes_)}); "
                                 f"got {list(classes)}.")
        n_draw = _n_draw(self.max_samples, n_samples, self.bootstrap)
        draws = (n_samples, n_draw, bool(self.bootstrap))
        # The members' out-of-bag rows are drawn again from (rows, sample size) at each fit: members
        # drawn otherwise (None) have no out-of-bag score.
        same_draws = not continuing or getattr(self, "_draws", draws) == draws
        if self.oob_score and not same_draws:
            raise ValueError("warm_start=True with oob_score=True needs the rows, max_samples and bootstrap that "
                             "drew every kept member: their out-of-bag samples are drawn again from them.")
        kept = len(self.estimators_) if continuing else 0
        if self.n_estimators < kept:
            raise ValueError(f"n_estimators={self.n_estimators} must be at least the {kept} members already fitted "
                             "when warm_start=True.")
        # The weights in units of a power of 2 (exact), so that weights near the largest float times
        # a class weight or a bootstrap count do not overflow; the trees' weighted_n_node_samples are
        # given back in the user's units (_fit_member).
        self._weight_unit = 1.0 if sw is None else power_of_two_unit(sw)
        sw = np.ones(n_samples) if sw is None else sw / self._weight_unit
        if self._is_classifier:
            self.classes_, self.n_classes_ = classes, len(classes)
            sw = sw * self._class_weights(y)
        self._n_draw, self._draws = n_draw, (draws if same_draws else None)
        self._n_feat = self._n_member_features(X.shape[1])

        rng = check_random_state(self.random_state)
        if not continuing:
            self.estimators_, self.estimators_features_, self._seeds = [], [], []
        n_more = self.n_estimators - kept
        if n_more == 0:
            # stacklevel: past fit's interruptible wrapper, to the caller
            warnings.warn("warm_start=True and n_estimators unchanged: nothing new to fit.", UserWarning, stacklevel=3)
        else:
            rng.randint(_MAX_SEED, size=len(self.estimators_))  # skip the seeds the kept members used
            seeds = [int(rng.randint(_MAX_SEED)) for _ in range(n_more)]
            flag = cancel_flag()
            threads = thread_count(self.n_jobs, work=X.shape[0] * n_more, serial_below=SERIAL_BELOW)
            prototype = clone(self._member_prototype())
            if hasattr(prototype, "_fit_validated"):
                validate_params(prototype)  # once for all members, which are copies of it
            X = exact_search_input(prototype, X)  # once for all members
            source = MemberSource(prototype, shared_tables(prototype, X))
            verbose = getattr(self, "verbose", 0)
            # verbose: members come back in order as they finish, one progress row each
            members = Parallel(n_jobs=threads, prefer="threads", return_as="generator" if verbose else "list")(
                delayed(self._fit_member_in_scope)(flag, X, y, sw, seed, source) for seed in seeds
            )
            table = StageTable(verbose, self.n_estimators, begin=len(self.estimators_))
            for (member, features), seed in zip(members, seeds):
                self.estimators_.append(member)
                self.estimators_features_.append(features)
                self._seeds.append(seed)
                table.row(len(self.estimators_))
        self._flat = self._flatten()
        if self.oob_score:
            if not self.bootstrap:
                raise ValueError("oob_score=True needs bootstrap=True: without it no sample is out of bag.")
            self._set_oob(X, y)
        return self

    # -- one member ------------------------------------------------------------------------
    def _draw(self, seed, n_samples, n_features):
        """The member's bootstrap multiplicities c (n_samples,) and its feature indices."""
        rng = np.random.RandomState(seed)
        if self.bootstrap:
            counts = np.bincount(rng.randint(0, n_samples, self._n_draw), minlength=n_samples)
        else:
            counts = np.zeros(n_samples, dtype=np.intp)
            counts[rng.choice(n_samples, self._n_draw, replace=False)] = 1
        if self._n_feat == n_features and not getattr(self, "bootstrap_features", False):
            return counts, np.arange(n_features)
        features = rng.choice(n_features, self._n_feat, replace=bool(getattr(self, "bootstrap_features", False)))
        return counts, np.sort(features)

    def _fit_member_in_scope(self, flag, X, y, sw, seed, source):
        """``_fit_member`` in a joblib worker, under the fit's cancel flag (Ctrl-C stops every worker)."""
        with cancel_scope(flag):
            raise_if_cancelled(flag)
            return self._fit_member(X, y, sw, seed, source)

    def _fit_member(self, X, y, sw, seed, source):
        counts, features = self._draw(seed, X.shape[0], X.shape[1])
        member = self._make_member(seed, source.prototype)
        whole = len(features) == X.shape[1] and np.all(features == np.arange(X.shape[1]))
        Xm = X if whole else X[:, features]
        if hasattr(member, "_fit_validated"):  # lucidml trees: skip re-validating the same X and parameters
            shared = source.shared if whole else tables_of_features(source.shared, features)
            member._fit_validated(Xm, y, sw * counts, shared=shared, params_checked=True,
                                  weight_unit=self._weight_unit)
        elif has_fit_parameter(member, "sample_weight"):  # (others, in the user's units: a scale may matter)
            member.fit(Xm, y, sample_weight=sw * counts * self._weight_unit)
        else:  # no weights: the bootstrap sample itself, with its repetitions
            rows = np.repeat(np.arange(X.shape[0]), counts)
            member.fit(Xm[rows], y[rows])
        return member, features

    def _make_member(self, seed, prototype):
        return fresh_member(prototype, seed)

    def _class_weights(self, y):
        return np.ones(len(y))

    # -- prediction ------------------------------------------------------------------------
    def _member_output(self, member, features, X):
        """Class probabilities (classifier, n × n_classes) or predictions (regressor) of one member."""
        Xm = X[:, features] if len(features) != X.shape[1] else X
        if hasattr(member, "_fit_validated"):  # a lucidml tree: read its node table directly
            leaf_values = member.tree_.value[member.tree_.apply(Xm), 0]
            if not self._is_classifier:
                return leaf_values[:, 0]
            if self.voting == "soft" and leaf_values.shape[1] == self.n_classes_:
                return leaf_values
        if not self._is_classifier:
            return member.predict(Xm)
        out = np.zeros((X.shape[0], self.n_classes_))
        if self.voting == "hard":
            out[np.arange(X.shape[0]), np.asarray(member.predict(Xm)).astype(np.intp)] = 1.0
        else:  # members see the encoded labels 0..K−1, possibly not all of them
            out[:, np.asarray(member.classes_).astype(np.intp)] = member.predict_proba(Xm)
        return out

    def _node_values(self, member, tree):
        """Per-node output vectors of a lucidml tree, as ``_member_output`` would give for its leaves."""
        value = tree.value[:, 0, :]
        if not self._is_classifier:
            return value[:, :1]
        out = np.zeros((tree.node_count, self.n_classes_))
        columns = np.asarray(member.classes_).astype(np.intp)
        if self.voting == "hard":
            out[np.arange(tree.node_count), columns[np.argmax(value, axis=1)]] = 1.0
        else:
            out[:, columns] = value
        return out

    def _flatten(self):
        """All members in one node table for prediction (see ``FlatForest``), or None if some member is not
        a plain lucidml tree. Built at the end of ``fit``, so that predicting changes nothing."""
        if FlatForest.supports(self.estimators_):
            return FlatForest(self.estimators_, self.estimators_features_, self._node_values)
        return None

    def _mean_output(self, X, members=None):
        if members is None and getattr(self, "_flat", None) is not None:
            mean = self._flat.sum_values(X) / len(self.estimators_)
            return mean if self._is_classifier else mean[:, 0]
        members = list(zip(self.estimators_, self.estimators_features_)) if members is None else members
        if thread_count(self.n_jobs, work=X.shape[0] * len(members), serial_below=SERIAL_BELOW) == 1:
            total = self._member_output(*members[0], X).copy()
            for member, features in members[1:]:
                total += self._member_output(member, features, X)
        else:
            total = sum(Parallel(n_jobs=thread_count(self.n_jobs), prefer="threads")(
                delayed(self._member_output)(m, f, X) for m, f in members
            ))
        return total / len(members)

    def _validate_X(self, X):
        check_is_fitted(self)
        return check_predict_data(self, X, order="C", dtype=FLOAT_DTYPES, allow_nan=self._nan_allowed(),
                                  accept_sparse="csr")

    def _nan_allowed(self):
        """NaN passes through when the members handle it (lucidml trees send it down a learned side)."""
        return get_tags(self._member_prototype()).input_tags.allow_nan

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        member = get_tags(self._member_prototype()).input_tags
        tags.input_tags.allow_nan = member.allow_nan
        tags.input_tags.sparse = member.sparse  # sparse X is handed to the members as it is
        return tags

    # -- out of bag ------------------------------------------------------------------------
    def _set_oob(self, X, y):
        n_samples = X.shape[0]
        total = np.zeros((n_samples, self.n_classes_)) if self._is_classifier else np.zeros(n_samples)
        n_votes = np.zeros(n_samples)
        for member, features, seed in zip(self.estimators_, self.estimators_features_, self._seeds):
            oob = np.flatnonzero(self._draw(seed, n_samples, X.shape[1])[0] == 0)
            if oob.size:
                total[oob] += self._member_output(member, features, X[oob])
                n_votes[oob] += 1
        seen = n_votes > 0
        if not seen.all():
            warnings.warn(f"{np.sum(~seen)} samples were never out of bag; their out-of-bag estimates are NaN and "
                          "oob_score_ ignores them (use more estimators).", UserWarning, stacklevel=4)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (total.T / n_votes).T
        if self._is_classifier:
            self.oob_decision_function_ = mean
            self.oob_score_ = float(np.mean(np.argmax(mean[seen], axis=1) == y[seen]))
        else:
            self.oob_prediction_ = mean
            resid = y[seen] - mean[seen]
            self.oob_score_ = float(1 - np.dot(resid, resid) / np.sum((y[seen] - y[seen].mean()) ** 2))


class _ForestClassifierMixin:
    """predict / predict_proba by soft (mean probability) or hard (majority) voting."""

    _is_classifier = True

    def predict_proba(self, X):
        """Mean member probabilities (soft voting) or the members' vote fractions (hard voting)."""
        return self._mean_output(self._validate_X(X))

    def predict_log_proba(self, X):
        """log of ``predict_proba`` (−inf where it is 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The class of highest mean probability (soft) or most votes (hard); ties to the smaller label."""
        proba = self.predict_proba(X)  # first: it checks that the forest is fitted
        return self.classes_[np.argmax(proba, axis=1)]


class _ForestRegressorMixin:
    def predict(self, X):
        """Mean of the members' predictions."""
        return self._mean_output(self._validate_X(X))


def _n_draw(max_samples, n_samples, bootstrap):
    """Sample size per member: n (None), an int, or a fraction of n."""
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, Integral):
        if not bootstrap and max_samples > n_samples:
            raise ValueError(f"max_samples={max_samples} exceeds n_samples={n_samples} (drawing without replacement).")
        return int(max_samples)
    return max(1, round(max_samples * n_samples))
