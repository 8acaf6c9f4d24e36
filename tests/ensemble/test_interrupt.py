"""Ctrl-C during a long tree, forest or boosting fit reaches the caller promptly (issue 16).

Each model first fits small data (so no compilation is timed), then a fit that would run for
many seconds is interrupted 0.2 s in: KeyboardInterrupt must arrive within a few seconds,
never as a SystemError, and the estimator must be left unfitted.
"""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from lucidml.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
    RandomForestRegressor,
)
from lucidml.tree import DecisionTreeClassifier, DecisionTreeRegressor

from ..utils.test_interrupt import interrupt_during


def _data(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=n) > 1).astype(int)
    return X, y


CASES = [
    (lambda: DecisionTreeClassifier(random_state=0), 300_000),
    (lambda: DecisionTreeRegressor(max_leaf_nodes=200_000, random_state=0), 300_000),
    (lambda: RandomForestClassifier(2000, random_state=0), 20_000),
    (lambda: RandomForestRegressor(2000, n_jobs=2, random_state=0), 20_000),
    (lambda: BaggingClassifier(2000, random_state=0), 20_000),
    (lambda: AdaBoostClassifier(20_000, estimator=DecisionTreeClassifier(max_depth=3), random_state=0), 20_000),
    (lambda: GradientBoostingClassifier(n_estimators=20_000, random_state=0), 20_000),
]


@pytest.mark.parametrize("make, n", CASES, ids=[type(make()).__name__ + str(i) for i, (make, _) in enumerate(CASES)])
def test_ctrl_c_stops_a_long_fit(make, n):
    X, y = _data(n)
    small = make().set_params(**({"n_estimators": 2} if "n_estimators" in make().get_params() else {}))
    small.fit(*_data(500, seed=1))  # compile outside the timed part
    est = make()
    elapsed = interrupt_during(lambda: est.fit(X, y), after=0.2)
    assert elapsed < 4.0
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
