"""External cluster validity (purity, entropy, Rand index) and sensitivity/specificity."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.cluster import KMeans
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import mutual_info_score, rand_score, recall_score

from lucidml.metrics import (
    cluster_entropy,
    purity,
    rand_index,
    sensitivity,
    specificity,
)

ORACLE = 1e-10

labelings = st.lists(st.integers(min_value=0, max_value=5), min_size=1, max_size=60)


def _clusterings():
    out = []
    for load in (load_iris, load_wine):
        X, y = load(return_X_y=True)
        for k in (2, 3, 7):
            out.append((y, KMeans(n_clusters=k, n_init=1, random_state=0).fit_predict(X)))
    rng = np.random.default_rng(0)
    out.append((rng.integers(0, 4, 500), rng.integers(0, 9, 500)))
    return out


def test_contingency_scores_by_hand():
    # Classes ○○○ ×××, clusters {○○} {○×××}: n_ij = [[2, 1], [0, 3]].
    true, pred = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1]
    assert purity(true, pred) == pytest.approx((2 + 3) / 6)
    e2 = -(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75))
    assert cluster_entropy(true, pred) == pytest.approx(2 / 6 * 0 + 4 / 6 * e2)
    # Pairs: 15; same in both: C(2,2)+C(3,2) = 4; same-class 6, same-cluster 7 → different in both 15−6−7+4 = 6.
    assert rand_index(true, pred) == pytest.approx((4 + 6) / 15)


def test_rand_index_matches_scikit_learn():
    for true, pred in _clusterings():
        assert rand_index(true, pred) == pytest.approx(rand_score(true, pred), abs=ORACLE)
    assert rand_index([3], [7]) == rand_score([3], [7]) == 1.0


def test_entropy_is_the_conditional_class_entropy():
    # The notes' entropy is H(C|K) = H(C) − I(C; K), in bits; H(C) = I(C; C). scikit-learn's
    # mutual information is in nats.
    for true, pred in _clusterings():
        expected = (mutual_info_score(true, true) - mutual_info_score(true, pred)) / np.log(2)
        assert cluster_entropy(true, pred) == pytest.approx(expected, abs=ORACLE)


def test_string_labels_and_any_label_values():
    true = np.array(["a", "a", "b", "b", "c"])
    pred = np.array([10, 10, -4, -4, 99])
    assert purity(true, pred) == 1.0
    assert cluster_entropy(true, pred) == 0.0
    assert rand_index(true, pred) == 1.0


@settings(max_examples=60, deadline=None)
@given(labelings, st.randoms(use_true_random=False))
def test_purity_bounds_and_perfect_clusterings(true, rnd):
    true = np.array(true)
    pred = np.array([rnd.randrange(4) for _ in true])
    n_classes = np.unique(true).size
    p = purity(true, pred)
    assert 1 / n_classes - 1e-12 <= p <= 1
    e = cluster_entropy(true, pred)
    assert 0 <= e <= np.log2(n_classes) + 1e-12
    # A relabelling of the classes, or any refinement of them, is a perfect clustering.
    names = rnd.sample(range(100), 6)
    relabelled = np.array([names[t] for t in true])
    refined = true * 10 + pred
    for perfect in (relabelled, refined):
        assert purity(true, perfect) == 1.0
        assert cluster_entropy(true, perfect) == 0.0


def _same_partition(a, b):
    a, b = np.asarray(a), np.asarray(b)
    same_a = a[:, None] == a[None, :]
    same_b = b[:, None] == b[None, :]
    return bool(np.all(same_a == same_b))


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_rand_index_symmetric_and_one_iff_equal_partitions(data):
    a = data.draw(labelings)
    b = data.draw(st.lists(st.integers(min_value=0, max_value=3), min_size=len(a), max_size=len(a)))
    r = rand_index(a, b)
    assert r == rand_index(b, a)
    assert 0 <= r <= 1
    assert (r == 1.0) == _same_partition(a, b)
    perm = data.draw(st.permutations(range(6)))
    assert rand_index(a, [perm[x] for x in a]) == 1.0


@pytest.mark.parametrize("score", [purity, cluster_entropy, rand_index])
def test_contingency_bad_input(score):
    with pytest.raises(ValueError, match="inconsistent"):
        score([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        score([0.0, np.nan, 1.0], [0, 1, 1])
    with pytest.raises(ValueError, match="empty"):
        score([], [])
    with pytest.raises(ValueError):
        score(np.zeros((3, 2)), [0, 1, 1])


def _classifier_predictions():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return y, LogisticRegression(C=0.01).fit(X, y).predict(X)


def test_sensitivity_and_specificity_match_recall():
    y, pred = _classifier_predictions()
    for pos, neg in ((1, 0), (0, 1)):
        assert sensitivity(y, pred, pos_label=pos) == pytest.approx(recall_score(y, pred, pos_label=pos), abs=ORACLE)
        assert specificity(y, pred, pos_label=pos) == pytest.approx(recall_score(y, pred, pos_label=neg), abs=ORACLE)
    words = np.where(y == 1, "benign", "malignant")
    words_pred = np.where(pred == 1, "benign", "malignant")
    assert specificity(words, words_pred, pos_label="malignant") == pytest.approx(
        recall_score(words, words_pred, pos_label="benign"), abs=ORACLE)
    # Definitions on a confusion matrix small enough to count: TP 2, FN 1, TN 1, FP 1.
    assert sensitivity([1, 1, 1, 0, 0], [1, 1, 0, 0, 1]) == 2 / 3
    assert specificity([1, 1, 1, 0, 0], [1, 1, 0, 0, 1]) == 1 / 2


def test_sensitivity_specificity_bad_input():
    with pytest.raises(ValueError, match="binary"):
        sensitivity([0, 1, 2], [0, 1, 1])
    with pytest.raises(ValueError, match="pos_label"):
        specificity([0, 2, 2], [0, 2, 0])
    with pytest.raises(ValueError, match="inconsistent"):
        sensitivity([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        specificity([0.0, 1.0, np.nan], [0, 1, 1])
    with pytest.warns(UndefinedMetricWarning):
        assert sensitivity([0, 0], [0, 1]) == 0.0
    with pytest.warns(UndefinedMetricWarning):
        assert specificity([1, 1], [0, 1]) == 0.0
