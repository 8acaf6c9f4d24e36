"""PageRank against networkx, power against linear, and the stationary-distribution property."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning

from lucidml.graph import pagerank


def _random_graph(n, p, seed, weighted=False):
    graph = nx.gnp_random_graph(n, p, seed=seed, directed=True)  # has dangling nodes at small p
    rng = np.random.default_rng(seed)
    for u, v in graph.edges:
        graph[u][v]["weight"] = rng.uniform(0.5, 3.0) if weighted else 1.0
    return graph, nx.to_scipy_sparse_array(graph, nodelist=range(n), weight="weight", format="csr")


def _networkx(graph, n, **options):
    scores = nx.pagerank(graph, tol=1e-14, max_iter=1000, weight="weight", **options)
    return np.array([scores[i] for i in range(n)])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_networkx_on_random_graphs(seed, weighted):
    graph, A = _random_graph(300, 0.01, seed, weighted)
    assert (np.asarray(A.sum(axis=1)).ravel() == 0).any(), "the test needs dangling nodes"
    reference = _networkx(graph, 300)
    for method in ("power", "linear"):
        result = pagerank(A, method=method, tol=1e-12, max_iter=1000)
        np.testing.assert_allclose(result.scores, reference, atol=1e-8)


def test_personalization_and_dangling_match_networkx():
    graph, A = _random_graph(200, 0.015, 7)
    rng = np.random.default_rng(0)
    v, w = rng.uniform(size=200), rng.uniform(size=200)
    expected = _networkx(
        graph, 200, alpha=0.7, personalization=dict(enumerate(v)), dangling=dict(enumerate(w))
    )
    for method in ("power", "linear"):
        result = pagerank(A, damping=0.7, personalization=v, dangling=w, method=method, tol=1e-13, max_iter=2000)
        np.testing.assert_allclose(result.scores, expected, atol=1e-8)


def test_scores_are_the_stationary_distribution_of_the_google_matrix():
    _, A = _random_graph(60, 0.05, 3)
    A = A.toarray()
    n, alpha = 60, 0.85
    out = A.sum(axis=1)
    P = np.where(out[:, None] > 0, A / np.where(out > 0, out, 1)[:, None], 1.0 / n).T  # column-stochastic
    G = alpha * P + (1 - alpha) / n
    r = pagerank(A, tol=1e-14, max_iter=500).scores
    np.testing.assert_allclose(G @ r, r, atol=1e-12)
    assert r.min() > 0 and r.sum() == pytest.approx(1.0)


def test_small_examples_by_hand():
    cycle = np.roll(np.eye(4), 1, axis=1)  # 0 → 1 → 2 → 3 → 0: every node alike
    np.testing.assert_allclose(pagerank(cycle).scores, 0.25)
    star = np.zeros((4, 4))
    star[1:, 0] = 1  # 1, 2, 3 → 0; node 0 dangling
    r = pagerank(star, damping=0.85, tol=1e-14, max_iter=500).scores
    # Leaves are symmetric; the hub collects 0.85 of every leaf's score.
    np.testing.assert_allclose(r[1], r[2])
    leaf = (1 - 0.85) / 4 + 0.85 * r[0] / 4
    np.testing.assert_allclose(r[1], leaf, rtol=1e-10)


def test_history_and_convergence_warning():
    _, A = _random_graph(100, 0.03, 5)
    result = pagerank(A)
    assert result.converged and result.n_iter == len(result.history) and result.history[-1] < 1e-8
    assert all(b <= a * 1.0000001 for a, b in zip(result.history[1:], result.history[2:]))  # contracts by ≤ α
    with pytest.warns(ConvergenceWarning, match="did not reach"):
        late = pagerank(A, max_iter=3)
    assert not late.converged and late.n_iter == 3


def test_dense_and_sparse_inputs_agree():
    _, A = _random_graph(80, 0.05, 11)
    np.testing.assert_allclose(pagerank(A.toarray()).scores, pagerank(scipy.sparse.coo_matrix(A)).scores)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"A": np.ones((3, 4))}, "square"),
        ({"A": -np.ones((3, 3))}, "non-negative"),
        ({"A": np.ones((3, 3)), "damping": 1.0}, "damping"),
        ({"A": np.ones((3, 3)), "personalization": [1, 2]}, "one entry per node"),
        ({"A": np.ones((3, 3)), "dangling": [0, 0, 0]}, "not all zero"),
        ({"A": np.ones((3, 3)), "method": "eigen"}, "method"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        pagerank(**kwargs)


@pytest.mark.parametrize("method", ["power", "linear"])
@pytest.mark.parametrize("scale", [1e308, 1e-320])
def test_the_scores_do_not_depend_on_the_units_of_the_weights(method, scale):
    """Row sums of weights near 1e308 overflowed (scores 0.05 off), reciprocals of 1e-320 (NaN, or
    a singular factor): the weights are taken in units of the largest."""
    rng = np.random.default_rng(0)
    A = (rng.uniform(size=(8, 8)) < 0.4) * rng.uniform(0.5, 1.0, (8, 8))
    np.fill_diagonal(A, 0.0)
    scaled = A * scale  # (near 1e-320 the weights themselves keep only about 11 bits)
    expected = pagerank(np.ldexp(scaled, -int(np.frexp(scaled.max())[1])), method=method, max_iter=1000).scores
    np.testing.assert_allclose(pagerank(scaled, method=method, max_iter=1000).scores, expected, rtol=1e-9)
