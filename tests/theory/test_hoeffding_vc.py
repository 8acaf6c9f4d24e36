"""Hoeffding and VC bounds: the notes' formulas, their corrected example, and the consistency of the inverses."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lucidml.theory import (
    hoeffding_confidence,
    hoeffding_gap,
    hoeffding_sample_size,
    margin_vc_dimension,
    vc_bound,
)


def test_notes_example_with_the_stated_bound():
    # 000 §8.4: k = 100, γ = 0.1, δ = 0.8. The stated bound ln(2k/δ)/(2γ²) = 50 ln 250 ≈ 276.1;
    # the notes' "≈ 483" is 100 ln 125, the bound without its two factors of 2.
    assert hoeffding_sample_size(0.1, 0.8, 100) == 277
    assert 100 * math.log(100 / 0.8) == pytest.approx(482.8, abs=0.05)
    assert hoeffding_sample_size(0.1, 0.8, 100) != 483


def test_gap_formula():
    assert hoeffding_gap(1000, 0.05, 100) == pytest.approx(math.sqrt(math.log(2 * 100 / 0.05) / 2000))
    # one hypothesis: plain two-sided Hoeffding
    assert hoeffding_gap(50, 0.1, 1) == pytest.approx(math.sqrt(math.log(20) / 100))


@settings(max_examples=300, deadline=None)
@given(
    k=st.integers(1, 10**30),
    epsilon=st.floats(1e-3, 2.0),
    delta=st.floats(1e-12, 0.999),
)
def test_sample_size_is_the_smallest_m_with_gap_at_most_epsilon(k, epsilon, delta):
    m = hoeffding_sample_size(epsilon, delta, k)
    assert hoeffding_gap(m, delta, k) <= epsilon
    if m > 1:
        assert hoeffding_gap(m - 1, delta, k) > epsilon


@settings(max_examples=200, deadline=None)
@given(k=st.integers(1, 10**6), m=st.integers(1, 10**6), delta=st.floats(1e-9, 0.999))
def test_confidence_inverts_the_gap(k, m, delta):
    gap = hoeffding_gap(m, delta, k)
    assert hoeffding_confidence(m, gap, k) == pytest.approx(min(1.0, delta), rel=1e-9)


def test_monotonicity():
    assert hoeffding_gap(100, 0.05, 10) > hoeffding_gap(200, 0.05, 10)  # more data, tighter
    assert hoeffding_gap(100, 0.05, 1000) > hoeffding_gap(100, 0.05, 10)  # bigger class, looser
    assert hoeffding_sample_size(0.05, 0.05, 10**6) < 2 * hoeffding_sample_size(0.05, 0.05, 10**3)  # grows as ln k


def test_huge_class_does_not_overflow():
    assert math.isfinite(hoeffding_gap(10**6, 0.01, 2**2000))
    assert hoeffding_confidence(10, 0.01, 2**2000) == 1.0


@pytest.mark.parametrize("call, message", [
    (lambda: hoeffding_gap(10, 0.1, 0), "n_hypotheses"),
    (lambda: hoeffding_gap(0, 0.1, 10), "m"),
    (lambda: hoeffding_gap(10, 1.0, 10), "delta"),
    (lambda: hoeffding_gap(10, float("nan"), 10), "delta"),
    (lambda: hoeffding_sample_size(0.0, 0.1, 10), "gamma"),
    (lambda: hoeffding_sample_size(float("inf"), 0.1, 10), "gamma"),
    (lambda: hoeffding_confidence(10, -1.0, 10), "gamma"),
    (lambda: vc_bound(3, 5, 0.1), "m >= vc_dim"),
    (lambda: vc_bound(3, 0, 0.1), "vc_dim"),
    (lambda: vc_bound(30, 2, 0.1, constant=0.0), "constant"),
    (lambda: margin_vc_dimension(1.0, 0.0), "margin"),
])
def test_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_wrong_types():
    with pytest.raises(TypeError):
        hoeffding_gap(10, 0.1, 10.5)


def test_vc_bound_formula_and_constant():
    d, m, delta = 3, 1000, 0.05
    expected = math.sqrt(d / m * math.log(m / d) + math.log(1 / delta) / m)
    assert vc_bound(m, d, delta) == pytest.approx(expected)
    assert vc_bound(m, d, delta, 3.5) == pytest.approx(3.5 * expected)
    assert vc_bound(m, d, delta, constant=3.5) == pytest.approx(3.5 * expected)
    assert vc_bound(d, d, 0.5) == pytest.approx(math.sqrt(math.log(2) / d))
    # shrinks with m, grows with d
    assert vc_bound(10_000, 3, 0.05) < vc_bound(1000, 3, 0.05) < vc_bound(1000, 30, 0.05)


def test_margin_vc_dimension():
    assert margin_vc_dimension(2.0, 1.0) == 2  # ⌈4/4⌉ + 1
    assert margin_vc_dimension(2.0, 0.5) == 5  # ⌈16/4⌉ + 1
    assert margin_vc_dimension(1.0, 1.0) == 2  # ⌈0.25⌉ + 1


def test_extreme_arguments_give_a_value_or_a_clear_error():
    """γ near 1e-170 squared to 0 (ZeroDivisionError), and m = 10⁴⁰⁰ overflowed m / d as a float."""
    with pytest.raises(ValueError, match="beyond any float"):
        margin_vc_dimension(1.0, 1e-170)
    with pytest.raises(ValueError, match="beyond any float"):
        hoeffding_sample_size(1e-200, 0.05, 10)
    assert vc_bound(10**400, 3, 0.05) == 0.0
    assert vc_bound(1000, 3, 0.05) == pytest.approx(math.sqrt(3 / 1000 * math.log(1000 / 3) + math.log(20) / 1000))
