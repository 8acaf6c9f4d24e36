"""The registry lists every public estimator exactly once, and its entries are usable."""

import importlib
import inspect
import pkgutil

import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, ClusterMixin, DensityMixin, RegressorMixin, TransformerMixin

import lucidml
from lucidml import all_estimators
from lucidml.registry import KINDS, REGISTRY, EstimatorEntry, get_entry


def _public_estimators():
    """Every public BaseEstimator subclass defined anywhere in the lucidml package."""
    found = {}
    for module_info in pkgutil.walk_packages(lucidml.__path__, "lucidml."):
        if any(part.startswith("_") for part in module_info.name.split(".")) or module_info.name == "lucidml.__main__":
            continue
        if module_info.name.startswith("lucidml.dask"):
            continue  # fitted on Dask collections, tested against their in-memory twins in tests/dask
        module = importlib.import_module(module_info.name)
        for name, obj in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(obj, BaseEstimator)
                and obj.__module__.startswith("lucidml.")
                and not name.startswith("_")
                and not inspect.isabstract(obj)
            ):
                found[name] = obj
    return found


def test_every_public_estimator_is_registered():
    registered = {name for name, _ in all_estimators()}
    missing = set(_public_estimators()) - registered
    assert not missing, f"public estimators missing from lucidml.registry.REGISTRY: {sorted(missing)}"


def test_registry_names_are_unique_and_resolve():
    names = [entry.name for entry in REGISTRY]
    assert len(names) == len(set(names))
    for entry in REGISTRY:
        assert entry.load().__name__ == entry.name
        assert get_entry(entry.name.lower()) is entry


_MIXIN = {
    "classifier": ClassifierMixin, "regressor": RegressorMixin, "cluster": ClusterMixin,
    "transformer": TransformerMixin, "density": DensityMixin,
}


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_entry_kind_matches_class_and_counterpart_builds(entry):
    assert issubclass(entry.load(), _MIXIN[entry.kind])
    entry.make()  # the comparison parameters are accepted
    entry.make_for_checks()
    if entry.sklearn is not None:
        counterpart = entry.make_sklearn()
        assert isinstance(counterpart, _MIXIN[entry.kind])
    for check, reason in entry.expected_failures.items():
        assert check.startswith("check_") and reason.strip(), "each expected failure needs a reason"


@pytest.mark.parametrize("kind", KINDS)
def test_all_estimators_filters_by_kind(kind):
    for name, cls in all_estimators(kind):
        assert get_entry(name).kind == kind
        assert issubclass(cls, _MIXIN[kind])
    assert all_estimators([kind]) == all_estimators(kind)


def test_all_estimators_lists_the_foundation_estimators_sorted():
    names = [name for name, _ in all_estimators()]
    assert names == sorted(names)
    assert {"GaussianNB", "LinearRegression"} <= set(names)
    assert [n for n, _ in all_estimators("classifier")] == [n for n in names if get_entry(n).kind == "classifier"]


def test_bad_type_filter_and_unknown_name_are_rejected():
    with pytest.raises(ValueError, match="type_filter"):
        all_estimators("nonsense")
    with pytest.raises(KeyError, match="no lucidml estimator named"):
        get_entry("NoSuchModel")
    with pytest.raises(ValueError, match="kind"):
        EstimatorEntry("lucidml.x.Y", kind="oracle")
