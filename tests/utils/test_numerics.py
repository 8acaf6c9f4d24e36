"""lucidml.utils numerics: stable logistic functions, the gradient and KKT checkers, the online mistake count."""

import warnings

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lucidml.linear import Perceptron
from lucidml.optim.qp import active_set_qp, interior_point_qp
from lucidml.theory import perceptron_mistake_bound
from lucidml.utils import check_gradient, kkt_residual, logit, online_mistakes, sigmoid, softplus

EXTREMES = np.array([-np.inf, -1e308, -1e4, -745.0, -710.0, -37.0, -1.0, -1e-300, 0.0, 1e-300, 1.0, 37.0, 710.0,
                     1e4, 1e308, np.inf])
FLOATS = st.floats(allow_nan=False, allow_infinity=True, width=64)


# ---------------------------------------------------------------- sigmoid, logit, softplus

def test_sigmoid_and_softplus_at_the_extremes_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or invalid-value warning anywhere
        s, sp = sigmoid(EXTREMES), softplus(EXTREMES)
    # scipy's expit flushes σ(−745) and σ(−710) to 0; the subnormal values here are the right ones
    np.testing.assert_allclose(s, scipy.special.expit(EXTREMES), rtol=1e-15, atol=1e-300)
    assert s[3] == np.exp(-745.0) and s[4] == pytest.approx(np.exp(-710.0), rel=1e-12)
    np.testing.assert_allclose(sp, np.logaddexp(0.0, EXTREMES), rtol=1e-15, atol=0)
    assert (s[0], s[-1], sp[0], sp[-1]) == (0.0, 1.0, 0.0, np.inf)
    assert sigmoid(1e308) == 1.0 and sigmoid(-1e308) == 0.0
    assert softplus(1e308) == 1e308 and softplus(-1e308) == 0.0


def test_scalars_give_floats_and_arrays_keep_their_shape():
    assert isinstance(sigmoid(0), float) and isinstance(logit(0.25), float) and isinstance(softplus(-2), float)
    grid = np.linspace(-5, 5, 12).reshape(3, 4)
    assert sigmoid(grid).shape == logit(sigmoid(grid)).shape == softplus(grid).shape == (3, 4)
    assert np.isnan(sigmoid(np.nan)) and np.isnan(softplus(np.nan)) and np.isnan(logit(np.nan))


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(1, 20), elements=FLOATS))
def test_sigmoid_and_softplus_agree_with_scipy_and_numpy(x):
    np.testing.assert_allclose(sigmoid(x), scipy.special.expit(x), rtol=4e-16, atol=1e-300)  # expit flushes
    np.testing.assert_allclose(sigmoid([-720.0, -709.5]), np.exp([-720.0, -709.5]), rtol=1e-9)  # subnormals
    np.testing.assert_allclose(softplus(x), np.logaddexp(0.0, x), rtol=4e-16, atol=0)
    assert np.all((sigmoid(x) >= 0) & (sigmoid(x) <= 1))


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(1, 20), elements=st.floats(0.0, 1.0)))
def test_logit_agrees_with_scipy(p):
    np.testing.assert_allclose(logit(p), scipy.special.logit(p), rtol=1e-12, atol=1e-15)


def test_logit_edges_and_inverse():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        edges = logit([0.0, 1.0, -0.5, 1.5])
    assert edges[0] == -np.inf and edges[1] == np.inf and np.isnan(edges[2]) and np.isnan(edges[3])
    x = np.linspace(-700, 0, 200)  # σ(x ≤ 0) keeps every digit (for x > 0, 1 − σ(x) loses them)
    np.testing.assert_allclose(logit(sigmoid(x)), x, rtol=1e-13, atol=1e-13)
    x = np.linspace(0, 5, 50)
    np.testing.assert_allclose(logit(sigmoid(x)), x, rtol=0, atol=1e-12)
    assert logit(1e-300) == pytest.approx(np.log(1e-300), rel=1e-15)


def test_softplus_is_the_logistic_loss():
    z = np.linspace(-50, 0, 101)  # where −log σ(z) is itself accurate
    np.testing.assert_allclose(softplus(-z), -np.log(sigmoid(z)), rtol=1e-13)
    z = np.linspace(-50, 50, 101)
    np.testing.assert_allclose(softplus(z) - softplus(-z), z, atol=1e-12)  # log σ(z) − log σ(−z) = z


# ---------------------------------------------------------------- check_gradient

def test_check_gradient_passes_a_correct_gradient_and_fails_a_wrong_one():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 4)), rng.integers(0, 2, 30) * 2 - 1
    w = rng.normal(size=4)

    def loss(w):
        return float(np.sum(softplus(-y * (X @ w))))

    def grad(w):
        return -X.T @ (y * sigmoid(-y * (X @ w)))

    assert check_gradient(loss, grad, w) < 1e-8
    assert check_gradient(loss, lambda w: X.T @ (y * sigmoid(-y * (X @ w))), w) > 0.5  # sign error
    assert check_gradient(loss, lambda w: grad(w) * [1, 1, 1, 1.01], w) > 1e-3  # one coordinate off by 1%
    before = w.copy()
    check_gradient(loss, grad, w)
    np.testing.assert_array_equal(w, before)


def test_check_gradient_on_matrix_shaped_parameters_and_bad_input():
    A = np.arange(6.0).reshape(2, 3)
    assert check_gradient(lambda W: float(np.sum(W ** 3)), lambda W: 3 * W ** 2, A) < 1e-8
    with pytest.raises(ValueError, match="entries"):
        check_gradient(lambda W: float(np.sum(W)), lambda W: np.ones(2), A)
    with pytest.raises(ValueError, match="finite"):
        check_gradient(lambda w: 0.0, lambda w: w, [np.nan])


def test_neural_gradient_check_runs_on_the_same_engine():
    import lucidml.neural
    import lucidml.utils.numerics

    assert lucidml.neural.numerical_gradient is lucidml.utils.numerics.numerical_gradient
    assert lucidml.neural.relative_error is lucidml.utils.numerics.relative_error


# ---------------------------------------------------------------- kkt_residual

def _qp():
    # min ½ xᵀGx + cᵀx  s.t.  x₀ + x₁ + x₂ = 1,  x ≥ 0 written as −x ≤ 0,  x₀ ≤ 0.2
    G = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]])
    c = np.array([-1.0, -2.0, 0.5])
    A_eq, b_eq = np.ones((1, 3)), np.array([1.0])
    A_ineq = np.vstack([-np.eye(3), [1.0, 0.0, 0.0]])
    b_ineq = np.array([0.0, 0.0, 0.0, 0.2])
    return G, c, A_eq, b_eq, A_ineq, b_ineq


@pytest.mark.parametrize("solver", [active_set_qp, interior_point_qp])
def test_kkt_residual_at_a_qp_solution_matches_the_solver(solver):
    G, c, A_eq, b_eq, A_ineq, b_ineq = _qp()
    result = solver(G, c, A_eq, b_eq, A_ineq, b_ineq)
    assert result.success
    residual = kkt_residual(lambda x: G @ x + c, result.x, y=result.y, z=result.z, A_eq=A_eq, b_eq=b_eq,
                            A_ineq=A_ineq, b_ineq=b_ineq)
    assert residual == pytest.approx(result.kkt, abs=1e-12)
    assert max(residual.values()) < 1e-6
    # a point off the optimum is caught by stationarity, an infeasible one by feasibility
    moved = kkt_residual(G @ (result.x + 0.1) + c, result.x + 0.1, y=result.y, z=result.z, A_eq=A_eq, b_eq=b_eq,
                         A_ineq=A_ineq, b_ineq=b_ineq)
    assert moved["stationarity"] > 0.1 and moved["equality"] == pytest.approx(0.3)


def test_kkt_residual_by_hand():
    # min (x₀ − 2)² + (x₁ − 2)²  s.t.  x₀ + x₁ ≤ 2,  x₀ − x₁ = 0: x* = (1, 1); ∇f = (−2, −2) = −z (1, 1) − y (1, −1)
    grad = lambda x: 2 * (np.asarray(x) - 2)  # noqa: E731
    constraints = {"A_eq": [[1.0, -1.0]], "b_eq": [0.0], "A_ineq": [[1.0, 1.0]], "b_ineq": [2.0]}
    exact = kkt_residual(grad, [1.0, 1.0], y=[0.0], z=[2.0], **constraints)
    assert exact == {"stationarity": 0.0, "equality": 0.0, "inequality": 0.0, "dual_feasibility": 0.0,
                     "complementarity": 0.0}
    wrong_sign = kkt_residual(grad, [1.0, 1.0], y=[0.0], z=[-2.0], **constraints)
    assert wrong_sign["dual_feasibility"] == 2.0 and wrong_sign["stationarity"] == 4.0
    outside = kkt_residual(grad, [1.5, 1.5], y=[0.0], z=[1.0], **constraints)
    assert outside["inequality"] == pytest.approx(1.0) and outside["complementarity"] == pytest.approx(1.0)
    # unconstrained: only stationarity can be non-zero
    assert kkt_residual(np.array([0.5, -3.0]), [0.0, 0.0]) == {"stationarity": 3.0, "equality": 0.0,
                                                                "inequality": 0.0, "dual_feasibility": 0.0,
                                                                "complementarity": 0.0}


def test_kkt_residual_bad_shapes_are_named():
    with pytest.raises(ValueError, match="both"):
        kkt_residual(np.zeros(2), np.zeros(2), A_eq=[[1.0, 1.0]])
    with pytest.raises(ValueError, match="one multiplier per constraint"):
        kkt_residual(np.zeros(2), np.zeros(2), z=[1.0, 2.0], A_ineq=[[1.0, 1.0]], b_ineq=[1.0])
    with pytest.raises(ValueError, match="gradient has 3"):
        kkt_residual(np.zeros(3), np.zeros(2))


# ---------------------------------------------------------------- online_mistakes

def _separable(n=200, seed=0, margin=0.3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(4 * n, 2))
    score = X @ np.array([1.0, -0.7]) + 0.1
    keep = np.abs(score) / np.linalg.norm([1.0, -0.7]) > margin
    X = X[keep][:n]
    return X, (score[keep][:n] > 0).astype(int)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_perceptron_makes_no_more_mistakes_than_its_bound(seed):
    X, y = _separable(seed=seed)
    bound = perceptron_mistake_bound(X, y).bound
    mistakes = online_mistakes(Perceptron(), X, y)
    assert 1 <= mistakes <= bound
    # going round the stream again, a perceptron that has converged makes no more mistakes
    repeated = online_mistakes(Perceptron(), np.vstack([X] * 5), np.tile(y, 5))
    assert mistakes <= repeated <= bound


def test_online_mistakes_counts_prediction_before_update():
    # a learner that always predicts the last label it saw: mistakes = 1 + number of label changes
    from sklearn.base import BaseEstimator, ClassifierMixin

    class LastLabel(ClassifierMixin, BaseEstimator):
        def partial_fit(self, X, y, classes=None):
            self.last_ = y[-1]
            return self

        def predict(self, X):
            return np.full(len(X), self.last_)

    y = np.array([0, 0, 1, 1, 1, 0, 1, 1])
    X = np.zeros((8, 1))
    assert online_mistakes(LastLabel(), X, y) == 1 + int(np.sum(y[1:] != y[:-1]))
    for wrong in (TypeError, ValueError):  # the "clear ValueError", and a TypeError as scikit-learn's
        with pytest.raises(wrong, match="online_mistakes needs an online learner with partial_fit and predict"):
            online_mistakes(object(), X, y)
    estimator = Perceptron()
    online_mistakes(estimator, X, y)
    assert not hasattr(estimator, "coef_")  # the user's estimator is left unfitted
