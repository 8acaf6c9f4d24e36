"""The per-call shortcuts: predict-time validation, BLAS thread limits, the shared thread pool."""

import os
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.validation import validate_data

from lucidml.linear import Ridge
from lucidml.utils._pool import thread_pool
from lucidml.utils.linalg import _controller, blas_threads
from lucidml.utils.validation import check_predict_data


@pytest.fixture(scope="module")
def ridge():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    return Ridge().fit(X, X @ [1.0, 2.0, 3.0])


def test_fast_path_returns_the_array_itself(ridge):
    X = np.random.default_rng(1).normal(size=(5, 3))
    assert check_predict_data(ridge, X) is X
    assert check_predict_data(ridge, X, order="C") is X


@pytest.mark.parametrize("bad, error", [
    (np.array([[1.0, np.nan, 2.0]]), "NaN"),
    (np.array([[1.0, np.inf, 2.0]]), "infinity"),
    (np.ones((2, 4)), "4 features"),
    (np.ones((0, 3)), "0 sample"),
])
def test_what_the_fast_path_lets_through_gets_scikit_learns_errors(ridge, bad, error):
    with pytest.raises(ValueError, match=error):
        check_predict_data(ridge, bad)
    with pytest.raises(ValueError, match=error):
        validate_data(ridge, bad, reset=False, dtype=np.float64)


def test_a_sum_that_overflows_still_passes_when_every_value_is_finite(ridge):
    X = np.full((4, 3), 1e308)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from the shortcut's sum
        np.testing.assert_array_equal(check_predict_data(ridge, X), X)


def test_other_inputs_are_converted_as_scikit_learn_does(ridge):
    rows = [[1, 2, 3], [4, 5, 6]]
    for given in (rows, np.array(rows, dtype=np.int64), np.asfortranarray(np.array(rows, dtype=np.float32))):
        out = check_predict_data(ridge, given, order="C")
        assert out.dtype == np.float64 and out.flags.c_contiguous
        np.testing.assert_array_equal(out, np.array(rows, dtype=np.float64))


def test_column_names_are_still_checked():
    frame = pd.DataFrame({"a": [0.0, 1.0, 2.0], "b": [1.0, 0.0, 2.0]})
    model = Ridge().fit(frame, [0.0, 1.0, 2.0])
    with pytest.warns(UserWarning, match="feature names"):
        check_predict_data(model, frame.to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_predict_data(model, frame)


def test_blas_threads_limits_and_restores():
    libraries = [lib for lib in _controller().lib_controllers if lib.user_api == "blas"]
    before = [lib.get_num_threads() for lib in libraries]
    with blas_threads(1):
        assert all(lib.get_num_threads() == 1 for lib in libraries)
    assert [lib.get_num_threads() for lib in libraries] == before
    with pytest.raises(RuntimeError), blas_threads(1):
        raise RuntimeError
    assert [lib.get_num_threads() for lib in libraries] == before


def test_blas_threads_none_changes_nothing_and_large_solves_run():
    """``blas_threads(None)`` (what Ridge and LDA ask for above SMALL_MATRIX features) used to
    compare a thread count with None and raise TypeError: both failed on 257 or more features."""
    from lucidml.discriminant import LinearDiscriminantAnalysis
    from lucidml.utils.linalg import SMALL_MATRIX

    libraries = [lib for lib in _controller().lib_controllers if lib.user_api == "blas"]
    before = [lib.get_num_threads() for lib in libraries]
    with blas_threads(None):
        assert [lib.get_num_threads() for lib in libraries] == before
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2 * SMALL_MATRIX, SMALL_MATRIX + 1))
    y = X[:, 0] + 0.1 * rng.normal(size=X.shape[0])
    assert Ridge(alpha=1.0).fit(X, y).score(X, y) > 0.9
    assert LinearDiscriminantAnalysis().fit(X, y > 0).score(X, y > 0) > 0.9


def test_the_pool_is_shared_and_bounded():
    pool = thread_pool(2)
    assert thread_pool(2) is pool
    assert pool._max_workers == 2
    assert thread_pool(3) is not pool


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_child_gets_its_own_pool():
    # The child has none of the parent's threads: a pool inherited from it would never run a task.
    parent_pool = thread_pool(2)
    assert list(parent_pool.map(abs, [-1, -2])) == [1, 2]
    pid = os.fork()
    if pid == 0:  # child: exit code 0 only if the pool works
        ok = False
        try:
            ok = thread_pool(2) is not parent_pool and list(thread_pool(2).map(abs, [-3])) == [3]
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_accepted_dtypes_and_missing_values(ridge):
    X32 = np.ones((2, 3), dtype=np.float32)
    assert check_predict_data(ridge, X32, dtype=[np.float64, np.float32]) is X32
    assert check_predict_data(ridge, X32).dtype == np.float64
    with_nan = np.array([[1.0, np.nan, 2.0]])
    assert check_predict_data(ridge, with_nan, allow_nan=True) is with_nan
    with pytest.raises(ValueError, match="infinity"):
        check_predict_data(ridge, np.array([[1.0, np.nan, np.inf]]), allow_nan=True)
