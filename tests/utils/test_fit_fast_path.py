"""The fit-time shortcuts of ``check_fit_data`` and ``check_classification_targets``: for the
common inputs they skip scikit-learn's checks, and must decide exactly as those checks do."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets as sklearn_check_targets
from sklearn.utils.validation import validate_data

from lucidml.linear import Ridge
from lucidml.naive_bayes import GaussianNB
from lucidml.utils.validation import check_classification_targets, check_fit_data

rng = np.random.default_rng(0)
X = rng.normal(size=(12, 3))
labels = np.array(["a", "b", "c"] * 4)


class Plain(BaseEstimator):
    """A bare estimator for validate_data to record n_features_in_ on."""


def _outcome(call):
    """What a validation call gives: its arrays, or the type and message of its error, and its warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = call()
        except (ValueError, TypeError) as error:
            return ("error", type(error), str(error)), [str(w.message) for w in caught]
    arrays = out if isinstance(out, tuple) else (out,)
    layout = tuple((a.dtype, a.shape, a.flags.c_contiguous, a.flags.f_contiguous, a.tobytes()) for a in arrays)
    return layout, [str(w.message) for w in caught]


def test_the_common_case_returns_the_arrays_themselves():
    y = rng.normal(size=12)
    model = Plain()
    X_out, y_out = check_fit_data(model, X, y)
    assert X_out is X and y_out is y
    assert model.n_features_in_ == 3
    assert check_fit_data(Plain(), X) is X


def test_a_refit_on_an_array_forgets_the_column_names_of_a_frame():
    model = Ridge().fit(pd.DataFrame(X, columns=["p", "q", "r"]), X[:, 0])
    assert list(model.feature_names_in_) == ["p", "q", "r"]
    model.fit(X, X[:, 0])
    assert not hasattr(model, "feature_names_in_")
    assert model.n_features_in_ == 3


def _with(value, row=1, column=1):
    out = X.copy()
    out[row, column] = value
    return out


# (X, y, keywords): inputs the shortcut takes, and neighbours of them that it must hand on.
CASES = [
    (X, rng.normal(size=12), {}),
    (X, np.arange(12), {"y_numeric": True}),
    (X, labels, {}),
    (X, labels.astype(object), {}),
    (X, np.where(np.arange(12) == 3, None, labels).astype(object), {}),
    (X, np.where(np.arange(12) == 3, np.nan, 1.0), {}),  # NaN in y
    (X, np.where(np.arange(12) == 3, np.inf, 1.0), {}),
    (X, np.arange(11), {}),  # lengths differ
    (X, np.arange(24.0)[::2], {}),  # a strided target: made contiguous
    (np.hstack([X, X])[:, ::2], np.arange(12), {}),  # a strided X: kept as it is without an order
    (X, np.arange(12).reshape(-1, 1), {}),  # a column vector: a warning
    (X, np.ones((12, 2)), {"multi_output": True}),
    (_with(np.nan), np.arange(12), {}),
    (_with(np.nan), np.arange(12), {"ensure_all_finite": "allow-nan"}),
    (_with(np.inf), np.arange(12), {"ensure_all_finite": "allow-nan"}),
    (_with(np.inf), np.arange(12), {"ensure_all_finite": False}),
    (np.full((12, 3), 1e308), np.arange(12), {}),  # the sum overflows; every value is finite
    (X.astype(np.float32), np.arange(12), {}),
    (X.astype(np.int64), np.arange(12), {}),
    (np.asfortranarray(X), np.arange(12), {"order": "C"}),
    (np.asfortranarray(X), np.arange(12), {}),
    (X, np.arange(12), {"order": "F"}),
    (X[:1], np.arange(1), {"ensure_min_samples": 2}),
    (X[:, :1], np.arange(12), {"ensure_min_features": 2}),
    (X[:0], np.arange(0), {}),
    (X[:, :0], np.arange(12), {}),
    (X[0], np.arange(3), {}),  # 1-D X
    (X.tolist(), list(range(12)), {}),
]


@pytest.mark.parametrize("float32", [False, True])
@pytest.mark.parametrize("X_in, y_in, keywords", CASES)
def test_every_input_gets_what_scikit_learns_checks_give(X_in, y_in, keywords, float32):
    dtype = [np.float64, np.float32] if float32 else np.float64
    ours = _outcome(lambda: check_fit_data(Plain(), X_in, y_in, float32=float32, **keywords))
    theirs = _outcome(lambda: validate_data(Plain(), X_in, y_in, dtype=dtype, **keywords))
    assert ours == theirs


def test_a_numeric_target_of_text_is_read_as_numbers_or_refused_by_name():
    """Where lucidml parts from scikit-learn on purpose: its ``y_numeric`` converts only object
    arrays, and hands a regressor a target of strings as it is (``"a"`` failed deep in a fit)."""
    for float32 in (False, True):
        _, y_out = check_fit_data(Plain(), X, np.arange(12).astype(str), float32=float32, y_numeric=True)
        assert y_out.dtype == np.float64 and y_out.tolist() == list(range(12))
        with pytest.raises(ValueError, match="Plain: y must hold numbers .* it holds 'a'"):
            check_fit_data(Plain(), X, labels, float32=float32, y_numeric=True)


TARGETS = [
    np.array([0, 1, 1, 0]),
    np.array([True, False, True]),
    np.array([0.0, 1.0, 2.0, 1.0]),
    np.array([0.0, 1.5, 2.0]),  # continuous
    np.array([0.0, np.nan, 1.0]),
    np.array([0.0, np.inf, 1.0]),
    np.array(["x", "y", "x"]),
    np.array(["x", "y", "x"], dtype=object),
    np.array([1, "y", "x"], dtype=object),  # first label not a string: unknown
    np.array([[0, 1], [1, 0]]),  # multilabel indicator
    np.array([[0.5, 1.0], [1.0, 0.0]]),  # continuous multi-output
    np.array([], dtype=np.int64),
    [0, 1, 2],
]


@pytest.mark.parametrize("y", TARGETS, ids=lambda y: repr(y)[:40])
def test_classification_targets_are_judged_as_scikit_learn_judges_them(y):
    def outcome(check):
        try:
            check(y)
        except ValueError as error:
            return str(error)
        return "accepted"

    assert outcome(check_classification_targets) == outcome(sklearn_check_targets)


def test_a_classifier_fitted_through_the_shortcut_matches_one_fitted_on_a_frame():
    y = labels
    direct = GaussianNB().fit(X, y)
    framed = GaussianNB().fit(pd.DataFrame(X), pd.Series(y))
    np.testing.assert_array_equal(direct.classes_, framed.classes_)
    np.testing.assert_allclose(direct.predict_proba(X), framed.predict_proba(X))


@pytest.mark.parametrize("weight, message", [(0.0, "all zero"), (-1.0, "non-negative"), (1e-320, "below the smallest"),
                                             (np.full(12, 1e-320), "below the smallest")])
def test_sample_weights_are_checked_whether_one_number_or_an_array(weight, message):
    from lucidml.utils.validation import check_sample_weight

    with pytest.raises(ValueError, match=message):
        check_sample_weight(weight, 12)
    assert check_sample_weight(2.0, 3).tolist() == [2.0, 2.0, 2.0]
