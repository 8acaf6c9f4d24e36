"""LDA and QDA against scikit-learn, the notes' Fisher example, and degenerate inputs."""

import numpy as np
import pytest
from sklearn import discriminant_analysis as sk

from lucidml.datasets import load
from lucidml.discriminant import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis

DATASETS = ["iris", "wine", "breast_cancer", "digits"]


@pytest.mark.parametrize("name", DATASETS)
def test_lda_matches_sklearn(name):
    X, y = load(name)
    ours = LinearDiscriminantAnalysis().fit(X, y)
    ref = sk.LinearDiscriminantAnalysis().fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.score(X, y) == ref.score(X, y)
    # Fisher directions equal up to sign and scale: the projections are perfectly correlated.
    T, R = ours.transform(X), ref.transform(X)
    assert T.shape == R.shape == (len(y), min(len(np.unique(y)) - 1, X.shape[1]))
    for j in range(T.shape[1]):
        assert abs(np.corrcoef(T[:, j], R[:, j])[0, 1]) > 1 - 1e-8
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, atol=1e-8)


@pytest.mark.parametrize("name, reg_param", [("iris", 0.0), ("wine", 0.0), ("breast_cancer", 0.01), ("digits", 0.1)])
def test_qda_probabilities_match_sklearn(name, reg_param):
    X, y = load(name)
    ours = QuadraticDiscriminantAnalysis(reg_param=reg_param).fit(X, y)
    ref = sk.QuadraticDiscriminantAnalysis(reg_param=reg_param).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_lda_probabilities_are_the_gaussian_posterior():
    X, y = load("iris")
    lda = LinearDiscriminantAnalysis().fit(X, y)
    # Bayes' rule with the fitted Gaussians, computed directly.
    from scipy.stats import multivariate_normal

    densities = np.column_stack(
        [p * multivariate_normal(m, lda.covariance_).pdf(X) for p, m in zip(lda.priors_, lda.means_)]
    )
    np.testing.assert_allclose(lda.predict_proba(X), densities / densities.sum(axis=1, keepdims=True), atol=1e-10)
    centred = X - lda.means_[y]
    np.testing.assert_allclose(lda.covariance_, centred.T @ centred / len(y))  # the MLE, 1/m


# Seed 002 §7.3.1 (lda_Fisher.m): two classes of five points in the plane.
X1 = np.array([[2, 3], [4, 3], [2, 1], [3, 4], [5, 4]], dtype=float)
X2 = np.array([[7, 4], [6, 8], [7, 6], [8, 9], [10, 9]], dtype=float)


def test_notes_two_class_fisher_example():
    X, y = np.vstack([X1, X2]), np.repeat([1, 2], 5)
    lda = LinearDiscriminantAnalysis().fit(X, y)
    w = lda.scalings_[:, 0] / np.linalg.norm(lda.scalings_[:, 0])
    np.testing.assert_allclose(w, [0.9503, 0.3113], atol=5e-5)
    # The notes' scatter conventions (cov(X, 0)·n and (μ₁ − μ₂)(μ₁ − μ₂)ᵀ) give J(w*) = 1.0476.
    Sw = 5 * (np.cov(X1.T) + np.cov(X2.T))
    d = X1.mean(axis=0) - X2.mean(axis=0)
    np.testing.assert_allclose(Sw, [[20, 13], [13, 31]])
    assert (w @ np.outer(d, d) @ w) / (w @ Sw @ w) == pytest.approx(1.0476, abs=1e-4)
    # Two classes: w ∝ S_w⁻¹(μ₁ − μ₂).
    direct = np.linalg.solve(Sw, d)
    np.testing.assert_allclose(abs(w @ direct) / np.linalg.norm(direct), 1.0, atol=1e-12)
    assert lda.explained_variance_ratio_.tolist() == [1.0]


def test_fisher_directions_maximize_the_criterion():
    X, y = load("wine")
    lda = LinearDiscriminantAnalysis().fit(X, y)
    mu = X.mean(axis=0)
    Sw = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0)) for c in range(3))
    Sb = sum((y == c).sum() * np.outer(X[y == c].mean(0) - mu, X[y == c].mean(0) - mu) for c in range(3))
    J = lambda w: (w @ Sb @ w) / (w @ Sw @ w)  # noqa: E731
    best = J(lda.scalings_[:, 0])
    rng = np.random.default_rng(0)
    assert all(J(lda.scalings_[:, 0] + 0.01 * rng.normal(size=13) * np.abs(lda.scalings_[:, 0]).max()) <= best
               for _ in range(50))
    # Unit within-class variance and uncorrelated projections.
    np.testing.assert_allclose(lda.scalings_.T @ lda.covariance_ @ lda.scalings_, np.eye(2), atol=1e-8)


def test_n_components_and_feature_names():
    X, y = load("iris")
    lda = LinearDiscriminantAnalysis(n_components=1).fit(X, y)
    assert lda.transform(X).shape == (150, 1)
    assert list(lda.get_feature_names_out()) == ["lineardiscriminantanalysis0"]
    with pytest.raises(ValueError, match="n_components=3 is larger than"):
        LinearDiscriminantAnalysis(n_components=3).fit(X, y)


def test_degenerate_inputs():
    X, y = load("iris")
    with_constant = np.column_stack([X, np.ones(len(y))])
    # LDA drops the zero-variance direction; predictions are unchanged.
    np.testing.assert_array_equal(
        LinearDiscriminantAnalysis().fit(with_constant, y).predict(with_constant),
        LinearDiscriminantAnalysis().fit(X, y).predict(X),
    )
    # QDA cannot invert a singular class covariance without regularization, and says so.
    with pytest.raises(ValueError, match="singular.*increase reg_param"):
        QuadraticDiscriminantAnalysis().fit(with_constant, y)
    assert QuadraticDiscriminantAnalysis(reg_param=0.1).fit(with_constant, y).score(with_constant, y) > 0.9
    one_sample = np.append(y[:100], 2)
    with pytest.raises(ValueError, match="only 1 sample in class 2"):
        QuadraticDiscriminantAnalysis().fit(X[:101], one_sample)
    with pytest.raises(ValueError, match="at least two classes"):
        LinearDiscriminantAnalysis().fit(X[:50], y[:50])


def test_shrinkage_handles_more_features_than_samples():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 60))
    y = np.repeat([0, 1], 15)
    X[y == 1, :5] += 1.5
    for shrinkage in ("auto", 0.5):
        lda = LinearDiscriminantAnalysis(shrinkage=shrinkage).fit(X, y)
        assert np.linalg.eigvalsh(lda.covariance_).min() > 0  # shrunk Σ is invertible
        assert lda.score(X, y) > 0.9
    plain = LinearDiscriminantAnalysis(shrinkage=0.3).fit(X, y).covariance_
    raw = LinearDiscriminantAnalysis(store_covariance=True).fit(X, y).covariance_
    np.testing.assert_allclose(plain, 0.7 * raw + 0.3 * np.trace(raw) / 60 * np.eye(60))


def test_priors_shift_the_decision():
    X, y = load("iris")
    for model in (LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis):
        even = model().fit(X, y).predict_proba(X)
        skewed = model(priors=[0.1, 0.1, 0.8]).fit(X, y).predict_proba(X)
        assert np.all(skewed[:, 2] >= even[:, 2] - 1e-12)
        with pytest.raises(ValueError, match="priors must sum to 1"):
            model(priors=[0.5, 0.5, 0.5]).fit(X, y)


def test_binary_decision_function_is_a_log_odds():
    X, y = load("breast_cancer")
    for model in (LinearDiscriminantAnalysis(), QuadraticDiscriminantAnalysis(reg_param=0.01)):
        model.fit(X, y)
        log_proba = model.predict_log_proba(X)
        np.testing.assert_allclose(model.decision_function(X), log_proba[:, 1] - log_proba[:, 0], rtol=1e-9, atol=1e-9)


def test_auto_shrinkage_works_on_the_scale_of_the_features_as_scikit_learns():
    # wine's features span 0.1 to 1,000: Ledoit–Wolf towards a multiple of I only makes sense
    # on standardized features (issue 20: 0.80 against 0.97 before).
    from sklearn.datasets import load_wine
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = load_wine(return_X_y=True)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    ours = cross_val_score(LinearDiscriminantAnalysis(shrinkage="auto"), X, y, cv=folds).mean()
    theirs = cross_val_score(SkLDA(solver="lsqr", shrinkage="auto"), X, y, cv=folds).mean()
    assert ours >= theirs - 0.01
    # Standardizing first must not change the model's predictions (shrinkage is scale-free now).
    scaled = X / X.std(axis=0)
    a = LinearDiscriminantAnalysis(shrinkage="auto").fit(X, y).predict(X)
    b = LinearDiscriminantAnalysis(shrinkage="auto").fit(scaled, y).predict(scaled)
    np.testing.assert_array_equal(a, b)



@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer"])
def test_auto_shrinkage_is_scikit_learns_class_by_class_ledoit_wolf(name):
    """Σ = Σ_c (n_c / n) Σ̂_c, each class shrunk on its own standardized features: scikit-learn's
    "auto" exactly (one Ledoit–Wolf coefficient of the pooled rows gave Σ 74 apart on wine and
    probabilities 0.30 apart)."""
    X, y = load(name)
    ours = LinearDiscriminantAnalysis(shrinkage="auto", store_covariance=True).fit(X, y)
    for solver in ("lsqr", "eigen"):
        ref = sk.LinearDiscriminantAnalysis(shrinkage="auto", solver=solver, store_covariance=True).fit(X, y)
        scale = np.abs(ref.covariance_).max()
        np.testing.assert_allclose(ours.covariance_, ref.covariance_, rtol=1e-10, atol=1e-12 * scale)
        np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)

def test_float32_lda_keeps_float32_like_scikit_learn():
    X, y = load("multiclass", n_samples=9_000, n_features=12, random_state=0)  # more rows than one block
    X32 = X.astype(np.float32)
    ours, ref = LinearDiscriminantAnalysis().fit(X32, y), sk.LinearDiscriminantAnalysis().fit(X32, y)
    double = LinearDiscriminantAnalysis().fit(X, y)
    for method in ("decision_function", "predict_proba", "transform"):
        assert getattr(ours, method)(X32).dtype == getattr(ref, method)(X32).dtype == np.float32
    np.testing.assert_allclose(ours.decision_function(X32), double.decision_function(X), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(ours.predict_proba(X32), ref.predict_proba(X32), atol=1e-4)
    assert ours.coef_.dtype == ours.means_.dtype == np.float32


def test_wide_tables_whiten_by_the_svd_of_the_rows(monkeypatch):
    """With fewer samples than features (no shrinkage) Σ is whitened from the SVD of the n × d
    centred rows, O(n²d), instead of the d × d eigenproblem, O(d³); the model is the same."""
    import lucidml.discriminant.linear as linear

    rng = np.random.default_rng(0)
    X = rng.normal(size=(45, 300))
    y = rng.integers(0, 3, 45)
    X[y == 1, :5] += 1.0
    X[:, 3] = 2.0  # constant: no within-class variance
    X[:, 7] = 3.0 * X[:, 8]  # collinear
    wide = LinearDiscriminantAnalysis().fit(X, y)
    monkeypatch.setattr(linear, "_whitening_of_rows",
                        lambda rows, tol, floor: linear._whitening(rows.T @ rows / len(rows), tol, floor))
    square = LinearDiscriminantAnalysis().fit(X, y)
    X_test = rng.normal(size=(30, 300))
    np.testing.assert_allclose(wide.decision_function(X_test), square.decision_function(X_test), rtol=1e-10,
                               atol=1e-10 * np.abs(square.decision_function(X_test)).max())
    np.testing.assert_allclose(np.abs(wide.transform(X_test)), np.abs(square.transform(X_test)), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(wide.explained_variance_ratio_, square.explained_variance_ratio_, rtol=1e-10)


def test_wide_tables_skip_the_square_covariance_unless_asked(monkeypatch):
    """store_covariance=None: a wide table without shrinkage forms no d × d matrix (not even the
    scatter), so neither its memory check nor the matrix applies; True keeps Σ, False drops it."""
    import lucidml.discriminant.linear as linear

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 500))
    y = rng.integers(0, 2, 40)
    X[y == 1, :3] += 2.0

    def no_square(*args, **kwargs):
        raise AssertionError("a d x d scatter was formed")

    monkeypatch.setattr(linear, "_within_class_scatter", no_square)
    lean = LinearDiscriminantAnalysis().fit(X, y)
    assert not hasattr(lean, "covariance_")
    monkeypatch.undo()
    full = LinearDiscriminantAnalysis(store_covariance=True).fit(X, y)
    centred = X - full.means_[np.searchsorted(full.classes_, y)]
    np.testing.assert_allclose(full.covariance_, centred.T @ centred / len(y))
    np.testing.assert_allclose(lean.decision_function(X), full.decision_function(X), rtol=1e-10, atol=1e-10)
    tall = rng.normal(size=(200, 4)), rng.integers(0, 2, 200)
    assert LinearDiscriminantAnalysis().fit(*tall).covariance_.shape == (4, 4)  # formed anyway: kept
    dropped = LinearDiscriminantAnalysis(store_covariance=False).fit(*tall)
    assert not hasattr(dropped, "covariance_")
    # A refit on a wide table does not keep the previous (tall) table's Σ.
    model = LinearDiscriminantAnalysis().fit(*tall)
    assert not hasattr(model.fit(X, y), "covariance_")


@pytest.mark.parametrize("shrinkage", [None, "auto"])
def test_a_feature_constant_but_for_rounding_is_constant(shrinkage):
    """1.1 in every row of a class (or 0.7 in every row) has class means off by an ulp and a
    variance near 1e-33: constant, as scikit-learn's StandardScaler decides, not a direction of
    unit variance (0.7 everywhere gave coefficients near 1e30 and 33% training accuracy)."""
    X, y = load("wine")
    for column, rows, value in ((5, y == 1, 1.1), (3, slice(None), 0.7)):
        Z = X.copy()
        Z[rows, column] = value
        ours = LinearDiscriminantAnalysis(shrinkage=shrinkage, store_covariance=True).fit(Z, y)
        ref = sk.LinearDiscriminantAnalysis(shrinkage=shrinkage, solver="lsqr", store_covariance=True).fit(Z, y)
        np.testing.assert_allclose(ours.predict_proba(Z), ref.predict_proba(Z), atol=1e-8)
        assert ours.score(Z, y) == ref.score(Z, y) > 0.95


def test_auto_shrinkage_holds_a_few_d_by_d_matrices_however_many_classes():
    from ..memory import traced_peak

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(4_000, 300)), np.arange(4_000) % 20
    LinearDiscriminantAnalysis(shrinkage="auto").fit(X[:200], y[:200])
    _, peak = traced_peak(lambda: LinearDiscriminantAnalysis(shrinkage="auto").fit(X, y))
    square = 8 * 300**2
    assert peak < 12 * square, f"{peak / square:.0f} d × d matrices at once (one per class were held)"


def test_a_feature_far_from_zero_keeps_its_digits():
    """A feature of 1e9 ± 1e-3 that separates the classes: the discriminant functions are formed
    about x̄, where their terms are as small as their differences (about 0 each was near 1e24,
    and rounding left 52% accuracy where scikit-learn's 85% is due)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 2_000)
    X = np.c_[rng.normal(size=2_000), 1e9 + 1e-3 * rng.normal(size=2_000) + 2e-3 * y]
    ours = LinearDiscriminantAnalysis().fit(X, y)
    ref = sk.LinearDiscriminantAnalysis().fit(X, y)
    # (A sample or two on the boundary may go either way: X's values are rounded to 1.2e-7, and the
    # BLAS kernels of the machine round the two fits' products differently.)
    assert ours.score(X, y) == pytest.approx(ref.score(X, y), abs=1e-3) and ref.score(X, y) > 0.8
    shifted = X - [0.0, 1e9]  # (X's values near 1e9 are rounded to 1.2e-7: ~1e-4 of the signal)
    near_zero = LinearDiscriminantAnalysis().fit(shifted, y).predict_proba(shifted)
    np.testing.assert_allclose(ours.predict_proba(X), near_zero, atol=1e-3)
