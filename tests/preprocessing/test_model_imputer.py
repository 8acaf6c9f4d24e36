"""ModelImputer: exact recovery of a linear column, agreement with IterativeImputer, pipelines, NaN, no mutation."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning
from sklearn.experimental import enable_iterative_imputer  # noqa: F401  (makes IterativeImputer importable)
from sklearn.impute import IterativeImputer
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from lucidml.linear import LinearRegression, Ridge
from lucidml.preprocessing import ModelImputer
from lucidml.utils import InvalidParameterError


def _with_holes(X, fraction, seed, columns=None):
    """A copy of X with a random ``fraction`` of the entries of ``columns`` (default all) set to NaN."""
    rng = np.random.default_rng(seed)
    holed = X.astype(float).copy()
    columns = range(X.shape[1]) if columns is None else columns
    for j in columns:
        holed[rng.random(len(X)) < fraction, j] = np.nan
    return holed


def test_a_linearly_dependent_column_is_recovered_exactly():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X = np.c_[X, 2.0 * X[:, 0] - 3.0 * X[:, 1] + 0.5 * X[:, 2] + 7.0]
    holed = _with_holes(X, 0.3, 1, columns=[3])
    imputed = ModelImputer().fit_transform(holed)
    np.testing.assert_allclose(imputed, X, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(imputed[~np.isnan(holed)], X[~np.isnan(holed)])  # observed entries untouched


@pytest.mark.parametrize("initial_strategy", ["mean", "median"])
def test_agrees_with_iterative_imputer_running_the_same_rounds(initial_strategy):
    X = load_diabetes().data[:, :6]
    holed = _with_holes(X, 0.15, 2)
    ours = ModelImputer(SkLinearRegression(), max_iter=4, tol=0, initial_strategy=initial_strategy)
    theirs = IterativeImputer(SkLinearRegression(), max_iter=4, tol=0, initial_strategy=initial_strategy,
                              imputation_order="ascending", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # tol=0: both run every round and IterativeImputer warns
        np.testing.assert_allclose(ours.fit_transform(holed), theirs.fit_transform(holed), rtol=1e-10, atol=1e-12)
    assert ours.n_iter_ == theirs.n_iter_ == 4
    new = _with_holes(load_diabetes().data[300:, :6], 0.2, 3)
    np.testing.assert_allclose(ours.transform(new), theirs.transform(new), rtol=1e-10, atol=1e-12)


def test_lucidml_regressors_as_the_column_model_and_convergence_history():
    X = load_diabetes().data
    holed = _with_holes(X, 0.1, 4)
    # Round-robin regressions converge linearly on this near-collinear table (measured: 79 rounds).
    imputer = ModelImputer(Ridge(alpha=1e-3), max_iter=200, tol=1e-4).fit(holed)
    assert 1 <= imputer.n_iter_ < 200 and imputer.changes_[-1] <= 1e-4 * np.nanmax(np.abs(holed))
    assert imputer.changes_[-1] < imputer.changes_[0]
    # replaying the fitted models on the training data gives what fit_transform gave
    np.testing.assert_allclose(imputer.transform(holed), ModelImputer(Ridge(alpha=1e-3), max_iter=200, tol=1e-4)
                               .fit_transform(holed))
    # the imputations beat the column means on this correlated table
    missing = np.isnan(holed)
    model_error = np.abs(imputer.transform(holed) - X)[missing].mean()
    mean_error = np.abs(np.take(np.nanmean(holed, axis=0), np.nonzero(missing)[1]) - X[missing]).mean()
    assert model_error < mean_error


def test_in_a_pipeline_before_a_regressor():
    data = load_diabetes()
    holed = _with_holes(data.data, 0.1, 5)
    scores = cross_val_score(make_pipeline(ModelImputer(max_iter=100), LinearRegression()), holed, data.target, cv=3)
    assert np.all(np.isfinite(scores)) and scores.mean() > 0.4


def test_input_is_never_mutated_and_output_is_a_new_array():
    holed = _with_holes(load_diabetes().data[:100, :4], 0.2, 6)
    before = holed.copy()
    imputer = ModelImputer()
    out = imputer.fit_transform(holed)
    out2 = imputer.transform(holed)
    np.testing.assert_array_equal(holed, before)
    assert not np.shares_memory(out, holed) and not np.shares_memory(out2, holed)
    assert not np.isnan(out).any() and not np.isnan(out2).any()


def test_columns_complete_at_fit_but_missing_later_get_the_initial_value():
    X = np.random.default_rng(7).normal(size=(50, 3))
    imputer = ModelImputer().fit(X)  # nothing missing: no models, no rounds
    assert imputer.n_iter_ == 0 and imputer.imputation_sequence_ == []
    new = X[:2].copy()
    new[0, 1] = np.nan
    assert imputer.transform(new)[0, 1] == pytest.approx(X[:, 1].mean())


def test_convergence_warning_at_max_iter():
    holed = _with_holes(load_diabetes().data, 0.3, 8)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        ModelImputer(max_iter=1, tol=1e-12).fit(holed)


@pytest.mark.parametrize(("params", "match"), [
    ({"max_iter": 0}, "'max_iter' parameter"),
    ({"tol": -1.0}, "'tol' parameter"),
    ({"initial_strategy": "mode"}, "'initial_strategy' parameter"),
    ({"estimator": "ridge"}, "'estimator' parameter"),
])
def test_bad_parameters_are_named(params, match):
    with pytest.raises(InvalidParameterError, match=match):
        ModelImputer(**params).fit(np.ones((5, 2)))


def test_bad_data_is_a_clear_error():
    X = np.random.default_rng(9).normal(size=(10, 3))
    empty = X.copy()
    empty[:, 1] = np.nan
    with pytest.raises(ValueError, match=r"column\(s\) \[1\] have no observed value"):
        ModelImputer().fit(empty)
    infinite = X.copy()
    infinite[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ModelImputer().fit(infinite)
    with pytest.raises(ValueError, match="only one column"):
        ModelImputer().fit(np.array([[1.0], [np.nan], [3.0]]))
    with pytest.raises(ValueError, match="features"):
        ModelImputer().fit(X).transform(X[:, :2])


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), fraction=st.floats(0.05, 0.4))
def test_observed_entries_are_kept_and_rows_permute(seed, fraction):
    """Properties: observed values pass through unchanged, nothing is left missing, and permuting the rows
    permutes the imputations (the procedure does not depend on row order)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3)) @ rng.normal(size=(3, 4))
    holed = _with_holes(X, fraction, seed)
    holed[0] = X[0]  # every column keeps an observed value
    out = ModelImputer(max_iter=3, tol=0).fit_transform(holed)
    observed = ~np.isnan(holed)
    np.testing.assert_array_equal(out[observed], holed[observed])
    assert np.isfinite(out).all()
    order = rng.permutation(len(X))
    permuted = ModelImputer(max_iter=3, tol=0).fit_transform(holed[order])
    np.testing.assert_allclose(permuted, out[order], rtol=1e-8, atol=1e-8)
