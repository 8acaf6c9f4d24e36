"""ICA: recovers mixed non-Gaussian sources up to permutation, sign and scale."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning

from lucidml.decomposition.ica import ICA

RNG = np.random.RandomState(0)
N = 2000
MIXING = np.array([[1.0, 1.0], [0.5, 2.0]])
SOURCES = {
    "laplace": RNG.laplace(size=(N, 2)),
    "laplace+student": np.c_[RNG.laplace(size=N), RNG.standard_t(3, size=N)],
}


def _best_correlations(S, S_hat):
    """For every true source, the largest |correlation| with a recovered one (permutation, sign free)."""
    corr = np.abs(np.corrcoef(S.T, S_hat.T)[: S.shape[1], S.shape[1]:])
    assert len(set(corr.argmax(axis=1))) == S.shape[1]  # each source found by a different component
    return corr.max(axis=1)


@pytest.mark.parametrize("name", SOURCES)
@pytest.mark.parametrize("algorithm", ["natural_gradient", "gradient"])
@pytest.mark.parametrize("fun", ["logistic", "laplace"])
def test_recovers_super_gaussian_sources(name, algorithm, fun):
    S = SOURCES[name]
    X = S @ MIXING.T + 3.0
    ica = ICA(algorithm=algorithm, fun=fun, random_state=0)
    S_hat = ica.fit_transform(X)
    assert np.all(_best_correlations(S, S_hat) > 0.99)
    np.testing.assert_allclose(S_hat, ica.transform(X), atol=1e-10)
    np.testing.assert_allclose(ica.inverse_transform(S_hat), X, atol=1e-8)  # square: exact round trip


def test_mini_batches_and_loss_decreases():
    S = SOURCES["laplace"]
    ica = ICA(batch_size=32, learning_rate=1e-2, random_state=0).fit(S @ MIXING.T)
    assert np.all(_best_correlations(S, ica.transform(S @ MIXING.T)) > 0.99)
    assert ica.loss_curve_[-1] < ica.loss_curve_[0]
    assert ica.n_iter_ == len(ica.loss_curve_)


def test_three_sources_with_dimension_reduction():
    S = np.c_[RNG.laplace(size=N), RNG.standard_t(4, size=N), RNG.exponential(size=N) - 1.0]
    A = RNG.standard_normal((5, 3))  # 5 sensors, 3 sources: whitening reduces to 3 dimensions
    ica = ICA(n_components=3, random_state=0).fit(S @ A.T)
    assert ica.components_.shape == (3, 5) and ica.mixing_.shape == (5, 3)
    assert np.all(_best_correlations(S, ica.transform(S @ A.T)) > 0.98)


def test_mixing_is_recovered_up_to_scale_and_permutation():
    S = SOURCES["laplace"]
    ica = ICA(random_state=0).fit(S @ MIXING.T)
    # components_ · A should be a scaled permutation matrix
    P = np.abs(ica.components_ @ MIXING)
    P /= P.max(axis=1, keepdims=True)
    assert np.sort(P, axis=1)[:, 0].max() < 0.05


def test_without_whitening():
    S = SOURCES["laplace"]
    ica = ICA(whiten=False, learning_rate=1e-3, random_state=0).fit(S @ MIXING.T)
    assert ica.whitening_ is None
    assert np.all(_best_correlations(S, ica.transform(S @ MIXING.T)) > 0.99)


def test_convergence_warning():
    with pytest.warns(ConvergenceWarning):
        ICA(max_iter=1, random_state=0).fit(SOURCES["laplace"])


def test_bad_input():
    X = SOURCES["laplace"] @ MIXING.T
    with pytest.raises(ValueError, match="n_features=2"):
        ICA(n_components=3).fit(X)
    with pytest.raises(ValueError, match="rank"):
        ICA().fit(np.c_[X[:, 0], 2 * X[:, 0]])
    with pytest.raises(ValueError, match="NaN"):
        ICA().fit(np.where(X > 5, np.nan, X))
    with pytest.raises(ValueError, match="whitening"):
        ICA(n_components=1, whiten=False).fit(X)
    with pytest.raises(ValueError, match="fun"):
        ICA(fun="cube").fit(X)
    for algorithm in ("gradient", "natural_gradient"):  # subnormal X: 1/σ overflows (was a LinAlgError)
        with pytest.raises(ValueError, match="too small to whiten"):
            ICA(algorithm=algorithm).fit(X * 1e-310)


@pytest.mark.parametrize("whiten", [True, False])
def test_float32_is_kept(whiten):
    """float32 X: fitted arrays, sources and round trip are float32 (not promoted), and close to the
    float64 fit's (W itself is updated in float64 on the float32 data)."""
    X = SOURCES["laplace"] @ MIXING.T + 3.0
    ref = ICA(whiten=whiten, random_state=0).fit(X)
    ours = ICA(whiten=whiten, random_state=0).fit(X.astype(np.float32))
    names = ["components_", "mixing_", "unmixing_", "mean_"] + (["whitening_"] if whiten else [])
    for name in names:
        assert getattr(ours, name).dtype == np.float32, name
        np.testing.assert_allclose(getattr(ours, name), getattr(ref, name), rtol=1e-3, atol=1e-4, err_msg=name)
    S32 = ours.transform(X.astype(np.float32))
    assert S32.dtype == ours.inverse_transform(S32).dtype == np.float32
    assert ICA(whiten=whiten, random_state=0).fit_transform(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(S32, ref.transform(X), atol=1e-3)
    np.testing.assert_allclose(ours.inverse_transform(S32), X, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_features_in_small_units_are_not_taken_for_missing_directions(dtype):
    """A full-rank X whose smallest singular value is tiny only because a feature is in small units
    is whitened. Raw breast cancer in float32 (singular values 1e-6 of the largest, under float32's
    rank cutoff) raised "rank < n_components" although scikit-learn's FastICA fits it; in float64 the
    same happened to a feature in units of 1e-14."""
    if dtype == np.float32:
        X = load_breast_cancer(return_X_y=True)[0].astype(np.float32)
    else:
        X = (SOURCES["laplace"] @ MIXING.T) * np.array([1.0, 1e-14])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ica = ICA(random_state=0, max_iter=5).fit(X)
    S = ica.transform(X)
    assert S.dtype == dtype and np.all(np.isfinite(S))
    # Whitened sources: unit variance, uncorrelated (the whitening is the part this test is about).
    Z = (X - ica.mean_).astype(np.float64) @ ica.whitening_.T.astype(np.float64)
    np.testing.assert_allclose(np.cov(Z, rowvar=False, bias=True), np.eye(X.shape[1]),
                               atol=2e-2 if dtype == np.float32 else 1e-8)
    with pytest.raises(ValueError, match="rank"):  # a real missing direction is still refused
        ICA().fit(np.c_[X[:, :1], 2 * X[:, :1]].astype(dtype))


def test_plain_gradient_driven_singular_is_a_divergence():
    """Unwhitened X near 1e20 drove W singular: NumPy's LinAlgError from W⁻ᵀ inside the kernel."""
    rng = np.random.default_rng(0)
    X = rng.laplace(size=(1000, 3)) @ rng.standard_normal((3, 3)).T
    with pytest.raises(ValueError, match="ICA diverged"):
        ICA(algorithm="gradient", whiten=False, max_iter=20, random_state=0).fit(X * 1e20)
