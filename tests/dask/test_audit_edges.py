"""Edges of the dask estimators found by an audit against their in-memory counterparts: extreme
magnitudes, a feature far from zero, the chunking's effect on a seeded fit, unknown categories,
input shapes and label types, an unpenalized ridge on collinear features."""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import lucidml.dask as ld
from lucidml.decomposition import TruncatedSVD


def _chunked(X, rows=100):
    return da.from_array(X, chunks=(rows, -1))


@pytest.mark.parametrize("make", [ld.GaussianNB, ld.KMeans, ld.PCA, ld.TruncatedSVD, ld.LogisticRegression])
def test_values_beyond_the_magnitude_limit_are_refused_by_name(client, make):
    """Values near 1e200 gave a wrong intercept, NaN coefficients or variances, an infinite inertia,
    where the in-memory estimators refuse them (check_magnitude)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3)) * 1e200
    y = (rng.random(400) < 0.5).astype(float) if make in (ld.GaussianNB, ld.LogisticRegression, ld.PoissonRegressor) \
        else rng.normal(size=400)
    model = make()
    with pytest.raises(ValueError, match="magnitude up to .*e\\+200"):
        model.fit(_chunked(X), da.from_array(y, chunks=100)) if make not in (ld.KMeans, ld.PCA, ld.TruncatedSVD) \
            else model.fit(_chunked(X))


def test_float32_kmeans_and_huge_targets_have_their_own_limits(client):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="beyond 1e\\+16"):
        ld.KMeans(3, random_state=0).fit(_chunked((rng.normal(size=(400, 2)) * 1e20).astype(np.float32)))
    X, y = rng.normal(size=(400, 3)), rng.normal(size=400)
    with pytest.raises(ValueError, match="y has values of magnitude"):
        ld.GradientBoostingRegressor(5).fit(_chunked(X), da.from_array(np.abs(y) * 1e200, chunks=100))


def test_least_squares_and_poisson_fit_what_the_in_memory_models_fit(client):
    """No magnitude limit where the in-memory model has none (values of 1e150 fit, as in memory); a
    sum of squares beyond float64 (1e200: a wrong intercept) or NaN coefficients are refused."""
    from lucidml.linear import LinearRegression, PoissonRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = X @ [1.0, 2.0] + 0.1 * rng.normal(size=400)
    for scale_x, scale_y in ((1e150, 1.0), (1.0, 1e150)):
        fitted = ld.LinearRegression().fit(_chunked(X * scale_x), da.from_array(y * scale_y, chunks=100))
        np.testing.assert_allclose(fitted.coef_, LinearRegression().fit(X * scale_x, y * scale_y).coef_, rtol=1e-8)
    with pytest.raises(ValueError, match="overflowed float64"):
        ld.LinearRegression().fit(_chunked(X * 1e200), da.from_array(y, chunks=100))
    counts = rng.poisson(np.exp(0.5 * X[:, 0])).astype(float)
    for scale in (1e-15, 1e200):  # rates in any unit, as the in-memory fit (target_units)
        fitted = ld.PoissonRegressor().fit(_chunked(X), da.from_array(counts * scale, chunks=100))
        expected = PoissonRegressor().fit(X, counts * scale)
        np.testing.assert_allclose(fitted.coef_, expected.coef_, atol=1e-6)
        np.testing.assert_allclose(fitted.intercept_, expected.intercept_, rtol=1e-8)
    with pytest.raises(ValueError, match="overflowed"):
        ld.PoissonRegressor().fit(_chunked(X * 1e200), da.from_array(counts, chunks=100))


def test_truncated_svd_variances_of_a_feature_far_from_zero(client):
    """s²/n − (μ·v)² cancelled for a feature of 1e8 + noise: a variance of 0 (one chunk) or 6 (three)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    X[:, 2] = 1e8 + rng.normal(size=3000)
    expected = TruncatedSVD(2, algorithm="full").fit(X)
    for rows in (3000, 1000):
        fitted = ld.TruncatedSVD(2).fit(_chunked(X, rows))
        np.testing.assert_allclose(fitted.explained_variance_, expected.explained_variance_, rtol=1e-6)
        np.testing.assert_allclose(fitted.explained_variance_ratio_, expected.explained_variance_ratio_, rtol=1e-6)


def test_kmeans_seeding_does_not_depend_on_the_chunking(client):
    """The chunks' sampling seeds were drawn from the seeding's generator, one per chunk: the same
    random_state gave inertias of 10359, 10278, 10357 and 10550 for 1 to 8 chunks."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 1.0, size=(500, 2)) for c in rng.uniform(-10, 10, size=(8, 2))])
    fits = [ld.KMeans(8, random_state=0).fit(_chunked(X, rows)) for rows in (4000, 1000, 500)]
    for fit in fits[1:]:
        np.testing.assert_allclose(fit.cluster_centers_, fits[0].cluster_centers_, rtol=1e-12)
    with pytest.raises(ValueError, match="init_sample_size=3 must be ≥ n_clusters=8"):
        ld.KMeans(8, init_sample_size=3).fit(_chunked(X, 1000))


def test_unknown_categories_are_read_from_the_partitions(client):
    """dask's cat.as_known() fails on its own union with pandas 3 ("Categorical categories must be unique")."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=400), "colour": pd.Categorical(rng.choice(["x", "y", "z"], 400))})
    y = frame.a + (frame.colour.astype(object) == "y") * 2.0
    dframe = dd.from_pandas(frame, npartitions=4)
    dframe["colour"] = dframe["colour"].cat.as_unknown()
    model = ld.GradientBoostingRegressor(5, random_state=0).fit(dframe, dd.from_pandas(y, npartitions=4))
    assert list(model.categories_["colour"]) == ["x", "y", "z"]


def test_input_shapes_and_label_types_are_named(client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    with pytest.raises(ValueError, match="must be 2-D .* shape \\(200,\\)"):
        ld.LinearRegression().fit(X[:, 0], X[:, 1])
    with pytest.raises(ValueError, match="must be 2-D .* shape \\(50, 2, 2\\)"):
        ld.PCA(2).fit(X[:100].reshape(50, 2, 2))
    mixed = np.array(["a", 1] * 100, dtype=object)
    for model in (ld.LogisticRegression(), ld.GaussianNB(), ld.GradientBoostingClassifier(3)):
        with pytest.raises(ValueError, match="mixes labels"):
            model.fit(_chunked(X), da.from_array(mixed, chunks=100))


def test_unpenalized_ridge_on_collinear_features_is_minimum_norm(client):
    """Ridge(alpha=0) raised "XᵀX + αI is singular" where the in-memory Ridge returns the
    minimum-norm solution."""
    from lucidml.linear import Ridge

    rng = np.random.default_rng(0)
    base = rng.normal(size=(200, 2))
    X = np.column_stack([base[:, 0], base[:, 0], base[:, 1], 2 * base[:, 1]])
    y = X @ [1.0, 1.0, 0.5, 1.0] + 0.01 * rng.normal(size=200)
    fitted = ld.Ridge(alpha=0.0).fit(_chunked(X, 50), da.from_array(y, chunks=50))
    np.testing.assert_allclose(fitted.coef_, Ridge(alpha=0.0).fit(X, y).coef_, atol=1e-8)


def test_boosting_whose_predictions_overflow_is_refused(client):
    """y near 1e99 with learning_rate=1e250: NaN predictions, where the in-memory booster refuses."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(400, 3)), rng.normal(size=400) * 1e99
    with pytest.raises(ValueError, match="predictions overflowed"):
        ld.GradientBoostingRegressor(5, learning_rate=1e250).fit(_chunked(X), da.from_array(y, chunks=100))


def test_unclear_rank_keeps_a_feature_in_small_units(client):
    """Two nearly collinear features (κ ≈ 1e5, no clean split of the spectrum into kept and
    dropped) and a third in units 1e-9: the fallback read the rank from the unscaled XᵀX, where
    the third's eigenvalue is below the rounding of the largest, and gave it a coefficient of 0."""
    from lucidml.linear import LinearRegression

    rng = np.random.default_rng(0)
    x = rng.normal(size=500)
    X = np.column_stack([x, x + 1e-5 * rng.normal(size=500), 1e-9 * rng.normal(size=500)])
    y = X @ [1.0, 1.0, 3e9] + 0.01 * rng.normal(size=500)
    fitted = ld.LinearRegression().fit(_chunked(X, 125), da.from_array(y, chunks=125))
    expected = LinearRegression().fit(X, y)
    assert fitted.rank_ == expected.rank_ == 3
    np.testing.assert_allclose(fitted.coef_[2], expected.coef_[2], rtol=1e-6)
    np.testing.assert_allclose(X @ fitted.coef_, X @ expected.coef_, rtol=1e-8, atol=1e-8)
