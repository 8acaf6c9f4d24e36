"""Every fitted estimator answers the same from 8 threads at once as from one (issue 20).

Each thread asks about its own slice of the rows (different sizes, so scratch space kept on the
estimator, or a graph set on a shared layer, would show up as a wrong shape or a wrong answer),
several times over, while the others do the same.
"""

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from lucidml.datasets import load
from lucidml.registry import REGISTRY

METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "transform", "score_samples")
THREADS = 8


def _fitted(entry):
    X, y = load("diabetes" if entry.kind == "regressor" else "wine")
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return X, y, entry.make().fit(X, y)


def _answers(model, X, y):
    out = {m: getattr(model, m)(X) for m in METHODS if hasattr(model, m)}
    if hasattr(model, "score"):
        try:
            out["score"] = np.asarray(model.score(X, y))
        except TypeError:  # a clusterer's score(X)
            out["score"] = np.asarray(model.score(X))
    return out


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_predictions_from_many_threads_equal_the_serial_ones(entry):
    X, y, model = _fitted(entry)
    # Copies: a product with the training array itself may take BLAS's symmetric route.
    slices = [(X[i : i + 40 + 7 * i].copy(), y[i : i + 40 + 7 * i]) for i in range(THREADS)]
    serial = [_answers(model, Xs, ys) for Xs, ys in slices]

    def work(i):
        return [_answers(model, *slices[i]) for _ in range(3)]

    with ThreadPoolExecutor(THREADS) as pool:
        concurrent = list(pool.map(work, range(THREADS)))
    for expected, repeats in zip(serial, concurrent, strict=True):
        for got in repeats:
            assert got.keys() == expected.keys()
            for method in expected:
                np.testing.assert_array_equal(got[method], expected[method], err_msg=f"{entry.name}.{method}")
