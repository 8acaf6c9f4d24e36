"""Every docstring example in lucidml runs, so the documentation cannot drift from the code."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import lucidml

_MODULES = [
    m.name for m in pkgutil.walk_packages(lucidml.__path__, "lucidml.") if m.name != "lucidml.__main__"
] + ["lucidml"]


@pytest.mark.parametrize("module_name", _MODULES)
def test_docstring_examples(module_name):
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {module_name}"


def test_examples_exist_for_the_estimators():
    from lucidml.registry import REGISTRY

    for entry in REGISTRY:
        assert ">>>" in (entry.load().__doc__ or ""), f"{entry.name} has no runnable example"


_DOCS = sorted((Path(__file__).resolve().parents[1] / "docs").glob("*.md"))


@pytest.mark.parametrize("page", _DOCS, ids=lambda p: p.name)
def test_documentation_pages(page):
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} example(s) failed in {page.name}"
