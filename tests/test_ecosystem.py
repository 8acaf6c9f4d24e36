"""lucidml estimators inside scikit-learn's tools and under joblib's parallel back ends."""

import pickle

import joblib
import numpy as np
import pytest
from dask import distributed
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from lucidml.datasets import load
from lucidml.linear import LinearRegression
from lucidml.naive_bayes import GaussianNB


def test_pipeline_and_grid_search():
    X, y = load("wine")
    search = GridSearchCV(
        make_pipeline(StandardScaler(), GaussianNB()),
        {"gaussiannb__var_smoothing": [1e-9, 1e-3, 1e-1]},
        cv=3,
        n_jobs=2,
    ).fit(X, y)
    assert search.best_score_ > 0.9
    assert search.predict(X).shape == y.shape


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_joblib_backends_give_the_same_scores(backend):
    X, y = load("diabetes")
    serial = cross_val_score(LinearRegression(), X, y, cv=5)
    with joblib.parallel_config(backend=backend, n_jobs=2):
        parallel = cross_val_score(LinearRegression(), X, y, cv=5)
    np.testing.assert_allclose(parallel, serial)


def test_dask_backend_runs_compiled_kernels():
    X, y = load("digits")
    serial = cross_val_score(GaussianNB(), X, y, cv=3)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None):
        with joblib.parallel_config(backend="dask"):
            on_dask = cross_val_score(GaussianNB(), X, y, cv=3, n_jobs=2)
    np.testing.assert_allclose(on_dask, serial)


def test_fitted_estimators_pickle():
    X, y = load("iris")
    clf = GaussianNB().fit(X, y)
    restored = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(restored.predict_proba(X), clf.predict_proba(X))
