"""Self-organizing map: ordering, quantization, topology, the schedules, predict/transform, bad input.

scikit-learn has no SOM, so these are property tests of what the notes (002 §8.6) state.
"""

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.datasets import load_iris, make_blobs
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state

from lucidml.cluster.som import (
    SelfOrganizingMap,
    _initial_weights,
    _map_quality,
    _schedules,
)
from lucidml.utils import InvalidParameterError

RNG = np.random.RandomState(0)
UNIFORM_1D = RNG.uniform(0.0, 1.0, size=(500, 1))
UNIFORM_2D = RNG.uniform(0.0, 1.0, size=(1500, 2))


def _is_monotone(w):
    steps = np.diff(w)
    return bool(np.all(steps > 0) or np.all(steps < 0))


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_chain_orders_itself_on_a_line(batch, seed):
    som = SelfOrganizingMap(shape=(8,), batch=batch, random_state=seed).fit(UNIFORM_1D)
    w = som.weights_.ravel()
    assert _is_monotone(w)
    # the chain spans the data: its ends lie in the first and last eighth of [0, 1]
    assert min(w) < 0.125 and max(w) > 0.875
    assert som.topographic_error_ == 0.0


def test_one_dimensional_shape_is_a_one_row_lattice():
    a = SelfOrganizingMap(shape=(6,), random_state=3).fit(UNIFORM_1D)
    b = SelfOrganizingMap(shape=(1, 6), random_state=3).fit(UNIFORM_1D)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.lattice_, np.column_stack([np.zeros(6), np.arange(6)]))


@pytest.mark.parametrize("batch", [False, True])
def test_square_map_on_uniform_square_is_ordered_and_quantizes(batch):
    som = SelfOrganizingMap(shape=(10, 10), batch=batch, random_state=0).fit(UNIFORM_2D)
    initial = _initial_weights(UNIFORM_2D, 10, 10, "random", check_random_state(0))
    initial_qe = _map_quality(UNIFORM_2D, initial, som.lattice_)[1]
    assert som.topographic_error_ < 0.1
    # 100 prototypes on the unit square: a square cell of side 0.1 has mean distance 0.038 to
    # its centre; the map gets within 15% of that, from 13 times more at the start.
    assert som.quantization_error_ < 0.044
    assert som.quantization_error_ < initial_qe / 5
    # neighbouring units sit about one cell apart
    W = som.weights_.reshape(10, 10, 2)
    steps = np.r_[np.linalg.norm(np.diff(W, axis=0), axis=2).ravel(), np.linalg.norm(np.diff(W, axis=1), axis=2).ravel()]
    assert 0.05 < np.median(steps) < 0.15


@pytest.mark.parametrize("neighborhood", ["gaussian", "bubble"])
@pytest.mark.parametrize("batch", [False, True])
def test_both_trainings_reduce_quantization_error(neighborhood, batch):
    X = load_iris().data
    som = SelfOrganizingMap(shape=(4, 4), neighborhood=neighborhood, batch=batch, random_state=0).fit(X)
    initial = _initial_weights(X, 4, 4, "random", check_random_state(0))
    initial_qe = _map_quality(X, initial, som.lattice_)[1]
    assert som.quantization_error_ < 0.5 * initial_qe
    assert som.loss_curve_[-1] < som.loss_curve_[0]
    if batch:  # the batch map's curve starts at the initial weights
        assert som.loss_curve_[0] == pytest.approx(initial_qe)


def test_predict_transform_and_labels_agree_with_distances():
    X = load_iris().data
    som = SelfOrganizingMap(shape=(3, 5), random_state=0).fit(X)
    D = cdist(X, som.weights_)
    np.testing.assert_allclose(som.transform(X), D, rtol=1e-12)
    np.testing.assert_array_equal(som.predict(X), D.argmin(axis=1))
    np.testing.assert_array_equal(som.labels_, som.predict(X))
    np.testing.assert_array_equal(som.fit_predict(X), som.labels_)
    assert som.quantization_error_ == pytest.approx(D.min(axis=1).mean(), rel=1e-12)
    assert som.cluster_centers_ is som.weights_


def test_well_separated_blobs_map_to_distinct_units():
    X, y = make_blobs(n_samples=400, centers=[[0, 0], [20, 0], [0, 20], [20, 20]], cluster_std=0.5, random_state=0)
    som = SelfOrganizingMap(shape=(4, 4), random_state=0).fit(X)
    units = [set(som.labels_[y == c]) for c in range(4)]
    for a in range(4):
        for b in range(a + 1, 4):
            assert not units[a] & units[b]
    chain = SelfOrganizingMap(shape=(4,), batch=True, init="pca", random_state=0).fit(X)
    assert sorted(len(set(chain.labels_[y == c])) for c in range(4)) == [1, 1, 1, 1]
    assert len(set(chain.labels_)) == 4


def test_reproducible_with_random_state():
    a = SelfOrganizingMap(shape=(5, 5), random_state=7).fit(UNIFORM_2D)
    b = SelfOrganizingMap(shape=(5, 5), random_state=7).fit(UNIFORM_2D)
    c = SelfOrganizingMap(shape=(5, 5), random_state=8).fit(UNIFORM_2D)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert not np.allclose(a.weights_, c.weights_)


def test_schedules_follow_the_two_phases():
    sigma, eta = _schedules(6000, 1000, 5.0, 0.1, gaussian=True)
    assert sigma[0] == 5.0 and eta[0] == 0.1
    assert sigma[1000] == pytest.approx(1.0) and eta[1000] == pytest.approx(0.01)
    assert sigma[-1] == pytest.approx(0.5, rel=1e-3) and eta[-1] == pytest.approx(0.001, rel=1e-2)
    assert np.all(np.diff(sigma) < 0) and np.all(np.diff(eta) < 0)
    # exponential: constant ratio within a phase, σ(t) = σ₀ e^{−t/τ} with τ = 1000 / ln 5
    np.testing.assert_allclose(sigma[:1000], 5.0 * np.exp(-np.arange(1000) / (1000 / np.log(5.0))))
    sigma_bubble, _ = _schedules(6000, 1000, 5.0, 0.1, gaussian=False)
    assert np.all(sigma_bubble[1000:] == 1.0)  # the bubble keeps the nearest neighbours
    small, _ = _schedules(100, 50, 0.8, 0.1, gaussian=True)
    assert np.all(small[:50] == 0.8)


def test_default_iterations_follow_the_notes():
    som = SelfOrganizingMap(shape=(2, 3), random_state=0).fit(UNIFORM_2D[:100])
    assert som.n_iter_ == 1000 + 500 * 6
    assert len(som.loss_curve_) == 100
    assert SelfOrganizingMap(shape=(2, 3), batch=True, random_state=0).fit(UNIFORM_2D[:100]).n_iter_ == 50


def test_topographic_error_counts_non_adjacent_best_and_second():
    lattice = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    X = np.array([[0.4], [1.6]])
    ordered = np.array([[0.0], [1.0], [2.0]])
    twisted = np.array([[0.0], [2.0], [1.0]])  # units 0 and 2 are data neighbours, lattice distance 2
    assert _map_quality(X, ordered, lattice)[2] == 0.0
    labels, qe, te = _map_quality(X, twisted, lattice)
    assert te == 0.5 and labels.tolist() == [0, 1] and qe == pytest.approx(0.4)


def test_single_unit_is_the_mean():
    X = load_iris().data
    som = SelfOrganizingMap(shape=(1,), batch=True, random_state=0).fit(X)
    np.testing.assert_allclose(som.weights_[0], X.mean(axis=0))
    assert som.topographic_error_ == 0.0 and np.all(som.predict(X) == 0)


def test_bad_input():
    X = UNIFORM_2D[:50]
    for shape in [(0,), (2, 2, 2), (2.5,), (), (True, 3)]:
        with pytest.raises(ValueError, match="shape"):
            SelfOrganizingMap(shape=shape).fit(X)
    with pytest.raises(InvalidParameterError, match="shape"):
        SelfOrganizingMap(shape=4).fit(X)
    with pytest.raises(InvalidParameterError, match="learning_rate"):
        SelfOrganizingMap(learning_rate=0.0).fit(X)
    with pytest.raises(InvalidParameterError, match="neighborhood"):
        SelfOrganizingMap(neighborhood="mexican_hat").fit(X)
    with pytest.raises(ValueError, match="NaN"):
        SelfOrganizingMap().fit(np.array([[0.0, np.nan]]))
    with pytest.raises(NotFittedError):
        SelfOrganizingMap().predict(X)
    som = SelfOrganizingMap(shape=(2,), n_iter=50, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        som.predict(np.ones((3, 5)))
