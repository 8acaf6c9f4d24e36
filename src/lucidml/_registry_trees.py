"""The registry's entries of the tree models: CART, and the ensembles grown on the one tree engine.

Part of :data:`lucidml.registry.REGISTRY` (kept apart to keep each file one short list).
"""

from ._estimator_entry import EstimatorEntry, weight_equivalence_failures

_BOOTSTRAP_WEIGHTS = ("sample_weight is not equivalent to removing or repeating samples: the bootstrap draws one count "
                      "per sample (scikit-learn lists the same expected failure for its own class)")


def _bootstrap_ensemble(name, kind, n_estimators):
    """A bagged ensemble (forest or bagging) beside scikit-learn's class of the same name, at the
    same size and seed; its bootstrap makes the weight-equivalence checks expected failures."""
    return EstimatorEntry(
        f"lucidml.ensemble.{name}",
        kind=kind,
        sklearn=f"sklearn.ensemble.{name}",
        params={"n_estimators": n_estimators, "random_state": 0},
        sklearn_params={"n_estimators": n_estimators, "random_state": 0},
        check_params={"n_estimators": 5},
        expected_failures=weight_equivalence_failures(_BOOTSTRAP_WEIGHTS),
        compiled=True,
    )


TREE_ENTRIES = (
    EstimatorEntry(
        "lucidml.tree.DecisionTreeClassifier",
        kind="classifier",
        sklearn="sklearn.tree.DecisionTreeClassifier",
        params={"random_state": 0},
        sklearn_params={"random_state": 0},
        check_params={"random_state": 0},
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.tree.DecisionTreeRegressor",
        kind="regressor",
        sklearn="sklearn.tree.DecisionTreeRegressor",
        params={"random_state": 0},
        sklearn_params={"random_state": 0},
        check_params={"random_state": 0},
        compiled=True,
    ),
    _bootstrap_ensemble("RandomForestClassifier", "classifier", 100),
    _bootstrap_ensemble("RandomForestRegressor", "regressor", 100),
    _bootstrap_ensemble("BaggingClassifier", "classifier", 10),
    _bootstrap_ensemble("BaggingRegressor", "regressor", 10),
    EstimatorEntry(
        "lucidml.ensemble.AdaBoostClassifier",
        kind="classifier",
        sklearn="sklearn.ensemble.AdaBoostClassifier",
        params={"n_estimators": 50, "random_state": 0},
        sklearn_params={"n_estimators": 50, "random_state": 0},
        check_params={"n_estimators": 5},
        expected_failures=weight_equivalence_failures(
            "weighted and repeated fits pick different stumps on the check's data (not diagnosed further); "
            "scikit-learn lists both checks as expected failures of its AdaBoostClassifier"),
        compiled=True,
    ),
    # Histogram trees with second-order (Newton) splits; scikit-learn's GradientBoosting* grows exact trees
    # on the residuals, so the two fit the same model family at equal settings, not identical trees.
    EstimatorEntry(
        "lucidml.ensemble.GradientBoostingClassifier",
        kind="classifier",
        sklearn="sklearn.ensemble.GradientBoostingClassifier",
        params={"random_state": 0},
        sklearn_params={"random_state": 0},
        check_params={"n_estimators": 10},
        compiled=True,
    ),
    EstimatorEntry(
        "lucidml.ensemble.GradientBoostingRegressor",
        kind="regressor",
        sklearn="sklearn.ensemble.GradientBoostingRegressor",
        params={"random_state": 0},
        sklearn_params={"random_state": 0},
        check_params={"n_estimators": 10},
        compiled=True,
    ),
)
