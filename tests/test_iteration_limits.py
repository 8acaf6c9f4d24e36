"""Every iterative estimator warns with ConvergenceWarning at its iteration limit and records its history.

For each registered estimator with an iteration limit (``max_iter``, or ``n_iter`` where it is a limit),
fit on a small standard table with the limit at 1 and a tolerance that cannot be met, and assert that a
``ConvergenceWarning`` is raised, that a per-iteration history (DESIGN.md: ``loss_curve_``, or
``lower_bounds_`` for EM, ...) exists, and that its length is ``n_iter_``.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_digits, load_iris, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from lucidml.registry import REGISTRY, get_entry

HISTORIES = ("loss_curve_", "lower_bounds_", "loglike_", "train_score_", "history_", "changes_")
LIMITS = ("max_iter", "n_iter", "max_epochs")

# Arguments that make the limit count: an iterative solver where the default is direct, and a tiny positive
# tol where tol must be > 0 or where tol=0 is documented as "run exactly max_iter iterations, no stopping rule".
SETTINGS = {
    "LinearRegression": {"solver": "gd"},
    "Ridge": {"solver": "lsqr", "tol": 1e-12},
    "SVC": {"tol": 1e-12},
    "SVR": {"tol": 1e-12},
    "LinearSVC": {"tol": 1e-12},
    "ICA": {"tol": 1e-12},
    "ModelImputer": {"tol": 1e-12},
    "PCA": {"svd_solver": "deflation", "n_components": 2, "tol": 1e-12},
    # Fixed draws: for about 2% of them the kept sample's PAM converges within one swap, and no warning is due.
    "CLARA": {"random_state": 0},
}

# Estimators whose limit parameter is not a stopping limit, or whose iterations are not lucidml's to report.
EXEMPT = {
    # n_iter is the length of the training schedule (learning rate and radius shrink to their final values
    # at step n_iter), not a cap on a convergence test: stopping there is the algorithm, not a failure.
    "SelfOrganizingMap": "n_iter is the schedule length, not a limit",
    # n_iter is the fixed number of power iterations of the randomized SVD (as scikit-learn's), with no test.
    "TruncatedSVD": "n_iter is a fixed count of power iterations",
    "LatentSemanticIndexing": "n_iter is a fixed count of power iterations",
    # max_iter is passed to SciPy's ARPACK (eigen_solver='arpack'), which owns its iterations and raises its own
    # ArpackNoConvergence; scikit-learn's KernelPCA has neither n_iter_ nor a history either.
    "KernelPCA": "max_iter is ARPACK's, inside SciPy",
    # A lazy learner: fit stores the data; the capped iterations (solver='gd') run per query in predict, where
    # the warning is tested in tests/linear.
    "LocallyWeightedRegression": "iterations run per query in predict, not in fit",
}

# Histories that record the value at the start as well as after each iteration (documented shape n_iter_ + 1).
WITH_INITIAL_VALUE = {"CLARA", "KMedoids", "LADRegression"}

# Estimators with a limit but no single per-iteration history, with the reason.
NO_HISTORY = {
    # LSQR's iterations run inside SciPy, which returns only the final residual (scikit-learn's Ridge: none).
    "Ridge": "LSQR runs in SciPy and reports no per-iteration values",
    # One power iteration per component, each with its own count; n_iter_ is the largest of them.
    "PCA": "one power iteration per component",
}


def _data(entry):
    if entry.name == "CNNClassifier":
        X, y = load_digits(return_X_y=True)
        return X[:100] / 16.0, y[:100]
    if entry.kind == "classifier":  # two classes, so that every history is one array
        X, y = load_iris(return_X_y=True)
        return StandardScaler().fit_transform(X[:100]), y[:100]
    if entry.kind == "regressor":
        X, y = load_diabetes(return_X_y=True)
        return X[:150], y[:150]
    X = make_blobs(150, 4, centers=3, random_state=0)[0]
    if entry.name == "ModelImputer":  # rounds run only on missing values
        X[::7, 1] = np.nan
    return X, None


def _limited():
    cases = []
    for entry in REGISTRY:
        params = entry.load()().get_params(deep=False)
        limit = next((name for name in LIMITS if name in params), None)
        if limit is not None and entry.name not in EXEMPT:
            cases.append(pytest.param(entry.name, limit, id=entry.name))
    return cases


@pytest.mark.parametrize("name, limit", _limited())
def test_iteration_limit_warns_and_records_history(name, limit):
    entry = get_entry(name)
    estimator = entry.load()()
    settings = {limit: 1, **({"tol": 0.0} if "tol" in estimator.get_params() else {}), **SETTINGS.get(name, {})}
    estimator.set_params(**settings)
    X, y = _data(entry)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X) if y is None else estimator.fit(X, y)
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught), f"{name}({settings}): no warning"
    if name in NO_HISTORY:  # an exemption that no longer applies is stale
        assert not any(hasattr(estimator, h) for h in HISTORIES), f"{name} now records a history: drop it from NO_HISTORY"
        return
    histories = [h for h in HISTORIES if hasattr(estimator, h)]
    assert histories, f"{name} records no per-iteration history"
    if hasattr(estimator, "n_iter_"):
        n_iter = int(np.max(estimator.n_iter_))
        assert n_iter == 1
        extra = 1 if name in WITH_INITIAL_VALUE else 0
        history = getattr(estimator, histories[0])
        if isinstance(history, list) and all(np.ndim(part) == 1 for part in history):  # one per sub-problem (SVC)
            assert max(len(part) for part in history) == n_iter + extra
        else:
            assert len(history) == n_iter + extra


def test_exemptions_name_registered_estimators_with_a_limit():
    names = {entry.name for entry in REGISTRY}
    assert set(EXEMPT) | set(NO_HISTORY) | WITH_INITIAL_VALUE | set(SETTINGS) <= names
    for name in EXEMPT:  # an exemption of an estimator without a limit parameter is stale
        assert set(LIMITS) & set(get_entry(name).load()().get_params()), name
