"""Ctrl-C during a long fit of the iterative estimators reaches the caller promptly (issue 20).

As for the trees (tests/ensemble/test_interrupt.py): a small fit first (nothing compiled is
timed), then a fit that would run for many seconds is interrupted 0.3 s in; KeyboardInterrupt
must arrive within a few seconds, never as a SystemError, and the estimator must be unfitted.
"""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from lucidml.cluster import KMeans
from lucidml.mixture import GaussianMixture
from lucidml.neural import MLPClassifier
from lucidml.svm import SVC

from .test_interrupt import interrupt_during


def _data(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(size=n) > 0).astype(int)
    return X, y


CASES = {
    "SVC": (lambda: SVC(C=100.0, tol=1e-12, max_iter=-1), 30_000),
    "KMeans": (lambda: KMeans(200, n_init=50, max_iter=1000, tol=0.0, random_state=0), 100_000),
    "GaussianMixture": (lambda: GaussianMixture(30, n_init=20, max_iter=1000, tol=0.0, random_state=0), 100_000),
    "MLPClassifier": (lambda: MLPClassifier((256, 256), max_iter=1000, tol=0.0, n_iter_no_change=10_000,
                                            random_state=0), 50_000),
}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # the 5-iteration warm-up fit
@pytest.mark.parametrize("name", sorted(CASES))
def test_ctrl_c_stops_a_long_fit(name):
    make, n = CASES[name]
    X, y = _data(n)
    small_X, small_y = _data(300, seed=1)
    small = make()
    if hasattr(small, "n_clusters"):
        small.set_params(n_clusters=3, n_init=1)
    if hasattr(small, "n_components"):
        small.set_params(n_components=2, n_init=1)
    small.set_params(max_iter=5).fit(small_X, small_y)  # compile outside the timed part
    est = make()
    elapsed = interrupt_during(lambda: est.fit(X, y), after=0.3)
    assert elapsed < 3.0
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
