"""The allow-list: complete for lucidml's estimators, and every entry names a real class."""

import pytest

from lucidml.io._allowlist import CLASS_VALUES, ESTIMATORS, OBJECTS, class_path, resolve, settable
from lucidml.io._legacy import RETIRED_CLASSES
from lucidml.registry import REGISTRY


def test_every_registered_estimator_is_allowed():
    assert {class_path(entry.load()) for entry in REGISTRY} <= ESTIMATORS


@pytest.mark.parametrize("path", sorted(ESTIMATORS | OBJECTS | CLASS_VALUES))
def test_every_allowed_path_names_its_class(path):
    cls = resolve(path)
    if path in RETIRED_CLASSES:  # only files of an earlier release name it
        assert cls is RETIRED_CLASSES[path]
        return
    assert class_path(cls) == path
    if path in ESTIMATORS:
        assert hasattr(cls, "get_params")


def test_the_schema_lets_data_in_and_keeps_behaviour_out():
    from lucidml.linear import Ridge
    from lucidml.tree._tree import Tree

    assert settable(Ridge, "coef_", estimator=True)
    assert settable(Ridge, "_gram_factor", estimator=True)
    for name in ("predict", "fit", "coef", "__class__", "_parameter_constraints", "alpha", "a.b", "", 3):
        assert not settable(Ridge, name, estimator=True, params=("alpha",)), name
    assert settable(Tree, "nodes", estimator=False)
    for name in ("apply", "__init__", "node_count.x", "children_left"):  # children_left: a view of nodes
        assert not settable(Tree, name, estimator=False), name
