"""Tables as users bring them: each case gives a result or a clear error, never a crash or a hang.

More columns than rows; a column constant in one cross-validation fold; a category seen only
in the test fold; a text column with empty strings. Every classifier and regressor of the
registry goes through the same scikit-learn pipelines and splits a user would write.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from lucidml.registry import entries

FAST = {"n_estimators": 10, "max_iter": 200}
SUPERVISED = entries(("classifier", "regressor"))


def _make(entry):
    params = entry.make_for_checks().get_params()
    return entry.make_for_checks().set_params(**{k: v for k, v in FAST.items() if k in params})


def _target(entry, y):
    return y if entry.kind == "classifier" else y + 1.0  # (positive: Poisson regression)


def _answers_or_refuses_clearly(fit_and_predict):
    """Run it: a result, or a ValueError/TypeError whose message says something."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fit_and_predict()
        except (ValueError, TypeError) as error:
            assert len(str(error)) > 10, f"an error without a message: {error!r}"
            return None


@pytest.mark.parametrize("entry", SUPERVISED, ids=lambda e: e.name)
def test_more_columns_than_rows(entry):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 200))
    y = (X[:, 0] > 0).astype(int)
    result = _answers_or_refuses_clearly(lambda: _make(entry).fit(X, _target(entry, y)).predict(X))
    if result is not None:
        assert result.shape == (30,)
        assert entry.kind != "regressor" or np.isfinite(result).all()


@pytest.mark.parametrize("entry", SUPERVISED, ids=lambda e: e.name)
def test_a_column_constant_in_one_fold_and_a_category_seen_only_in_the_test_fold(entry):
    rng = np.random.default_rng(0)
    n = 60
    table = pd.DataFrame({
        "x": rng.normal(size=n),
        "sometimes_constant": np.r_[np.zeros(n // 2), rng.normal(size=n - n // 2)],  # constant in the first half
        "colour": rng.choice(["red", "green", "blue"], size=n),
    })
    table.loc[n - 3:, "colour"] = "violet"  # only in the last fold
    y = (table["x"] + rng.normal(scale=0.5, size=n) > 0).astype(int).to_numpy()
    prepare = make_column_transformer((StandardScaler(), ["x", "sometimes_constant"]),
                                      (OneHotEncoder(handle_unknown="ignore"), ["colour"]), sparse_threshold=0)
    model = make_pipeline(prepare, _make(entry))
    scores = _answers_or_refuses_clearly(
        lambda: cross_validate(model, table, _target(entry, y), cv=KFold(2), error_score="raise")["test_score"])
    if scores is not None:
        assert np.isfinite(scores).all()


@pytest.mark.parametrize("entry", SUPERVISED, ids=lambda e: e.name)
def test_a_text_column_with_empty_strings(entry):
    texts = ["red apple", "", "green apple pie", "", "blue sky", "red sky at night", "", "apple"] * 5
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0] * 5)
    model = make_pipeline(CountVectorizer(), _make(entry))
    result = _answers_or_refuses_clearly(lambda: model.fit(texts, _target(entry, y)).predict(texts))
    if result is not None:
        assert result.shape == (len(texts),)


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e.name)
def test_a_100000_column_dense_table_gives_a_result_or_a_clear_error_before_memory_runs_out(entry):
    """20 rows of 100,000 columns (16 MB): a model that would need dense 100,000 × 100,000 matrices
    (75 GiB each) says so before allocating them."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 100_000))
    y = np.r_[np.zeros(10), np.ones(10)].astype(int)
    model = _make(entry)
    if "max_iter" in model.get_params():  # (what is tested is memory and the errors, not convergence)
        model.set_params(max_iter=2)

    def fit_and_use():
        if entry.kind in ("classifier", "regressor"):
            return model.fit(X, _target(entry, y)).predict(X[:3])
        return model.fit_transform(X) if hasattr(model, "fit_transform") else model.fit(X)

    _answers_or_refuses_clearly(fit_and_use)
