"""Reading the user's table for the ``lucidml`` command: CSV, TSV, Parquet, or standard input.

Every way a file can be unreadable becomes a :class:`TableError` with one line that says what
to do: an empty file, a header without rows, a ragged row (too many fields or too few), a column
name written twice, bytes that are not UTF-8, a field too large, a file larger than the memory
left to read it. A column of numbers that pandas could not read as numbers is never turned into
categories silently (``_unread_numbers``). An empty field after the last column (a trailing
delimiter) is dropped; a Parquet or gzip file is recognised by its bytes, whatever its name.
"""

import csv
import gzip
import io
import os
import sys
import warnings

from ._unread_numbers import refuse_unread_numbers

__all__ = ["TableError", "booleans_as_numbers", "column_list", "read_table", "table_options"]

DELIMITERS = ",;\t|"
SNIFF_BYTES = 64 * 1024
# A parsed table takes several times its text in memory (Python strings, float columns).
MEMORY_PER_BYTE = 6
_PARQUET_MAGIC = b"PAR1"  # at both ends of a Parquet file
_GZIP_MAGIC = b"\x1f\x8b"


class TableError(ValueError):
    """A table that cannot be read; the message says why in one line."""


def table_options(args, text_columns=(), categorical_option=False):
    """read_table's keyword arguments from the command's table options (``--sep``, ``--decimal``…);
    ``categorical_option``: the command has ``--categorical`` (fit, compare), naming ``text_columns``."""
    return {"sep": args.sep, "decimal": args.decimal, "encoding": args.encoding, "na_values": args.na_values,
            "thousands": args.thousands, "text_columns": text_columns, "categorical_option": categorical_option}


def column_list(text):
    """``"a, b"`` → ``["a", "b"]``; None → None."""
    return None if text is None else [part.strip() for part in text.split(",") if part.strip()]


def read_table(path, sep=None, decimal=".", encoding="utf-8", na_values=None, thousands=None, text_columns=(),
               categorical_option=False):
    """The table at ``path`` ("-": standard input) as a pandas DataFrame.

    ``sep`` forces the delimiter of a text file; by default it is detected among
    ``, ; tab |``. ``na_values``: more cell texts that mean "missing" (besides empty, NA, NaN,
    null…; spaces around a cell do not count); ``thousands``: the thousands separator of numbers;
    ``text_columns``: columns read as text, as written (categories, even when they look like
    numbers: "01", "1" not "1.0"), which must exist when ``categorical_option`` (the user named
    them with ``--categorical``). Parquet files need pyarrow.
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
    if raw[:4] == _PARQUET_MAGIC and raw[-4:] == _PARQUET_MAGIC:
        return _read_parquet(io.BytesIO(raw), name)
    if raw.startswith(_GZIP_MAGIC):
        _check_memory(name, int.from_bytes(raw[-4:], "little"))  # gzip's trailer: the size unpacked (mod 4 GiB)
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise TableError(f"{name}: a damaged gzip file ({_first_line(error)})") from None
    text = _decoded(raw, encoding, name)
    sep = _delimiter(sep, text)
    header = _header(text, sep, name)
    names = [field.strip() for field in header]
    text_columns = set(text_columns)
    unknown = sorted(text_columns - set(names))
    if categorical_option and unknown:
        raise TableError(f"{name}: --categorical names no column {unknown[0]!r}")
    as_text = {raw: str for raw in header if raw.strip() in text_columns}
    frame = _parsed(text, sep, decimal, na_values, thousands, as_text, name)
    if frame.shape[0] == 0:
        raise TableError(f"{name}: only a header, no rows of data")
    if frame.shape[1] > 1 and frame.iloc[:, -1].isna().any():  # pandas fills a short row with missing values
        _refuse_short_rows(text, sep, _fields(header), name)
    frame.columns = [str(column).strip() for column in frame.columns]
    unnamed = [column for column, raw in zip(frame.columns, header) if not raw.strip() and frame[column].isna().all()]
    frame = frame.drop(columns=unnamed)  # "a,b," as the header: an empty field after the last column
    if na_values:  # " ? " is "?" (pandas compares cells as written)
        for column in frame.columns:
            if frame[column].dtype == object or pd.api.types.is_string_dtype(frame[column]):
                frame[column] = frame[column].mask(frame[column].astype(str).str.strip().isin(na_values))
    return refuse_unread_numbers(frame, name, decimal, thousands, text_columns, categorical_option)


def booleans_as_numbers(frame):
    """``frame`` with each True/False column that has missing cells (pandas: objects) as 1.0/0.0/NaN,
    numeric like the same column without gaps (pandas: bool), so that fit and predict agree on its kind."""
    converted = None
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object:
            present = values.dropna()
            if len(present) and present.map(lambda v: isinstance(v, bool)).all():
                converted = frame.copy() if converted is None else converted
                converted[column] = values.map({True: 1.0, False: 0.0}).astype(float)
    return frame if converted is None else converted


def _decoded(raw, encoding, name):
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise TableError(f"{name}: byte {error.start} is not {encoding} text; pass --encoding (e.g. latin-1)") from None
    except LookupError:
        raise TableError(f"unknown encoding {encoding!r}") from None
    if not text.strip():
        raise TableError(f"{name}: the file is empty")
    return text[1:] if text.startswith("\ufeff") else text  # the byte-order mark of Excel's "CSV UTF-8"


def _delimiter(sep, text):
    if sep is None:
        return _detect_delimiter(text[:SNIFF_BYTES])
    sep = "\t" if sep == "\\t" else sep  # "--sep '\t'" typed with the backslash
    if len(sep) != 1:
        raise TableError(f"--sep {sep!r}: a delimiter is one character (a tab: --sep $'\\t')")
    return sep


def _parsed(text, sep, decimal, na_values, thousands, dtype, name):
    """pandas' reading of the text. ``index_col=False``: an empty field after the last column of
    every row (a trailing delimiter) is dropped, where pandas would take the first column for the
    rows' index and shift every name by one; a nonempty one (R's row names) is an error."""
    import pandas as pd

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pd.errors.ParserWarning)
            frame = pd.read_csv(io.StringIO(text), sep=sep, decimal=decimal, engine="c", skipinitialspace=True,
                                index_col=False, na_values=na_values, thousands=thousands, dtype=dtype or None)
    except pd.errors.ParserError as error:
        raise TableError(f"{name}: {_first_line(error)} (a ragged row, or the wrong --sep?)") from None
    except (ValueError, OverflowError, csv.Error) as error:
        raise TableError(f"{name}: cannot be read as a table ({_first_line(error)})") from None
    if any(issubclass(w.category, pd.errors.ParserWarning) for w in caught):
        _refuse_extra_fields(text, sep, name)
    # Cells lose their trailing spaces as the header's names do (skipinitialspace strips only the
    # leading ones): "red " in one row and "red" in another are one category, one class.
    for column in frame.columns:
        if frame[column].dtype.kind in "OU" or isinstance(frame[column].dtype, pd.StringDtype):
            if pd.api.types.infer_dtype(frame[column], skipna=True) == "string":  # (not True/False/NaN)
                frame[column] = frame[column].str.strip()
    return frame


def _header(text, sep, name):
    """The header's fields as written (before pandas renames a repeated name ``x.1``): the first
    line that is not blank, as pandas reads it; a repeated name is an error."""
    try:
        reader = csv.reader(io.StringIO(text), delimiter=sep, skipinitialspace=True)
        header = next((row for row in reader if any(field.strip() for field in row)), [])
    except csv.Error as error:
        raise TableError(f"{name}: cannot read the header ({_first_line(error)})") from None
    names = [field.strip() for field in header]
    duplicated = sorted({n for n in names if names.count(n) > 1 and n})
    if duplicated:
        raise TableError(f"{name}: column names appear twice: {', '.join(duplicated[:5])}")
    return header


def _data_rows(text, sep):
    """(line number, fields) of every nonblank line after the header, as pandas splits them."""
    reader = csv.reader(io.StringIO(text), delimiter=sep, skipinitialspace=True)
    seen_header = False
    for row in reader:
        if not any(field.strip() for field in row):
            continue
        if seen_header:
            yield reader.line_num, row
        seen_header = True


def _refuse_short_rows(text, sep, n_fields, name):
    """A row with fewer fields than the header (pandas fills it with missing values) is an error."""
    if '"' not in text:  # no quoted field: count the delimiters, 20 times faster than the csv module
        lines = (line for line in text.splitlines() if line.strip())
        next(lines, None)
        if all(line.count(sep) + 1 >= n_fields for line in lines):
            return
    try:
        for line, row in _data_rows(text, sep):
            if len(row) < n_fields:
                raise TableError(f"{name}: line {line} has {len(row)} field(s), the header {n_fields} "
                                 "(a ragged row, or the wrong --sep?)")
    except csv.Error:
        return  # pandas read what the csv module cannot: trust pandas


def _refuse_extra_fields(text, sep, name):
    """Rows with one field more than the header: fine when it is empty on every row (a trailing
    delimiter), else an error (pandas would drop the last column, or shift the names by one)."""
    header = _header(text, sep, name)
    try:
        for line, row in _data_rows(text, sep):
            if len(row) > len(header) and any(field.strip() for field in row[len(header):]):
                raise TableError(f"{name}: line {line} has {len(row)} fields, the header {len(header)}: a column "
                                 "without a name (row names, as R writes them?); name it in the header, or write the "
                                 "file without it")
    except csv.Error:
        raise TableError(f"{name}: rows have more fields than the header (the wrong --sep?)") from None


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


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
