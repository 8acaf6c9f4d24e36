"""Reading the user's table for the ``lucidml`` command: CSV, TSV, Parquet, or standard input.

Every way a file can be unreadable becomes a :class:`TableError` with one line that says what
to do: an empty file, a header without rows, a ragged row, bytes that are not UTF-8, a field
too large, numbers written with a decimal comma (never guessed silently), a file larger than
the memory left to read it.
"""

import csv
import io
import os
import re
import sys

__all__ = ["TableError", "read_table"]

DELIMITERS = ",;\t|"
SNIFF_BYTES = 64 * 1024
# A parsed table takes several times its text in memory (Python strings, float columns).
MEMORY_PER_BYTE = 6
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+,\d+\s*$")


class TableError(ValueError):
    """A table that cannot be read; the message says why in one line."""


def read_table(path, sep=None, decimal=".", encoding="utf-8"):
    """The table at ``path`` ("-": standard input) as a pandas DataFrame.

    ``sep`` forces the delimiter of a text file; by default it is detected among
    ``, ; tab |``. Parquet files (``.parquet``, ``.pq``) need pyarrow.
    """
    import pandas as pd

    name = "standard input" if path == "-" else os.fspath(path)
    if path != "-":
        if not os.path.isfile(path):
            raise TableError(f"{name}: no such file")
        _check_memory(name, os.path.getsize(path))
        if str(path).lower().endswith((".parquet", ".pq")):
            return _read_parquet(path, name)
        with open(path, "rb") as handle:
            raw = handle.read()
    else:
        raw = sys.stdin.buffer.read()
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise TableError(f"{name}: byte {error.start} is not {encoding} text; pass --encoding (e.g. latin-1)") from None
    except LookupError:
        raise TableError(f"unknown encoding {encoding!r}") from None
    if not text.strip():
        raise TableError(f"{name}: the file is empty")
    sep = sep or _detect_delimiter(text[:SNIFF_BYTES])
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep, decimal=decimal, engine="c", skipinitialspace=True)
    except pd.errors.ParserError as error:
        raise TableError(f"{name}: {_first_line(error)} (a ragged row, or the wrong --sep?)") from None
    except (ValueError, OverflowError, csv.Error) as error:
        raise TableError(f"{name}: cannot be read as a table ({_first_line(error)})") from None
    if frame.shape[0] == 0:
        raise TableError(f"{name}: only a header, no rows of data")
    if decimal == ".":
        _refuse_decimal_commas(frame, name)
    frame.columns = [str(column).strip() for column in frame.columns]
    duplicated = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1})
    if duplicated:
        raise TableError(f"{name}: column names appear twice: {', '.join(duplicated[:5])}")
    return frame


def _read_parquet(path, name):
    import pandas as pd

    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise TableError("reading Parquet needs pyarrow: pip install pyarrow (or lucidml[parquet])") from None
    try:
        frame = pd.read_parquet(path)
    except Exception as error:  # noqa: BLE001 - pyarrow's many error types all mean "not readable"
        raise TableError(f"{name}: not a readable Parquet file ({_first_line(error)})") from None
    if frame.shape[0] == 0:
        raise TableError(f"{name}: no rows of data")
    frame.columns = [str(column) for column in frame.columns]
    return frame


def _check_memory(name, size):
    try:
        available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return  # not knowable here (not Linux): let the read try
    if size * MEMORY_PER_BYTE > available:
        raise TableError(f"{name}: {size / 2**30:.1f} GiB would need about {size * MEMORY_PER_BYTE / 2**30:.0f} GiB "
                         f"of memory, {available / 2**30:.1f} GiB is free; use a sample of the file")


def _detect_delimiter(sample):
    """The delimiter that splits the first lines into the same number (> 1) of fields."""
    lines = [line for line in sample.splitlines()[:50] if line.strip()]
    if len(lines) > 1 and not sample.endswith("\n"):
        lines = lines[:-1]  # the sample may cut the last line short
    best, best_fields = ",", 1
    for delimiter in DELIMITERS:
        try:
            counts = [len(next(csv.reader([line], delimiter=delimiter))) for line in lines]
        except csv.Error:  # a field longer than the csv module allows: not this delimiter's fault
            continue
        if counts and min(counts) == max(counts) and counts[0] > best_fields:
            best, best_fields = delimiter, counts[0]
    return best


def _refuse_decimal_commas(frame, name):
    import pandas as pd

    for column in frame.columns:
        values = frame[column]
        if values.dtype == object or pd.api.types.is_string_dtype(values):
            present = values.dropna().astype(str)
            if len(present) and present.map(lambda v: bool(_DECIMAL_COMMA.match(v))).mean() > 0.9:
                raise TableError(f"{name}: column {column!r} holds numbers with a decimal comma (like "
                                 f"{present.iloc[0]!r}); pass --decimal , to read them as numbers")


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
