"""Columns of numbers that pandas read as text, refused by name (``lucidml fit`` and friends).

A column in which a few cells are not numbers ("?", "missing", "1,060", "2,5") is read by pandas as
text, and a table's text columns become categories: the column of numbers would be one-hot encoded
in silence, each number a category. When at least :data:`MOSTLY_NUMBERS` of a text column's cells
read as numbers, :func:`refuse_unread_numbers` raises an error that names the column, shows the
cells and says which option reads them: ``--decimal`` (the other decimal mark), ``--thousands``,
``--na-values`` (cells that mean "missing"), or ``--categorical`` (the column is a column of codes).
"""

import re
import shlex

import numpy as np

__all__ = ["MOSTLY_NUMBERS", "refuse_unread_numbers"]

# A text column of which at least this share of the cells are numbers is a column of numbers: its
# other cells are a mistake to report, not categories to encode.
MOSTLY_NUMBERS = 0.9
_DECIMAL_COMMA = re.compile(r"^[-+]?\d+,\d+$")
_DECIMAL_POINT = re.compile(r"^[-+]?\d*\.\d+$")
_THOUSANDS = re.compile(r"^[-+]?\d{1,3}([,. ]\d{3})+([.,]\d+)?$")


def refuse_unread_numbers(frame, name, decimal, thousands, skip=(), categorical_option=True):
    """``frame`` with its text columns of numbers read as numbers (every cell a number in the
    table's marks: what pandas leaves as text once ``--na-values`` cells are taken out), or a
    TableError for the first text column that holds numbers and cells that are not (see the module
    docstring).

    ``decimal`` and ``thousands``: the marks the table was read with; ``skip``: columns read as
    text on purpose; ``categorical_option``: whether the command has ``--categorical`` to suggest.
    """
    import pandas as pd

    from ._table import TableError

    for column in frame.columns:  # (the reader's own frame: changed in place)
        values = frame[column]
        if column in skip or not (values.dtype == object or pd.api.types.is_string_dtype(values)):
            continue
        counts = values.dropna().astype(str).str.strip().value_counts(sort=False)  # each text once
        if counts.empty:
            continue
        cells, weight = pd.Series(counts.index, dtype=object).astype(str), counts.to_numpy()
        kinds = _kinds(cells, decimal, thousands)
        readable = kinds["number"] | kinds["other mark"] | kinds["grouped"]
        if kinds["number"].all():
            present = values.notna()
            frame[column] = np.nan
            frame.loc[present, column] = pd.to_numeric(_plain(values[present].astype(str).str.strip(), decimal,
                                                              thousands)).astype(np.float64)
            continue
        if weight[readable].sum() < MOSTLY_NUMBERS * weight.sum():
            continue  # a column of categories (some of which may look like numbers)

        def like(mask, cells=cells):
            return ", ".join(repr(v) for v in cells[mask][:3])

        where = f"{name}: column {column!r} holds numbers"
        if kinds["other mark"].any():
            mark = kinds["other mark"]
            if decimal == ".":
                hint = "pass --decimal , to read them as numbers"
                if cells[mark].str.match(_THOUSANDS).all():
                    hint += " (or --thousands , if the comma separates thousands)"
                raise TableError(f"{where} with a decimal comma (like {like(mark)}); {hint}")
            raise TableError(f"{where} with a decimal point (like {like(mark)}), but --decimal , was given; "
                             "leave it out")
        if kinds["grouped"].any():
            raise TableError(f"{where} with thousands separators (like {like(kinds['grouped'])}); pass --thousands "
                             "with the separator")
        odd = ~readable
        options = " ".join(f"--na-values {shlex.quote(v)}" for v in cells[odd][:3])
        categorical = (f", or --categorical {shlex.quote(column)} if the column holds categories"
                       if categorical_option else "")
        raise TableError(f"{where} but also {int(weight[odd].sum())} cell(s) that are not (like {like(odd)}); pass "
                         f"{options} if they mean missing{categorical}")
    return frame


def _kinds(cells, decimal, thousands):
    """Boolean arrays over distinct cell texts: "number" (in the table's marks), "other mark" (a
    number in the other decimal mark), "grouped" (thousands separators, none declared)."""
    import pandas as pd

    number = pd.to_numeric(_plain(cells, decimal, thousands), errors="coerce").notna().to_numpy()
    if decimal == ".":
        other = cells.str.match(_DECIMAL_COMMA).to_numpy() & ~number  # "2,5" (or "1,060": a thousand and sixty?)
    else:
        other = cells.str.match(_DECIMAL_POINT).to_numpy() & (thousands != ".")  # "2.5", read with --decimal ,
        number = number & ~other
    grouped = np.zeros_like(number)
    if thousands is None:
        grouped = cells.str.match(_THOUSANDS).to_numpy() & ~number & ~other  # "1,060,000"
    return {"number": number, "other mark": other, "grouped": grouped}


def _plain(cells, decimal, thousands):
    """Cell texts with the thousands separator taken out and a decimal point for the mark."""
    if thousands:
        cells = cells.str.replace(thousands, "", regex=False)
    if decimal == ",":
        cells = cells.str.replace(",", ".", regex=False)
    return cells
