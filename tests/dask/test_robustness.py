"""Awkward dask inputs and a lost worker, for the estimators of the second part of issue 22.

Unknown chunk sizes, chunking along the columns, NaN values in a chunk and X/y chunks that do not
line up are checked for every estimator (the first part's are in test_estimators.py); a worker
process killed during a fit either leaves the fit to recover through Dask's recomputation of the
lost chunks, giving the in-memory model, or makes it fail with Dask's error — never a wrong model.
"""

import os
import signal
import threading
import time
import warnings

import dask.array as da
import numpy as np
import pytest
from distributed import Client, KilledWorker, LocalCluster
from sklearn.exceptions import ConvergenceWarning

import lucidml.dask as ld
from lucidml.mixture import GaussianMixture

SUPERVISED = {
    "SoftmaxRegression": lambda: ld.SoftmaxRegression(),
    "PoissonRegressor": lambda: ld.PoissonRegressor(),
}
UNSUPERVISED = {
    "GaussianMixture": lambda: ld.GaussianMixture(2, weights_init=[0.5, 0.5], means_init=[[0.0] * 4, [1.0] * 4],
                                                  precisions_init=np.tile(np.eye(4), (2, 1, 1))),
    "PCA": lambda: ld.PCA(2),
    "TruncatedSVD": lambda: ld.TruncatedSVD(2),
}


def _data(seed=0, n=600):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, rng.poisson(np.exp(0.5 * X[:, 0])).astype(int) % 3


def _fit(name, X, y):
    make = {**SUPERVISED, **UNSUPERVISED}[name]
    return make().fit(X, y) if name in SUPERVISED else make().fit(X)


def _fitted_values(model):
    return {k: v for k, v in vars(model.to_local()).items() if k.endswith("_") and isinstance(v, np.ndarray)
            and v.dtype.kind == "f"}


@pytest.mark.parametrize("name", [*SUPERVISED, *UNSUPERVISED])
def test_column_chunks_and_mismatched_y_chunks_change_nothing(client, name):
    X, y = _data()
    reference = _fitted_values(_fit(name, da.from_array(X, chunks=(150, -1)), da.from_array(y, chunks=150)))
    awkward = _fitted_values(_fit(name, da.from_array(X, chunks=(97, 3)), da.from_array(y, chunks=250)))
    assert reference.keys() == awkward.keys()
    for key, value in reference.items():
        np.testing.assert_allclose(awkward[key], value, rtol=1e-7, atol=1e-10, err_msg=key)


@pytest.mark.parametrize("name", [*SUPERVISED, *UNSUPERVISED])
def test_unknown_chunk_sizes_and_nan_values_raise_clear_errors(client, name):
    X, y = _data(seed=1)
    dX, dy = da.from_array(X, chunks=(150, -1)), da.from_array(y, chunks=150)
    filtered = dX[dX[:, 0] > -10]  # a boolean filter: every row kept, but the chunk sizes are NaN
    assert np.isnan(filtered.chunks[0][0])
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        _fit(name, filtered, dy)
    if name in SUPERVISED:
        with pytest.raises(ValueError, match="unknown chunk sizes"):
            _fit(name, dX, dy[dy >= 0])
        with pytest.raises(ValueError, match="different numbers of samples"):
            _fit(name, dX, dy[:-3])
    # compute_chunk_sizes(), as the message says, makes it work.
    _fit(name, filtered.compute_chunk_sizes(), dy)
    with_nan = X.copy()
    with_nan[400, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _fit(name, da.from_array(with_nan, chunks=(150, -1)), dy)


def _blobs(n=40_000, seed=0):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(m, 1.0, (n // 2, 4)) for m in (0.0, 3.0)])


def test_a_worker_killed_during_a_fit_gives_the_right_model_or_a_clear_error():
    """SIGKILL one of two worker processes in the middle of an EM fit: Dask recomputes its chunks
    elsewhere (the nanny restarts it), and the model is the in-memory one — or, if the tasks fail
    too often, the fit raises KilledWorker. Either way no wrong model comes back."""
    X = _blobs()
    params = {"n_components": 2, "weights_init": [0.5, 0.5], "means_init": [[0.5] * 4, [2.5] * 4],
              "precisions_init": np.tile(np.eye(4), (2, 1, 1)), "tol": 0.0, "max_iter": 60}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        expected = GaussianMixture(**params).fit(X)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        outcome = {}

        def fit():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    outcome["model"] = ld.GaussianMixture(**params).fit(da.from_array(X, chunks=(2500, -1)))
            except Exception as error:  # noqa: BLE001 - inspected below
                outcome["error"] = error

        thread = threading.Thread(target=fit)
        thread.start()
        time.sleep(2.0)
        assert thread.is_alive(), "the fit ended before the worker was killed: make it longer"
        victim = sorted(client.nthreads())[0]
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)  # the worker process, started by this test's cluster
        thread.join(timeout=240)
        assert not thread.is_alive()
    if "error" in outcome:
        assert isinstance(outcome["error"], KilledWorker), repr(outcome["error"])
        return
    fitted = outcome["model"]
    assert fitted.n_iter_ == expected.n_iter_ == 60
    np.testing.assert_allclose(fitted.means_, expected.means_, rtol=1e-8)
    np.testing.assert_allclose(fitted.covariances_, expected.covariances_, rtol=1e-8)
    np.testing.assert_allclose(fitted.lower_bounds_, expected.lower_bounds_, rtol=1e-10)
