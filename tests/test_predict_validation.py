"""Prediction-time input checks match scikit-learn's: what the counterpart's ``predict`` (or
``transform``, ``predict_proba``, …) accepts after a fit on valid data, lucidml's accepts too.

Each estimator of the registry with a scikit-learn counterpart is fitted, beside it, on the same
valid training data (features scaled to [0, 1], as a ``MinMaxScaler`` fitted on a training
fold leaves them); then both are asked to predict on test data as users bring it: values a
little outside the training range (slightly negative after such a scaler), a single row,
float32, integers, a list of lists, Fortran order, a strided view, a DataFrame, a missing
value, a sparse matrix. Where scikit-learn's counterpart answers, lucidml must answer too, with
an output of the same shape; a deliberate difference is listed, with its reason, in the
registry entry's ``input_differences``. (An estimator whose tags say it takes only dense data
refuses a sparse matrix with a TypeError that says so, at fit as at predict.)
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from sklearn.datasets import make_classification

from lucidml.registry import entries

METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "transform", "score_samples")
FAST = {"n_estimators": 10, "max_iter": 300}  # (where the estimator has them) a quicker fit, same checks


def _data():
    X, y = make_classification(300, 12, n_informative=6, n_classes=3, random_state=0)
    train, test = X[:240], X[240:]
    low, high = train.min(axis=0), train.max(axis=0)
    scale = lambda A: (A - low) / (high - low)  # noqa: E731  (MinMaxScaler fitted on the training rows)
    target = {"classifier": y[:240], "regressor": np.abs(X[:240, :3].sum(axis=1)) + 0.5}
    return scale(train), scale(test), target


def _probes(test):
    negative = test.copy()
    negative[0, 0] = -0.01
    with_nan = test.copy()
    with_nan[1, 2] = np.nan
    wide = np.hstack([test, test])
    return {
        "slightly negative": negative,
        "out of the training range": test * 3.0 - 1.0,
        "one row": test[:1],
        "float32": test.astype(np.float32),
        "integers": np.round(test * 3).astype(np.int64),
        "list of lists": test.tolist(),
        "Fortran order": np.asfortranarray(test),
        "strided view": wide[:, ::2],
        "DataFrame": pd.DataFrame(test),
        "missing value": with_nan,
        "zero row": np.zeros((1, test.shape[1])),
        "sparse CSR": scipy.sparse.csr_matrix(test),
    }


# The training data has rank 10 (two of its 12 features are redundant): QDA's class covariances
# are singular without a ridge (scikit-learn's refuses to fit), and a PCA keeping 10 components
# has no noise variance left, where scikit-learn's score_samples answers −inf and lucidml's
# refuses (never an infinity without an error). Both sides get the same parameters.
BOTH_SIDES = {"QuadraticDiscriminantAnalysis": {"reg_param": 0.01}, "PCA": {"n_components": 5}}


def _fast(entry, make):
    params = make().get_params()
    return make(**{k: v for k, v in FAST.items() if k in params}, **BOTH_SIDES.get(entry.name, {}))


CASES = [e for e in entries() if e.sklearn is not None and any(hasattr(e.load(), m) for m in METHODS)]


@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_what_scikit_learn_predicts_on_lucidml_predicts_on(entry):
    train, test, targets = _data()
    y = targets.get(entry.kind)
    ours, theirs = _fast(entry, entry.make), _fast(entry, entry.make_sklearn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.fit(train, y)
        ours.fit(train, y)
    allowed = getattr(entry, "input_differences", {})
    failures = []
    for method in METHODS:
        if not (hasattr(ours, method) and hasattr(theirs, method)):
            continue
        for probe, X in _probes(test).items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = np.asarray(getattr(theirs, method)(X))
            except Exception:  # noqa: BLE001 (scikit-learn refuses it: lucidml may too)
                continue
            if probe in allowed:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = getattr(ours, method)(X)
            except Exception as error:  # noqa: BLE001
                dense_only = probe == "sparse CSR" and not entry.accepts_sparse
                if not (dense_only and isinstance(error, TypeError) and "parse" in str(error)):
                    failures.append(f"{method} on {probe}: {type(error).__name__}: {error}")
                continue
            got = got.toarray() if scipy.sparse.issparse(got) else np.asarray(got)
            if got.shape != expected.shape:
                failures.append(f"{method} on {probe}: shape {got.shape}, scikit-learn's {expected.shape}")
    assert not failures, "\n".join(failures)


def test_every_listed_difference_has_a_reason_and_names_a_probe():
    probes = set(_probes(_data()[1]))
    for entry in entries():
        for probe, reason in getattr(entry, "input_differences", {}).items():
            assert probe in probes, f"{entry.name}: unknown probe {probe!r}"
            assert len(reason) > 20, f"{entry.name}: say why {probe!r} differs"
