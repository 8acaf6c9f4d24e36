"""GaussianNB against scikit-learn on real data, streaming, priors, and numerical safety."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes

from lucidml.datasets import load
from lucidml.naive_bayes import GaussianNB


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "digits"])
def test_matches_sklearn_on_real_data(name):
    X, y = load(name)
    ours = GaussianNB().fit(X, y)
    ref = naive_bayes.GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.theta_, ref.theta_, rtol=1e-10)
    np.testing.assert_allclose(ours.var_, ref.var_, rtol=1e-8)
    assert ours.epsilon_ == pytest.approx(ref.epsilon_, rel=1e-10)
    np.testing.assert_allclose(ours.class_prior_, ref.class_prior_)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X), ref.predict_joint_log_proba(X), rtol=1e-8)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_weighted_fit_matches_sklearn():
    X, y = load("wine")
    w = np.random.default_rng(0).uniform(0.1, 2.0, size=len(y))
    ours = GaussianNB().fit(X, y, sample_weight=w)
    ref = naive_bayes.GaussianNB().fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.theta_, ref.theta_, rtol=1e-10)
    np.testing.assert_allclose(ours.var_, ref.var_, rtol=1e-8)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=2, max_value=6))
def test_partial_fit_in_batches_equals_one_fit(seed, n_batches):
    X, y = load("iris")
    order = np.random.default_rng(seed).permutation(len(y))
    streamed = GaussianNB()
    for batch in np.array_split(order, n_batches):
        streamed.partial_fit(X[batch], y[batch], classes=[0, 1, 2])
    whole = GaussianNB().fit(X, y)
    np.testing.assert_allclose(streamed.theta_, whole.theta_, rtol=1e-12)
    np.testing.assert_allclose(streamed.var_, whole.var_, rtol=1e-10)
    assert streamed.epsilon_ == pytest.approx(whole.epsilon_, rel=1e-10)
    np.testing.assert_allclose(streamed.class_count_, whole.class_count_)


def test_partial_fit_batch_may_miss_a_class():
    X, y = load("iris")
    clf = GaussianNB().partial_fit(X[y == 0], y[y == 0], classes=[0, 1, 2])
    assert clf.class_count_.tolist() == [50, 0, 0]
    assert clf.predict(X[:3]).tolist() == [0, 0, 0]  # classes with prior 0 are never predicted
    clf.partial_fit(X[y != 0], y[y != 0])
    np.testing.assert_allclose(clf.theta_, GaussianNB().fit(X, y).theta_, rtol=1e-12)


def test_given_priors_are_used_and_validated():
    X, y = load("iris")
    clf = GaussianNB(priors=[0.8, 0.1, 0.1]).fit(X, y)
    ref = naive_bayes.GaussianNB(priors=[0.8, 0.1, 0.1]).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    with pytest.raises(ValueError, match="sum to 1"):
        GaussianNB(priors=[0.5, 0.1, 0.1]).fit(X, y)
    with pytest.raises(ValueError, match="3 classes"):
        GaussianNB(priors=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="non-negative"):
        GaussianNB(priors=[1.2, -0.1, -0.1]).fit(X, y)


def test_partial_fit_errors():
    X, y = load("iris")
    with pytest.raises(ValueError, match="classes must be passed"):
        GaussianNB().partial_fit(X, y)
    clf = GaussianNB().partial_fit(X[y < 2], y[y < 2], classes=[0, 1])
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(X, y)
    with pytest.raises(ValueError, match="differs from the classes"):
        clf.partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[:, :2], y)


def test_far_points_keep_finite_log_probabilities():
    X, y = load("iris")
    clf = GaussianNB().fit(X, y)
    far = np.full((1, 4), 1e6)
    log_proba = clf.predict_log_proba(far)
    assert not np.any(np.isnan(log_proba)) and np.all(log_proba <= 0)
    np.testing.assert_allclose(np.exp(log_proba).sum(), 1.0)


def test_large_offset_does_not_destroy_the_variance():
    # A one-pass Σx² − n x̄² would lose every digit here; the two-pass kernel keeps them.
    rng = np.random.default_rng(0)
    X = 1e9 + rng.normal(size=(200, 2))
    y = np.repeat([0, 1], 100)
    clf = GaussianNB().fit(X, y)
    np.testing.assert_allclose(clf.var_ - clf.epsilon_, [X[:100].var(axis=0), X[100:].var(axis=0)], rtol=1e-6)


def test_constant_features_give_no_nan():
    X = np.ones((6, 2))
    y = np.array([0, 0, 0, 1, 1, 1])
    proba = GaussianNB().fit(X, y).predict_proba(X)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba, 0.5)


def test_float32_variances_beyond_float32_are_refused_and_leave_the_model_as_it_was():
    """The variances are kept in the data's precision: from float32 features near 1e20 they were
    inf, and predict_proba NaN. Refused, by name; a refused partial_fit changes nothing."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    refused = GaussianNB()
    with pytest.raises(ValueError, match="beyond float32"):
        refused.fit((X * 1e20).astype(np.float32), y)
    with pytest.raises(ValueError, match="beyond float32"):
        refused.partial_fit((X * 1e20).astype(np.float32), y, classes=[0, 1, 2])
    assert not hasattr(refused, "classes_") and not hasattr(refused, "var_")  # unfitted, not half-fitted
    model = GaussianNB().fit(X.astype(np.float32), y)
    before = model.var_.copy(), model.class_count_.copy()
    with pytest.raises(ValueError, match="beyond float32"):
        model.partial_fit((X * 1e20).astype(np.float32), y)
    np.testing.assert_array_equal(model.var_, before[0])
    np.testing.assert_array_equal(model.class_count_, before[1])


def test_rows_whose_class_scores_are_not_finite_are_refused():
    """A row far beyond the training data's scale made every class score −∞ (or NaN) and
    predict_proba 0/0: a ValueError, from every generative classifier alike."""
    from sklearn.datasets import load_iris

    from lucidml.discriminant import LinearDiscriminantAnalysis
    from lucidml.naive_bayes import MultinomialNB

    X, y = load_iris(return_X_y=True)
    for model in (MultinomialNB().fit(X, y), LinearDiscriminantAnalysis().fit(X, y)):
        with np.errstate(all="ignore"), pytest.raises(ValueError, match="class scores"):
            model.predict_proba(np.full((1, 4), 1e308))
        assert np.allclose(model.predict_proba(X[:3]).sum(axis=1), 1.0)
