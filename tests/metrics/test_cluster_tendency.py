"""Hopkins statistic, gap statistic and the choice of the number of clusters."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.cluster import AgglomerativeClustering
from sklearn.cluster import KMeans as SKKMeans
from sklearn.datasets import load_iris, make_blobs

from lucidml.cluster import choose_n_clusters
from lucidml.metrics import elbow, gap_statistic, hopkins_statistic, silhouette_score


def _blobs(k, seed=0, n=60, d=2, std=0.4):
    centers = np.random.default_rng(seed).uniform(-10, 10, size=(k, d))
    return make_blobs(n_samples=n * k, centers=centers, cluster_std=std, random_state=seed)[0]


# ---------------------------------------------------------------- Hopkins

@pytest.mark.parametrize("d", [1, 2, 5])
def test_hopkins_uniform_data_is_about_one_half(d):
    rng = np.random.default_rng(d)
    values = [hopkins_statistic(rng.uniform(size=(400, d)), random_state=s) for s in range(30)]
    # Beta(m, m) with m = 40 has sd ≈ 0.056; the mean of 30 draws is within ≈ 0.03 of 0.5
    assert abs(np.mean(values) - 0.5) < 0.04


@pytest.mark.parametrize("power", ["dimension", 1])
def test_hopkins_clustered_data_is_near_one(power):
    for seed in range(3):
        assert hopkins_statistic(_blobs(4, seed, std=0.2), power=power, random_state=seed) > 0.9


def test_hopkins_lattice_is_below_one_half():
    grid = np.stack(np.meshgrid(np.arange(25.0), np.arange(25.0)), axis=-1).reshape(-1, 2)
    assert hopkins_statistic(grid, random_state=0) < 0.3


@settings(max_examples=30, deadline=None)
@given(shift=st.floats(-1e3, 1e3), scale=st.floats(1e-3, 1e3), seed=st.integers(0, 2**16))
def test_hopkins_is_invariant_to_translation_and_scaling(shift, scale, seed):
    X = _blobs(3, seed % 7, n=20)
    assert hopkins_statistic(X * scale + shift, random_state=seed) == pytest.approx(hopkins_statistic(X, random_state=seed), rel=1e-6)



@pytest.mark.parametrize("scale", [1e-170, 1e-300, 1e160, 1e300])
def test_hopkins_holds_at_extreme_scales(scale):
    """The k-d tree's squared distances overflowed from about 1e154 (H was NaN) and underflowed
    below 1e-162 ("All samples are identical")."""
    X = _blobs(3)
    assert hopkins_statistic(X * scale, random_state=0) == pytest.approx(hopkins_statistic(X, random_state=0),
                                                                          rel=1e-12)

def test_hopkins_is_reproducible_and_does_not_mutate():
    X = _blobs(3)
    X_copy = X.copy()
    assert hopkins_statistic(X, random_state=5) == hopkins_statistic(X, random_state=5)
    np.testing.assert_array_equal(X, X_copy)


def test_hopkins_errors():
    with pytest.raises(ValueError, match="at least 3"):
        hopkins_statistic(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="identical"):
        hopkins_statistic(np.ones((10, 2)), random_state=0)
    with pytest.raises(ValueError, match="sample_size"):
        hopkins_statistic(np.random.default_rng(0).normal(size=(10, 2)), sample_size=10)
    with pytest.raises(ValueError, match="power"):
        hopkins_statistic(np.random.default_rng(0).normal(size=(10, 2)), power=0)
    with pytest.raises(ValueError, match="NaN|infinity"):
        hopkins_statistic(np.array([[0.0], [1.0], [np.nan]]))


# ---------------------------------------------------------------- gap statistic

@pytest.mark.parametrize("reference", ["uniform", "pca"])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_gap_finds_the_number_of_blobs(k, reference):
    X = _blobs(k, seed=k)
    assert gap_statistic(X, range(1, 8), reference=reference, random_state=0).best_k == k


def test_gap_on_structureless_data_chooses_one():
    X = np.random.default_rng(3).uniform(size=(200, 2))
    assert gap_statistic(X, range(1, 6), random_state=0).best_k == 1


def test_gap_definition_with_sklearn_kmeans():
    # log W_k is the log of the SSE that elbow() computes with the same clusterer
    X = _blobs(3, seed=1, n=30)
    result = gap_statistic(X, [1, 2, 3, 4], n_refs=5, clusterer=SKKMeans, n_init=5, random_state=0)
    np.testing.assert_allclose(result.log_w, np.log(elbow(X, [1, 2, 3, 4], estimator=SKKMeans, n_init=5,
                                                          random_state=0)), rtol=1e-6)
    np.testing.assert_allclose(result.gap, result.expected_log_w - result.log_w)
    assert (result.standard_error > 0).all()
    assert result.best_k == 3


def test_gap_unpacks_as_gaps_and_standard_errors():
    X = _blobs(3, seed=2, n=30)
    result = gap_statistic(X, [3, 1, 2, 4], 5, 0)  # n_refs and random_state positional, k sorted
    gap, standard_error = result
    assert len(result) == 2
    np.testing.assert_array_equal(gap, result.gap)
    np.testing.assert_array_equal(standard_error, result.standard_error)
    assert result.k_values.tolist() == [1, 2, 3, 4] and gap.shape == standard_error.shape == (4,)
    np.testing.assert_array_equal(gap_statistic(X, [1, 2, 3, 4], n_refs=5, random_state=0).gap, gap)


def test_gap_one_standard_error_rule():
    from lucidml.metrics.gap import _one_standard_error_choice

    gap = np.array([0.1, 0.5, 0.55, 0.6])
    # k=2 passes: 0.5 >= 0.55 - 0.1
    assert _one_standard_error_choice(gap, np.array([0.1, 0.1, 0.1, 0.1])) == 1
    # with tiny errors nothing passes until the end: the largest gap
    assert _one_standard_error_choice(gap, np.full(4, 1e-3)) == 3


def test_pca_reference_follows_the_data_shape():
    from lucidml.metrics.gap import _reference_sampler

    rng = np.random.default_rng(0)
    # a thin diagonal stick: the axis-aligned box is a square, the PCA box is thin
    t = rng.uniform(-1, 1, size=500)
    X = np.column_stack([t, t + rng.normal(0, 0.01, size=500)])
    Z = _reference_sampler(X, "pca")(np.random.RandomState(0))
    assert np.abs(Z[:, 0] - Z[:, 1]).max() < 0.1
    U = _reference_sampler(X, "uniform")(np.random.RandomState(0))
    assert np.abs(U[:, 0] - U[:, 1]).max() > 1.0


def test_gap_errors():
    X = _blobs(2, n=10)
    with pytest.raises(ValueError, match="n_refs"):
        gap_statistic(X, [1, 2], n_refs=1)
    with pytest.raises(ValueError, match="reference"):
        gap_statistic(X, [1, 2], reference="sphere")
    with pytest.raises(ValueError, match="k"):
        gap_statistic(X, [0, 2])
    with pytest.raises(ValueError, match="empty"):
        gap_statistic(X, [])
    with pytest.raises(ValueError, match="dispersion is 0"):
        gap_statistic(np.repeat(X[:3], 4, axis=0), [1, 3], random_state=0)


# ---------------------------------------------------------------- choose_n_clusters

@pytest.mark.parametrize("method", ["elbow", "silhouette", "gap"])
@pytest.mark.parametrize("k", [3, 4])
def test_choose_n_clusters_on_blobs(method, k):
    X = _blobs(k, seed=10 + k)
    result = choose_n_clusters(X, range(2, 9), method=method, random_state=0)
    assert result.best_k == k
    assert result.k_values.tolist() == list(range(2, 9))
    assert result.scores.shape == (7,)
    assert result.method == method
    assert (result.standard_error is not None) == (method == "gap")


def test_choose_n_clusters_defaults_to_the_gap_and_is_reexported_by_metrics():
    import lucidml.metrics

    assert lucidml.metrics.choose_n_clusters is choose_n_clusters
    X = _blobs(3, seed=5, n=30)
    default = choose_n_clusters(X, range(1, 6), random_state=0)
    assert default.method == "gap" and default.best_k == 3
    gap = gap_statistic(X, range(1, 6), random_state=0)
    np.testing.assert_array_equal(default.scores, gap.gap)
    np.testing.assert_array_equal(default.standard_error, gap.standard_error)
    assert choose_n_clusters(X, range(2, 6), "silhouette", 0).method == "silhouette"


def test_choose_n_clusters_scores_are_the_underlying_measures():
    X = _blobs(3, seed=4, n=30)
    sil = choose_n_clusters(X, [2, 3, 4], method="silhouette", clusterer=SKKMeans, n_init=5, random_state=0)
    for k, score in zip(sil.k_values, sil.scores, strict=True):
        labels = SKKMeans(n_clusters=int(k), n_init=5, random_state=0).fit(X).labels_
        assert score == pytest.approx(silhouette_score(X, labels))
    elb = choose_n_clusters(X, [2, 3, 4, 5], method="elbow", clusterer=SKKMeans, n_init=5, random_state=0)
    np.testing.assert_allclose(elb.scores, elbow(X, [2, 3, 4, 5], estimator=SKKMeans, n_init=5, random_state=0))


def test_choose_n_clusters_with_another_clusterer_on_iris():
    X = load_iris().data
    result = choose_n_clusters(X, range(2, 7), method="silhouette", clusterer=AgglomerativeClustering)
    assert result.best_k == 2  # iris's well-known silhouette optimum (setosa against the rest)


def test_knee_of_a_known_curve():
    from lucidml.cluster.n_clusters import _knee

    k = np.arange(1, 8)
    assert _knee(k, np.array([100.0, 50.0, 10.0, 8.0, 6.0, 4.0, 2.0])) == 2  # the bend at k = 3
    assert _knee(k, np.full(7, 5.0)) == 0  # flat: no structure


def test_choose_n_clusters_errors():
    X = _blobs(2, n=10)
    with pytest.raises(ValueError, match="method"):
        choose_n_clusters(X, [2, 3], method="aic")
    with pytest.raises(ValueError, match="at least 3"):
        choose_n_clusters(X, [2, 3], method="elbow")
    with pytest.raises(ValueError, match="silhouette needs"):
        choose_n_clusters(X, [1, 2, 3], method="silhouette")
    from sklearn.mixture import GaussianMixture

    with pytest.raises(TypeError, match="labels_"):
        choose_n_clusters(X, [2, 3], method="silhouette", clusterer=lambda n_clusters, **kw: GaussianMixture(n_clusters))
