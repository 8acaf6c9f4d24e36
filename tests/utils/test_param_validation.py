"""The shared parameter validator, and every registered estimator's use of it."""

from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.base import clone

from lucidml.datasets import load
from lucidml.registry import REGISTRY
from lucidml.utils import Interval, InvalidParameterError, Options
from lucidml.utils._param_validation import _satisfies


class _Unexpected:
    """A value no constraint admits."""

    def __repr__(self):
        return "<unexpected>"


def _invalid_values(constraints):
    """Values that satisfy none of ``constraints``: a foreign object, and out-of-range numbers."""
    candidates = [_Unexpected(), "__not_an_option__"]
    for c in constraints:
        if isinstance(c, Interval):
            if c.left is not None:
                candidates.append(c.left - 1)
            if c.right is not None:
                candidates.append(c.right + 1)
            if c.type is Integral:
                candidates.append(1.5)
    return [v for v in candidates if not any(_satisfies(v, c) for c in constraints)]


def _fit_data(kind):
    X, y = load("iris" if kind == "classifier" else "diabetes")
    return (X[::5], y[::5]) if kind in ("classifier", "regressor") else (X[::5], None)


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_every_parameter_is_constrained(entry):
    estimator = entry.make_for_checks()
    assert set(type(estimator)._parameter_constraints) == set(estimator.get_params(deep=False))


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_every_constrained_parameter_rejects_bad_values_by_name(entry):
    estimator = entry.make_for_checks()
    X, y = _fit_data(entry.kind)
    for name, constraints in type(estimator)._parameter_constraints.items():
        bad_values = _invalid_values(constraints)
        assert bad_values, f"no invalid value found for {name}"
        for value in bad_values:
            bad = clone(estimator).set_params(**{name: value})  # __init__ / set_params never validate
            with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {entry.name}"):
                bad.fit(X, y)


def test_interval_bounds_and_types():
    positive = Interval(Real, 0, None, closed="neither")
    assert positive.is_satisfied_by(0.5) and positive.is_satisfied_by(3)
    assert not positive.is_satisfied_by(0) and not positive.is_satisfied_by(-1.0)
    assert not positive.is_satisfied_by(True), "bools are not numbers here"
    assert not positive.is_satisfied_by(float("nan"))
    unit = Interval(Integral, 1, 10, closed="both")
    assert unit.is_satisfied_by(1) and unit.is_satisfied_by(np.int64(10))
    assert not unit.is_satisfied_by(2.0) and not unit.is_satisfied_by(11)
    assert str(positive) == "a float in the range (0, inf)"
    assert str(unit) == "an int in the range [1, 10]"
    assert str(Interval(Real, None, 1, closed="left")) == "a float in the range (-inf, 1)"
    with pytest.raises(ValueError):
        Interval(int, 0, 1)


def test_other_constraint_kinds():
    solver = Options({"lstsq", "normal"})
    assert solver.is_satisfied_by("lstsq") and not solver.is_satisfied_by("qr")
    assert not solver.is_satisfied_by([1])  # unhashable: just not an option
    assert _satisfies(None, None) and not _satisfies(0, None)
    assert _satisfies(np.bool_(True), "boolean") and not _satisfies(1, "boolean")
    assert _satisfies([1, 2], "array-like") and _satisfies(np.ones(2), "array-like")
    assert _satisfies(np.random.default_rng(0), "random_state") and _satisfies(7, "random_state")
    assert not _satisfies(-1, "random_state")
    assert _satisfies(len, "callable") and not _satisfies(3, "callable")
    assert _satisfies(3.0, float) and not _satisfies("3", float)


def test_message_names_parameter_estimator_allowed_values_and_value():
    from lucidml.naive_bayes import GaussianNB

    with pytest.raises(InvalidParameterError) as info:
        GaussianNB(var_smoothing=-1.0).fit([[0.0], [1.0]], [0, 1])
    assert str(info.value) == (
        "The 'var_smoothing' parameter of GaussianNB must be a float in the range [0, inf); got -1.0."
    )
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
