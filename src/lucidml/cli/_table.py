"""Reading the user's table for the ``lucidml`` command: CSV, TSV, Parquet, or standard input.

Every way a file can be unreadable becomes a :class:`TableError` with one line that says what
to do: an empty file, a header without rows, a ragged row (too many fields or too few), a column
name written twice, bytes that are not UTF-8, a field too large, a file larger than the memory
left to read it. A column of numbers that pandas could not read as numbers is never turned into
categories silently: numbers with the other decimal mark (``--decimal``), with thousands
separators (``--thousands``), or a few cells that are not numbers at all ("?", "missing":
``--na-values``, or ``--categorical`` when the column really holds categories) are errors that
name the column and the cells. A field after the last column on every row (a trailing
delimiter) is dropped. A Parquet or gzip file is recognised by its first bytes, whatever its name.
"""

import csv
import gzip
import io
import os
import re
import shlex
import sys

__all__ = ["TableError", "column_list", "read_table", "table_options"]

DELIMITERS = ",;\t|"
SNIFF_BYTES = 64 * 1024
# A parsed table takes several times its text in memory (Python strings, float columns).
MEMORY_PER_BYTE = 6
# A column of which at least this share of the cells are numbers is a column of numbers: its
# other cells are a mistake to report (a "?", a decimal comma), not categories to encode.
MOSTLY_NUMBERS = 0.9
_DECIMAL_COMMA = re.compile(r"^[-+]?\d+,\d+$")
_DECIMAL_POINT = re.compile(r"^[-+]?\d*\.\d+$")
_THOUSANDS = re.compile(r"^[-+]?\d{1,3}([,. ]\d{3})+([.,]\d+)?$")
_PARQUET_MAGIC = b"PAR1"
_GZIP_MAGIC = b"\x1f\x8b"

class TableError(ValueError):
    """A table that cannot be read; the message says why in one line."""


def table_options(args, text_columns=()):
    """read_table's keyword arguments from the command's table options (``--sep``, ``--decimal``…)."""
    return {"sep": args.sep, "decimal": args.decimal, "encoding": args.encoding,
            "na_values": column_list(args.na_values), "thousands": args.thousands, "text_columns": text_columns}


def column_list(text):
    """``"a, b"`` → ``["a", "b"]``; None → None."""
    return None if text is None else [part.strip() for part in text.split(",") if part.strip()]


def read_table(path, sep=None, decimal=".", encoding="utf-8", na_values=None, thousands=None, text_columns=()):
    """The table at ``path`` ("-": standard input) as a pandas DataFrame.

    ``sep`` forces the delimiter of a text file; by default it is detected among
    ``, ; tab |``. ``na_values``: more cell texts that mean "missing" (besides empty, NA, NaN,
    null…); ``thousands``: the thousands separator of numbers; ``text_columns``: columns read as
    text, as written (categories, even when they look like numbers: "01", "1" not "1.0"). Parquet
    files need pyarrow.
    """
    import pandas as pd

    name = "standard input" if path == "-" else os.fspath(path)
    if path != "-":
        if not os.path.isfile(path):
            raise TableError(f"{name}: no such file" if not os.path.isdir(path) else f"{name}: a folder, not a file")
        _check_memory(name, os.path.getsize(path))
        with open(path, "rb") as handle:
            raw = handle.read()
    else:
        raw = sys.stdin.buffer.read()
    if raw.startswith(_PARQUET_MAGIC):
        return _read_parquet(io.BytesIO(raw), name)
    if raw.startswith(_GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise TableError(f"{name}: a damaged gzip file ({_first_line(error)})") from None
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise TableError(f"{name}: byte {error.start} is not {encoding} text; pass --encoding (e.g. latin-1)") from None
    except LookupError:
        raise TableError(f"unknown encoding {encoding!r}") from None
    if not text.strip():
        raise TableError(f"{name}: the file is empty")
    sep = sep or _detect_delimiter(text[:SNIFF_BYTES])
    header = _header(text, sep, name)
    text_columns = set(text_columns)
    try:
        # index_col=False: a delimiter after the last field of every row is dropped (pandas
        # would otherwise take the first column for the rows' index and shift every name by one).
        frame = pd.read_csv(io.StringIO(text), sep=sep, decimal=decimal, engine="c", skipinitialspace=True,
                            index_col=False, na_values=na_values, thousands=thousands,
                            dtype={raw: str for raw in header if raw.strip() in text_columns} or None)
    except pd.errors.ParserError as error:
        raise TableError(f"{name}: {_first_line(error)} (a ragged row, or the wrong --sep?)") from None
    except (ValueError, OverflowError, csv.Error) as error:
        raise TableError(f"{name}: cannot be read as a table ({_first_line(error)})") from None
    if frame.shape[0] == 0:
        raise TableError(f"{name}: only a header, no rows of data")
    if frame.shape[1] > 1 and frame.iloc[:, -1].isna().any():  # pandas fills a short row with missing values
        _refuse_short_rows(text, sep, len(header), name)
    frame.columns = [str(column).strip() for column in frame.columns]
    unnamed = [column for column, raw in zip(frame.columns, header) if not raw.strip() and frame[column].isna().all()]
    frame = frame.drop(columns=unnamed)  # "a,b," as the header: an empty field after the last column
    _booleans_with_gaps_as_numbers(frame)
    _refuse_unread_numbers(frame, name, decimal, thousands, text_columns)
    return frame


def _header(text, sep, name):
    """The header's fields as written (before pandas renames a repeated name ``x.1``); a repeated
    name is an error."""
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=sep, skipinitialspace=True), [])
    except csv.Error as error:
        raise TableError(f"{name}: cannot read the header ({_first_line(error)})") from None
    names = [field.strip() for field in header]
    duplicated = sorted({n for n in names if names.count(n) > 1 and n})
    if duplicated:
        raise TableError(f"{name}: column names appear twice: {', '.join(duplicated[:5])}")
    return header


def _refuse_short_rows(text, sep, n_fields, name):
    """A row with fewer fields than the header (pandas fills it with missing values) is an error."""
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    try:
        for line, row in enumerate(reader, start=1):
            if line > 1 and any(field.strip() for field in row) and len(row) < n_fields:
                raise TableError(f"{name}: line {reader.line_num} has {len(row)} field(s), the header {n_fields} "
                                 "(a ragged row, or the wrong --sep?)")
    except csv.Error:
        return  # pandas read what the csv module cannot: trust pandas


def _booleans_with_gaps_as_numbers(frame):
    """A True/False column with missing cells (pandas: objects) as 1.0/0.0/NaN, as numeric as
    the same column without gaps (pandas: bool), so that fit and predict agree on its kind."""
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object:
            present = values.dropna()
            if len(present) and present.map(lambda v: isinstance(v, bool)).all():
                frame[column] = values.map({True: 1.0, False: 0.0}).astype(float)


def _read_parquet(source, name):
    import pandas as pd

    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise TableError("reading Parquet needs pyarrow: pip install pyarrow (or lucidml[parquet])") from None
    try:
        frame = pd.read_parquet(source)
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
            counts = [_fields(next(csv.reader([line], delimiter=delimiter))) for line in lines]
        except csv.Error:  # a field longer than the csv module allows: not this delimiter's fault
            continue
        if counts and min(counts) == max(counts) and counts[0] > best_fields:
            best, best_fields = delimiter, counts[0]
    return best


def _fields(row):
    """Fields of a row, not counting an empty one after the last (a trailing delimiter)."""
    return len(row) - (len(row) > 1 and not row[-1].strip())


def _refuse_unread_numbers(frame, name, decimal, thousands, text_columns):
    """An error for a column of numbers that pandas read as text (see the module docstring)."""
    import pandas as pd

    for column in frame.columns:
        values = frame[column]
        if column in text_columns or not (values.dtype == object or pd.api.types.is_string_dtype(values)):
            continue
        cells = values.dropna().astype(str).str.strip()
        if not len(cells):
            continue
        numbers = pd.to_numeric(cells, errors="coerce").notna()
        if decimal == ".":
            other_mark = cells.str.match(_DECIMAL_COMMA)  # "2,5" (or "1,060": a thousand and sixty?)
        else:
            other_mark = numbers & cells.str.match(_DECIMAL_POINT)  # "2.5", read with --decimal ,
        grouped = cells.str.match(_THOUSANDS) & ~numbers & ~other_mark  # "1,060,000"
        readable = numbers | other_mark | grouped
        if readable.mean() < MOSTLY_NUMBERS:
            continue  # a column of categories (some of which may look like numbers)

        def example(mask, cells=cells):
            return ", ".join(repr(v) for v in cells[mask].unique()[:3])

        if other_mark.any():
            if decimal == ".":
                hint = "pass --decimal , to read them as numbers"
                if cells[other_mark].str.match(_THOUSANDS).all():
                    hint += " (or --thousands , if the comma separates thousands)"
                raise TableError(f"{name}: column {column!r} holds numbers with a decimal comma (like "
                                 f"{example(other_mark)}); {hint}")
            raise TableError(f"{name}: column {column!r} holds numbers with a decimal point (like "
                             f"{example(other_mark)}), but --decimal , was given; leave it out")
        if grouped.any():
            raise TableError(f"{name}: column {column!r} holds numbers with thousands separators (like "
                             f"{example(grouped)}); pass --thousands with the separator")
        if not readable.all():
            odd = cells[~readable].unique()
            raise TableError(f"{name}: column {column!r} holds numbers but also {int((~readable).sum())} cell(s) "
                             f"that are not (like {example(~readable)}); pass --na-values "
                             f"{shlex.quote(','.join(odd[:3]))} if they mean missing, or --categorical "
                             f"{shlex.quote(column)} if the column holds categories")


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
