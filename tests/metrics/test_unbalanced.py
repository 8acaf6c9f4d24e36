"""The unbalanced-classes summary against scikit-learn's metrics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

from lucidml.metrics import sensitivity, specificity, unbalanced_summary


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=2, max_size=60))
def test_against_sklearn(pairs):
    y_true, y_pred = map(np.array, zip(*pairs, strict=True))
    if len(np.unique(y_true)) < 2 or len(np.unique(y_pred)) < 2:
        return  # the undefined cases have their own test
    s = unbalanced_summary(y_true, y_pred)
    assert s.sensitivity == pytest.approx(skm.recall_score(y_true, y_pred))
    assert s.specificity == pytest.approx(skm.recall_score(y_true, y_pred, pos_label=0))
    assert s.precision == pytest.approx(skm.precision_score(y_true, y_pred))
    assert s.accuracy == pytest.approx(skm.accuracy_score(y_true, y_pred))
    assert s.balanced_accuracy == pytest.approx(skm.balanced_accuracy_score(y_true, y_pred))
    assert s.f1 == pytest.approx(skm.f1_score(y_true, y_pred))
    assert s.false_positive_rate == pytest.approx(1 - s.specificity)
    tn, fp, fn, tp = skm.confusion_matrix(y_true, y_pred, labels=[0, 1]).ravel()
    assert (s.tp, s.fn, s.tn, s.fp) == (tp, fn, tn, fp)
    assert s.sensitivity == sensitivity(y_true, y_pred) and s.specificity == specificity(y_true, y_pred)


def test_the_notes_point_about_unbalanced_data():
    # 99 negatives to 1 positive: "always negative" is 99% accurate and useless.
    y_true = np.array([1] + [0] * 99)
    with pytest.warns(UndefinedMetricWarning, match="Precision"):
        s = unbalanced_summary(y_true, np.zeros(100, dtype=int))
    assert s.accuracy == 0.99 == s.majority_accuracy
    assert s.sensitivity == 0.0 and s.specificity == 1.0
    assert s.balanced_accuracy == 0.5
    assert s.prevalence == 0.01


def test_string_labels_and_pos_label():
    y_true = ["spam", "ham", "ham", "spam", "ham"]
    y_pred = ["spam", "spam", "ham", "ham", "ham"]
    s = unbalanced_summary(y_true, y_pred, pos_label="spam")
    assert s.sensitivity == pytest.approx(skm.recall_score(y_true, y_pred, pos_label="spam"))
    assert s.specificity == pytest.approx(skm.recall_score(y_true, y_pred, pos_label="ham"))


def test_errors():
    with pytest.raises(ValueError, match="binary"):
        unbalanced_summary([0, 1, 2], [0, 1, 1])
    with pytest.raises(ValueError, match="pos_label"):
        unbalanced_summary([0, 2], [0, 2])
    with pytest.raises(ValueError, match="inconsistent"):
        unbalanced_summary([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="NaN"):
        unbalanced_summary([0.0, np.nan], [0.0, 1.0])
