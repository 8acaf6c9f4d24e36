"""Property-based companion of ``test_adversarial``: tables whose columns live at unrelated scales.

The hand-made cases there change a whole table one way (everything near 1e300, or subnormal). Real
tables mix units: one column in metres, another in nanoseconds, a third in currency. Here
Hypothesis draws small tables whose every column has its own power of ten between 1e-310
(subnormal) and 1e300, some columns constant or zero, and asks of a model from each family the
same contract: a finite, sensible answer or a clear ``ValueError``/``TypeError``.

Seeded (``derandomize``), so every run tries the same tables.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lucidml.registry import get_entry

from .test_adversarial import _run

# One cheap model per family whose arithmetic depends on the features' scale.
MODELS = ["LinearRegression", "Ridge", "LogisticRegression", "GaussianNB", "KNeighborsClassifier", "LinearSVC",
          "GAMClassifier", "DecisionTreeRegressor", "KMeans", "PCA", "GaussianMixture"]
EXPONENTS = [-310, -300, -150, -20, 0, 20, 150, 300]


@st.composite
def mixed_scale_tables(draw):
    """(X, y_class, y_value): 12–30 rows, 1–4 columns, each column at its own scale."""
    n = draw(st.integers(12, 30))
    d = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    columns = []
    for _ in range(d):
        exponent = draw(st.sampled_from(EXPONENTS))
        shape = draw(st.sampled_from(["spread", "constant", "zero", "two_values"]))
        if shape == "spread":
            column = rng.normal(size=n)
        elif shape == "constant":
            column = np.full(n, rng.normal())
        elif shape == "zero":
            column = np.zeros(n)
        else:
            column = rng.integers(0, 2, size=n).astype(float)
        columns.append(column * 10.0**exponent)
    X = np.column_stack(columns)
    y_class = np.arange(n) % 2
    y_value = rng.normal(size=n)
    return X, y_class, y_value


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(table=mixed_scale_tables())
def test_columns_at_unrelated_scales_give_a_finite_answer_or_a_clear_error(name, table):
    X, y_class, y_value = table
    entry = get_entry(name)
    y = y_value if entry.kind == "regressor" else y_class
    _run(entry, X, y, f"columns at scales {np.abs(X).max(axis=0)}")
