"""BernoulliNB and MultinomialNB against scikit-learn, on real data and on text."""

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes
from sklearn.feature_extraction.text import CountVectorizer

from lucidml.datasets import load
from lucidml.naive_bayes import BernoulliNB, MultinomialNB, laplace_smoothing

DATASETS = ["iris", "wine", "breast_cancer", "digits"]


def _assert_same_model(ours, ref, X):
    np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-10)
    np.testing.assert_allclose(ours.class_log_prior_, ref.class_log_prior_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_multinomial_matches_sklearn(name, alpha):
    X, y = load(name)
    _assert_same_model(MultinomialNB(alpha=alpha).fit(X, y), naive_bayes.MultinomialNB(alpha=alpha).fit(X, y), X)


@pytest.mark.parametrize("name", DATASETS)
def test_bernoulli_matches_sklearn(name):
    X, y = load(name)
    threshold = float(np.median(X))
    ours = BernoulliNB(binarize=threshold).fit(X, y)
    _assert_same_model(ours, naive_bayes.BernoulliNB(binarize=threshold).fit(X, y), X)


CORPUS = [
    "the match ended with a late goal",
    "a goal in the last minute won the match",
    "the team trained before the cup final",
    "the new phone has a faster chip",
    "the chip maker announced a new laptop",
    "software update makes the phone faster",
]
LABELS = ["sport", "sport", "sport", "tech", "tech", "tech"]


@pytest.mark.parametrize("model, ref", [(MultinomialNB, naive_bayes.MultinomialNB), (BernoulliNB, naive_bayes.BernoulliNB)])
def test_text_counts_sparse_and_dense_agree_with_sklearn(model, ref):
    counts = CountVectorizer().fit(CORPUS)
    X = counts.transform(CORPUS)  # SciPy sparse
    queries = counts.transform(["late goal in the final", "a faster laptop chip"])
    ours = model().fit(X, LABELS)
    _assert_same_model(ours, ref().fit(X, LABELS), X)
    assert list(ours.predict(queries)) == ["sport", "tech"]
    dense = model().fit(X.toarray(), LABELS)
    np.testing.assert_allclose(dense.predict_proba(queries.toarray()), ours.predict_proba(queries), rtol=1e-12)


def test_weights_priors_and_per_feature_alpha_match_sklearn():
    X, y = load("wine")
    w = np.random.default_rng(0).uniform(0.2, 2.0, size=len(y))
    _assert_same_model(MultinomialNB().fit(X, y, sample_weight=w), naive_bayes.MultinomialNB().fit(X, y, sample_weight=w), X)
    prior = [0.2, 0.3, 0.5]
    _assert_same_model(MultinomialNB(class_prior=prior).fit(X, y), naive_bayes.MultinomialNB(class_prior=prior).fit(X, y), X)
    _assert_same_model(MultinomialNB(fit_prior=False).fit(X, y), naive_bayes.MultinomialNB(fit_prior=False).fit(X, y), X)
    alpha = np.linspace(0.1, 2.0, X.shape[1])
    _assert_same_model(MultinomialNB(alpha=alpha).fit(X, y), naive_bayes.MultinomialNB(alpha=alpha).fit(X, y), X)
    # scikit-learn's BernoulliNB cannot take a per-feature alpha (a shape error): check the formula.
    t = float(np.median(X))
    clf = BernoulliNB(alpha=alpha, binarize=t).fit(X, y)
    present = np.array([(X[y == c] > t).sum(axis=0) for c in range(3)])
    n_c = np.bincount(y)[:, None]
    np.testing.assert_allclose(np.exp(clf.feature_log_prob_), (present + alpha) / (n_c + 2 * alpha), rtol=1e-12)


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=2, max_value=5))
def test_partial_fit_equals_fit(seed, n_batches):
    X, y = load("digits")
    order = np.random.default_rng(seed).permutation(len(y))
    for model in (MultinomialNB(), BernoulliNB(binarize=4.0)):
        streamed = model.__class__(**model.get_params())
        for batch in np.array_split(order, n_batches):
            streamed.partial_fit(X[batch], y[batch], classes=np.arange(10))
        whole = model.fit(X, y)
        np.testing.assert_allclose(streamed.feature_count_, whole.feature_count_)
        np.testing.assert_allclose(streamed.feature_log_prob_, whole.feature_log_prob_, rtol=1e-12)


def test_bernoulli_counts_absent_features_as_evidence():
    # Both classes share word 0; class 1 never has word 1, so its absence favours class 1.
    X = np.array([[1, 1], [1, 1], [1, 0], [1, 0]])
    y = np.array([0, 0, 1, 1])
    clf = BernoulliNB(alpha=1.0).fit(X, y)
    # φ₁|₀ = (2+1)/(2+2) = 0.75, φ₁|₁ = (0+1)/(2+2) = 0.25: p(1 | [1,0]) = 0.75·0.5 / (0.75·0.5 + 0.25·0.5)
    assert clf.predict_proba([[1, 0]])[0, 1] == pytest.approx(0.75)


def test_errors():
    X, y = load("iris")
    with pytest.raises(ValueError, match="Negative values in data passed to MultinomialNB"):
        MultinomialNB().fit(X - 5.0, y)
    with pytest.raises(ValueError, match="Negative values"):
        MultinomialNB().fit(scipy.sparse.csr_matrix(X - 5.0), y)
    fitted = MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="Negative values"):
        fitted.partial_fit(-X, y)  # more training data: still counts only


def test_negative_test_values_are_scored_as_scikit_learn_scores_them():
    """Only the training data must be counts: a test row a little below 0 (a scaler fitted on the
    training fold) gets scikit-learn's scores, not an error."""
    X, y = load("iris")
    test = X[:10] - 0.3
    ours = MultinomialNB().fit(X, y)
    theirs = naive_bayes.MultinomialNB().fit(X, y)
    np.testing.assert_allclose(ours.predict_log_proba(test), theirs.predict_log_proba(test), rtol=1e-10)
    with pytest.raises(ValueError, match="class_prior has 2 entries but there are 3 classes"):
        MultinomialNB(class_prior=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="one entry per feature"):
        BernoulliNB(alpha=[1.0, 2.0]).fit(X, y)


def test_laplace_smoothing():
    np.testing.assert_allclose(laplace_smoothing([0, 0, 0]), [1 / 3] * 3)  # no data: uniform
    np.testing.assert_allclose(laplace_smoothing([3, 1], alpha=0.0), [0.75, 0.25])  # α = 0: frequencies
    p = laplace_smoothing(np.arange(12).reshape(3, 4), alpha=0.5, axis=0)
    np.testing.assert_allclose(p.sum(axis=0), 1.0)
    assert np.all(p > 0)


@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB])
def test_alpha_zero_is_raised_to_a_floor_with_a_warning_not_turned_into_nan(Model):
    X = np.array([[2, 0, 1], [3, 0, 0], [0, 4, 1], [0, 2, 0]])
    y = np.array([0, 0, 1, 1])
    with pytest.warns(UserWarning, match="alpha"):
        model = Model(alpha=0.0).fit(X, y)
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba))
    np.testing.assert_array_equal(model.predict(X), y)
    forced = Model(alpha=0.0, force_alpha=True).fit(X, y)  # as given, as scikit-learn's force_alpha=True
    assert np.any(np.isinf(forced.feature_log_prob_))


def test_float32_counts_give_the_float64_model():
    """Counts of a float32 X are summed in float64 blocks (no float64 copy of X): the float64 model."""
    X, y = load("counts", n_samples=10_000, n_features=30, random_state=0)
    single = MultinomialNB().fit(X.astype(np.float32), y)
    double = MultinomialNB().fit(X, y)
    np.testing.assert_array_equal(single.feature_count_, double.feature_count_)
    np.testing.assert_array_equal(single.feature_log_prob_, double.feature_log_prob_)
    np.testing.assert_allclose(single.predict_proba(X.astype(np.float32)), double.predict_proba(X), rtol=1e-6)


@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB])
def test_column_major_table_is_fitted_without_a_copy(Model):
    # A ColumnTransformer returns column-major arrays; the count models read them as they are.
    import tracemalloc

    X, y = load("digits")
    X = X if Model is MultinomialNB else (X > 4).astype(float)  # fitted unbinarized: binarize copies
    X_f = np.asfortranarray(X)
    c_model = Model().fit(np.ascontiguousarray(X), y)
    tracemalloc.start()
    f_model = Model(binarize=None).fit(X_f, y) if Model is BernoulliNB else Model().fit(X_f, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < X_f.nbytes / 2
    np.testing.assert_allclose(f_model.feature_log_prob_, c_model.feature_log_prob_, rtol=1e-12)
    np.testing.assert_array_equal(f_model.predict(X_f), c_model.predict(X))


def test_counts_whose_sums_overflow_are_refused_by_name():
    X = np.full((4, 2), 1e308)
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="overflowed"):
        MultinomialNB().fit(X, y)
    # Large counts whose sums stay finite are a model, not an error.
    model = MultinomialNB().fit(X / 1e100, y)
    assert np.all(np.isfinite(model.feature_log_prob_))


def test_bernoulli_without_binarizing_refuses_features_outside_0_1():
    # Counts above 1 would make the "absent" counts negative and the scores NaN.
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"binarize=None.*\[0, 1\].*from 0 to 2"):
        BernoulliNB(binarize=None).fit(np.array([[2.0, 0], [2, 1], [0, 1], [0, 0]]), y)
    with pytest.raises(ValueError, match="binarize=None"):
        BernoulliNB(binarize=None).fit(scipy.sparse.csr_matrix(np.array([[-1.0, 0], [0, 1], [0, 1], [0, 0]])), y)
    probabilities = np.array([[0.9, 0.1], [0.7, 0.0], [0.2, 1.0], [0.0, 0.6]])
    proba = BernoulliNB(binarize=None).fit(probabilities, y).predict_proba(probabilities)
    np.testing.assert_allclose(proba, naive_bayes.BernoulliNB(binarize=None).fit(probabilities, y).predict_proba(probabilities))
