"""bias_variance_decomposition: the identities, the tree-depth trade-off, determinism, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.tree import DecisionTreeClassifier as SkDecisionTreeClassifier

from lucidml.linear import LinearRegression
from lucidml.model_selection import bias_variance_decomposition
from lucidml.model_selection.bias_variance import _squared_decomposition, _zero_one_decomposition
from lucidml.tree import DecisionTreeClassifier, DecisionTreeRegressor


def _sine(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 1))
    expected = np.sin(2 * np.pi * X[:, 0])
    return X, expected + 0.3 * rng.normal(size=n), expected


def _moons(n=240, seed=0, noise=0.3):
    from sklearn.datasets import make_moons

    return make_moons(n, noise=noise, random_state=seed)


def test_squared_loss_is_bias_plus_variance_on_the_test_points():
    X, y, _ = _sine()
    result = bias_variance_decomposition(DecisionTreeRegressor(max_depth=3), X, y, loss="squared", n_rounds=30,
                                         test_size=60, random_state=0)
    expected_loss, bias, variance = result  # the 3-tuple
    assert len(result) == 3 and (expected_loss, bias, variance) == (result.expected_loss, result.bias,
                                                                      result.variance)
    assert result.loss == "squared" and result.noise is None
    assert expected_loss == pytest.approx(bias + variance, rel=1e-12)
    assert result.main_prediction.shape == result.test_index.shape == (60,)
    assert len(np.unique(result.test_index)) == 60


def test_the_split_is_stratified_for_the_zero_one_loss_and_held_out():
    X, y = _moons(200)
    y = np.where(np.arange(200) < 160, 0, 1)  # 80% / 20% classes
    result = bias_variance_decomposition(DecisionTreeClassifier(max_depth=2), X, y, n_rounds=3, test_size=0.25,
                                         random_state=0)
    assert result.loss == "0-1"  # the default loss
    assert len(result.test_index) == 50 and np.sum(y[result.test_index] == 1) == 10
    assert np.isin(result.main_prediction, [0, 1]).all()


def test_the_same_split_and_bootstrap_as_fitting_by_hand():
    # the decomposition of the held-out part equals the one computed from explicit predictions
    from sklearn.model_selection import train_test_split

    from lucidml.model_selection.bias_variance import _bootstrap_predictions

    X, y, _ = _sine(90)
    result = bias_variance_decomposition(LinearRegression(), X, y, loss="squared", n_rounds=6, test_size=0.3,
                                         random_state=5)
    rng = np.random.RandomState(5)
    train, test = train_test_split(np.arange(90), test_size=0.3, random_state=rng)
    np.testing.assert_array_equal(test, result.test_index)
    predictions = _bootstrap_predictions(LinearRegression(), X[train], y[train], X[test], 6, rng)
    assert tuple(result) == pytest.approx(tuple(_squared_decomposition(predictions, y[test], None)), rel=1e-12)


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_a_deep_tree_has_lower_bias_and_higher_variance_than_a_stump(task):
    if task == "regression":  # bias against the noiseless ȳ(x), so that the noise does not hide it
        X, y, expected = _sine()
        stump, deep, extra = DecisionTreeRegressor(max_depth=1), DecisionTreeRegressor(), {"loss": "squared",
                                                                                          "y_expected": expected}
    else:
        X, y = _moons(noise=0.4)  # noisy enough that the full tree's variance shows
        stump, deep, extra = DecisionTreeClassifier(max_depth=1), DecisionTreeClassifier(), {"loss": "0-1"}
    shallow = bias_variance_decomposition(stump, X, y, n_rounds=40, random_state=1, **extra)
    full = bias_variance_decomposition(deep, X, y, n_rounds=40, random_state=1, **extra)
    assert full.bias < shallow.bias
    assert full.variance > shallow.variance


def test_the_same_random_state_gives_the_same_result_and_another_differs():
    X, y, _ = _sine()
    args = (DecisionTreeRegressor(max_depth=4), X, y)
    first = bias_variance_decomposition(*args, loss="squared", n_rounds=20, random_state=3)
    again = bias_variance_decomposition(*args, loss="squared", n_rounds=20, random_state=3)
    other = bias_variance_decomposition(*args, loss="squared", n_rounds=20, random_state=4)
    assert tuple(first) == tuple(again)
    assert other.variance != first.variance


def test_a_random_base_estimator_is_seeded_from_random_state():
    X, y, _ = _sine(100)
    forest = RandomForestRegressor(n_estimators=5, max_features=1.0, bootstrap=True)  # random_state=None
    first = bias_variance_decomposition(forest, X, y, loss="squared", n_rounds=5, random_state=0)
    again = bias_variance_decomposition(forest, X, y, loss="squared", n_rounds=5, random_state=0)
    assert first.variance == again.variance
    assert forest.random_state is None  # the user's estimator is untouched


def test_lucidml_and_scikit_learn_least_squares_give_the_same_decomposition():
    X, y, _ = _sine()
    X = np.column_stack([X, X ** 2, X ** 3])
    ours = bias_variance_decomposition(LinearRegression(), X, y, loss="squared", n_rounds=25, random_state=0)
    theirs = bias_variance_decomposition(SkLinearRegression(), X, y, loss="squared", n_rounds=25, random_state=0)
    assert ours.bias == pytest.approx(theirs.bias, rel=1e-8)
    assert ours.variance == pytest.approx(theirs.variance, rel=1e-8)


def test_zero_one_loss_follows_domingos_for_two_classes():
    X, y = _moons()
    for tree in (DecisionTreeClassifier(max_depth=2), SkDecisionTreeClassifier(random_state=0)):
        result = bias_variance_decomposition(tree, X, y, loss="0-1", n_rounds=25, random_state=0)
        assert result.expected_loss == pytest.approx(
            result.bias + result.unbiased_variance - result.biased_variance, abs=1e-12)
        assert result.variance == pytest.approx(result.unbiased_variance + result.biased_variance, abs=1e-12)
        assert set(np.unique(result.main_prediction)) <= {0, 1}


def test_zero_one_main_prediction_is_the_mode_with_ties_to_the_smallest_label():
    predictions = np.array([["b", "a", "c"], ["b", "c", "c"], ["a", "c", "a"], ["a", "a", "b"]])
    result = _zero_one_decomposition(predictions, np.array(["a", "c", "c"]))
    # column 0: a,a vs b,b tie -> "a"; column 1: c 2 of 4, a 2 of 4 tie -> "a"; column 2: c 2, a 1, b 1 -> "c"
    assert result.main_prediction.tolist() == ["a", "a", "c"]
    assert result.bias == pytest.approx(1 / 3)  # only column 1's main prediction is wrong
    assert result.expected_loss == pytest.approx(np.mean(predictions != np.array(["a", "c", "c"])))
    assert result.variance == pytest.approx((2 / 4 + 2 / 4 + 2 / 4) / 3)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 8), st.integers(1, 6)), elements=st.floats(-1e3, 1e3)),
       st.data())
def test_squared_identity_holds_for_any_predictions(predictions, data):
    y = data.draw(arrays(np.float64, predictions.shape[1], elements=st.floats(-1e3, 1e3)))
    result = _squared_decomposition(predictions, y, None)
    assert result.expected_loss == pytest.approx(result.bias + result.variance, rel=1e-9, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(2, 9), st.integers(1, 6)), elements=st.integers(0, 1)), st.data())
def test_two_class_zero_one_identity_holds_for_any_predictions(predictions, data):
    y = data.draw(arrays(np.int64, predictions.shape[1], elements=st.integers(0, 1)))
    result = _zero_one_decomposition(predictions, y)
    assert result.expected_loss == pytest.approx(result.bias + result.unbiased_variance - result.biased_variance)


def test_noise_and_bias_against_the_expected_label():
    X, y, expected = _sine(300, seed=2)
    result = bias_variance_decomposition(DecisionTreeRegressor(max_depth=4), X, y, loss="squared", n_rounds=30,
                                         test_size=0.5, y_expected=expected, random_state=0)
    test = result.test_index
    assert result.noise == pytest.approx(np.mean((expected[test] - y[test]) ** 2))
    assert result.noise == pytest.approx(0.09, rel=0.3)  # the noise variance 0.3² of the data
    assert result.bias == pytest.approx(np.mean((result.main_prediction - expected[test]) ** 2))
    # the identity holds in expectation: within the sampling error of the cross term
    assert result.expected_loss == pytest.approx(result.bias + result.variance + result.noise, rel=0.25)


def test_inputs_are_not_modified():
    X, y, _ = _sine(80)
    X_copy, y_copy = X.copy(), y.copy()
    tree = DecisionTreeRegressor(max_depth=2)
    params = clone(tree).get_params()
    bias_variance_decomposition(tree, X, y, loss="squared", n_rounds=3, random_state=0)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)
    assert tree.get_params() == params and not hasattr(tree, "tree_")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"loss": "hinge"}, "loss must be"),
    ({"n_rounds": 1}, "n_rounds must be an integer"),
    ({"n_rounds": 2.5}, "n_rounds must be an integer"),
    ({"loss": "0-1", "y_expected": np.zeros(80)}, "squared loss only"),
    ({"loss": "squared", "y_expected": np.zeros(30)}, "inconsistent numbers of samples"),
    ({"loss": "squared", "test_size": 1.5}, "test_size"),
])
def test_bad_parameters_are_named(kwargs, message):
    X, y, _ = _sine(80)
    with pytest.raises(ValueError, match=message):
        bias_variance_decomposition(DecisionTreeRegressor(), X, y, **kwargs)


def test_bad_data_is_named():
    X, y, _ = _sine(80)
    tree = DecisionTreeRegressor()
    bad = X.copy()
    bad[3, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        bias_variance_decomposition(tree, bad, y, loss="squared")
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        bias_variance_decomposition(tree, X, y[:40], loss="squared")
    with pytest.raises(ValueError, match="class labels in y; got a continuous target"):  # 0-1 loss on a real-valued target
        bias_variance_decomposition(DecisionTreeClassifier(), X, y)


def test_an_estimator_without_predict_is_named_before_any_work():
    from sklearn.preprocessing import StandardScaler

    X, y, _ = _sine(80)
    with pytest.raises(ValueError, match="bias_variance_decomposition needs an estimator with fit and predict; "
                                         "StandardScaler has no predict"):
        bias_variance_decomposition(StandardScaler(), X, y, loss="squared")
