"""docs/model_selection.md's "SPEC §19, line by line" table: every line names what covers it, and
every lucidml or scikit-learn name it gives exists (issue 24: no unticked line)."""

import importlib
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "model_selection.md"


def _rows():
    text = PAGE.read_text(encoding="utf-8").split("## SPEC §19, line by line", 1)[1]
    rows = [line for line in text.splitlines()
            if line.startswith("| ") and not line.startswith(("| SPEC", "| ---"))]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]] for row in rows]


def _resolve(dotted):
    """The object a dotted name gives to a user: an attribute of its package first, else a submodule."""
    parts = dotted.split(".")
    found = importlib.import_module(parts[0])
    for i, name in enumerate(parts[1:], start=2):
        if not hasattr(found, name):
            try:
                importlib.import_module(".".join(parts[:i]))
            except ImportError:
                pass
        found = getattr(found, name)
    return found


def test_every_line_of_the_spec_section_is_covered():
    rows = _rows()
    items = [item for item, _ in rows]
    for needed in ("Hoeffding", "VC bound", "Perceptron mistake bound", "Empirical 0-1 risk", "Finite-class ERM",
                   "Learning curves", "Bias–variance", "MVN log-pdf", "Box–Muller", "Hold-out", "Leave-one-out",
                   "Repeated-split benchmark with hard voting", "Occam", "Stepwise", "SBS", "Mutual-information",
                   "Permutation importance", "Imputation", "sigmoid", "KKT", "Gradient checker",
                   "Online mistake counter"):
        assert any(needed in item for item in items), needed
    for item, covered in rows:
        assert covered, item
        names = re.findall(r"`((?:lucidml|sklearn)\.[\w.]+)", covered)
        if "not implemented" in covered:
            assert item.startswith("FTRL") and not names  # the notes only name it (SPEC §19)
            continue
        if not names:  # the typo line states a value: check it
            (claim,) = re.findall(r"`([^`]*==[^`]*)`", covered)
            assert eval(claim, vars(importlib.import_module("lucidml.theory"))), claim  # noqa: S307 - our own page
            continue
        for name in names:
            assert callable(_resolve(name)), name


@pytest.mark.parametrize("name", ["lucidml.model_selection.compare_models", "lucidml.theory.hoeffding_sample_size"])
def test_a_missing_name_would_fail(name):
    with pytest.raises(AttributeError):
        _resolve(name + "_no_such")
