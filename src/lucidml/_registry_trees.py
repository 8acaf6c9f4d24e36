"""The registry's entries of the tree models: CART, and the ensembles grown on the one tree engine.

Part of :data:`lucidml.registry.REGISTRY` (kept apart to keep each file one short list). Every
tree model is compared with scikit-learn's class of the same name, at the same parameters and seed.
"""

from ._estimator_entry import EstimatorEntry, weight_equivalence_failures

_BOOTSTRAP_WEIGHTS = ("sample_weight is not equivalent to removing or repeating samples: the bootstrap draws one count "
                      "per sample (scikit-learn lists the same expected failure for its own class)")


def _tree_model(module, name, kind, check_params, expected_failure=None, **params):
    """The entry of lucidml.{module}.{name} beside sklearn.{module}.{name}, both built with ``params``
    and ``random_state=0``; ``expected_failure``: why the sample-weight equivalence checks fail."""
    same = {**params, "random_state": 0}
    return EstimatorEntry(
        f"lucidml.{module}.{name}",
        kind=kind,
        sklearn=f"sklearn.{module}.{name}",
        params=same,
        sklearn_params=dict(same),
        check_params=check_params,
        expected_failures=weight_equivalence_failures(expected_failure) if expected_failure else {},
        compiled=True,
    )


TREE_ENTRIES = (
    _tree_model("tree", "DecisionTreeClassifier", "classifier", {"random_state": 0}),
    _tree_model("tree", "DecisionTreeRegressor", "regressor", {"random_state": 0}),
    _tree_model("ensemble", "RandomForestClassifier", "classifier", {"n_estimators": 5}, _BOOTSTRAP_WEIGHTS,
                n_estimators=100),
    _tree_model("ensemble", "RandomForestRegressor", "regressor", {"n_estimators": 5}, _BOOTSTRAP_WEIGHTS,
                n_estimators=100),
    _tree_model("ensemble", "BaggingClassifier", "classifier", {"n_estimators": 5}, _BOOTSTRAP_WEIGHTS,
                n_estimators=10),
    _tree_model("ensemble", "BaggingRegressor", "regressor", {"n_estimators": 5}, _BOOTSTRAP_WEIGHTS,
                n_estimators=10),
    _tree_model("ensemble", "AdaBoostClassifier", "classifier", {"n_estimators": 5},
                "weighted and repeated fits pick different stumps on the check's data (not diagnosed further); "
                "scikit-learn lists both checks as expected failures of its AdaBoostClassifier", n_estimators=50),
    # Histogram trees with second-order (Newton) splits; scikit-learn's GradientBoosting* grows exact trees
    # on the residuals, so the two fit the same model family at equal settings, not identical trees.
    _tree_model("ensemble", "GradientBoostingClassifier", "classifier", {"n_estimators": 10}),
    _tree_model("ensemble", "GradientBoostingRegressor", "regressor", {"n_estimators": 10}),
)
