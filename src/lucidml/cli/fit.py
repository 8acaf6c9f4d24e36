"""``lucidml fit``: train a model on a table and keep it in a ``.lucid`` file.

``fit`` reads the table, takes the target column out (rows without a target are dropped, with
a note), infers the task (classification, regression; clustering without a target), builds the
preprocessing + model pipeline (``_pipeline``), fits it on a training part, prints the metrics
of the held-out part and saves the fitted pipeline with ``lucidml.io``. ``--test-size 0`` fits
on every row and prints no metrics.

"""

import sys

import numpy as np

from ..datasets import MAX_CLASSES_FOR_INTEGER_TARGET
from ._limits import MAX_FEATURES
from ._output import check_output
from ._pipeline import build_pipeline, choose_model, column_kinds, parse_params, task_of
from ._progress import working
from ._table import booleans_as_numbers, read_table, table_options
from .evaluate import format_metrics, metrics

__all__ = ["DataError", "as_categories", "as_number", "labels", "run_fit", "split_target", "target_for"]

MAX_COLUMNS = 100_000


class DataError(ValueError):
    """The data cannot serve the request (a missing column, a single class)."""


def split_target(frame, target, name, note):
    """(features, target values or None) of a table, rows without a target dropped."""
    if target is None:
        return frame, None
    if target not in frame.columns:
        shown = ", ".join(map(str, list(frame.columns)[:10])) + (", …" if frame.shape[1] > 10 else "")
        raise DataError(f"{name}: no column named {target!r}; the columns are {shown}")
    y = frame[target]
    missing = y.isna().to_numpy()
    if missing.all():
        raise DataError(f"{name}: the target column {target!r} is empty")
    if missing.any():
        note(f"dropped {int(missing.sum())} row(s) without a value of {target!r}")
    X = frame.loc[~missing].drop(columns=[target])
    if X.shape[1] == 0:
        raise DataError(f"{name}: no feature columns besides the target {target!r}")
    return X, y[~missing].to_numpy()


def as_categories(X, categorical):
    """Categorical columns as strings (missing values kept missing): one type per column."""
    if not categorical:
        return X
    X = X.copy()
    for column in categorical:
        values = X[column]
        if values.dtype.kind == "f" and bool((values.dropna() == values.dropna().round()).all()):
            values = values.astype("Int64")  # whole numbers read as floats (a gap in a Parquet column): "1", not "1.0"
        X[column] = values.astype(object).where(values.isna(), values.astype(str))
    return X


def run_fit(args, note):
    output = args.output or _default_output(args.data)
    check_output(output, "-o" if args.output else "the model file (no -o given)", args.data)
    entry = choose_model(args.task, args.model) if args.task else None  # a wrong name: before reading
    frame = read_table(args.data, **table_options(args, args.categorical or [], categorical_option=True))
    if frame.shape[1] and all(as_number(name) is not None for name in frame.columns):
        shown = ", ".join(map(str, list(frame.columns)[:4])) + (", …" if frame.shape[1] > 4 else "")
        note(f"every column name of {args.data} is a number ({shown}): if the table has no header row, its first "
             "row was read as the names (and is not fitted on); give the table a header")
    if frame.shape[1] > MAX_COLUMNS:
        raise DataError(f"{args.data}: {frame.shape[1]:,} columns; lucidml fit takes at most {MAX_COLUMNS:,}")
    X, y = split_target(frame, args.target, args.data, note)
    X = booleans_as_numbers(X)
    task = "clustering" if y is None else task_of(y, args.task)
    y = target_for(task, y, args.target, args.data)
    if task == "classification" and args.task and len(np.unique(y)) > MAX_CLASSES_FOR_INTEGER_TARGET:
        note(f"the target {args.target!r} has {len(np.unique(y))} classes among {len(y)} rows; for a number to "
             "predict, leave out --task classification")
    entry = entry or choose_model(task, args.model)
    limit = MAX_FEATURES.get(entry.name)
    if limit is not None and X.shape[1] > limit:
        raise DataError(f"{entry.name} takes at most {limit:,} feature columns, the table has {X.shape[1]:,}; "
                        "choose another --model")
    pipeline = build_pipeline(X, entry, parse_params(args.param), args.seed, note)
    X = as_categories(X, column_kinds(X)[1])
    test_size = args.test_size
    if task == "clustering" and not hasattr(entry.load(), "predict") and test_size:
        note(f"{entry.name} cannot label new rows: it is fitted on every row, and measured on them")
        test_size = 0
    X_train, X_test, y_train, y_test = _hold_out(X, y, task, test_size, args.seed, note)
    with working(sys.stderr, f"fitting {entry.name} on {len(X_train):,} rows", quiet=args.quiet):
        pipeline.fit(X_train, y_train)
    values = None
    if X_test is not None or task == "clustering":
        rows = X_train if X_test is None else X_test
        with working(sys.stderr, f"measuring on {len(rows):,} rows", quiet=args.quiet):
            values = metrics(task, pipeline, rows, y_test, note)
    from ..io import save

    # Saved before anything is printed: a reader that closes the output early (`| head -1`) ends
    # the command after the model is on disk, not before.
    save(pipeline, output)
    print(f"{entry.name} on {args.data}: {task}, {X.shape[0]} rows, {X.shape[1]} feature columns"
          + (f", {len(X_train)} for training and {len(X_test)} held out" if X_test is not None else ""))
    if values is not None:
        print(format_metrics(values))
    print(f"saved to {output}")


def target_for(task, y, target, name):
    """The target values as the task needs them: class labels (at least two classes), or numbers."""
    if task == "classification":
        y = labels(y)
        if len(np.unique(y)) < 2:
            raise DataError(f"{name}: the target {target!r} has a single class ({str(y[0])!r}); "
                            "a classifier needs at least two")
        return y
    if task == "regression":
        try:
            return np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            text = next(v for v in y if as_number(v) is None)
            raise DataError(f"{name}: the target {target!r} holds text (like {text!r}); a regression needs "
                            "numbers (leave out --task regression to classify)") from None
    return y


def as_number(text):
    """``text`` as a float, or None where it is no number."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def labels(y):
    """Class labels with one type: whole numbers as integers, anything else (1.5, text) as strings
    (scikit-learn's classifiers take no fractional labels)."""
    values = np.asarray(y)
    if values.dtype.kind == "f":
        return values.astype(np.int64) if np.all(values == np.round(values)) else values.astype(str)
    if values.dtype == object:
        return values.astype(str)
    return values


def _hold_out(X, y, task, test_size, seed, note):
    from sklearn.model_selection import train_test_split

    if test_size == 0:
        return X, None, y, None
    stratify = None
    if task == "classification":
        _, counts = np.unique(y, return_counts=True)
        if counts.min() >= 2:
            stratify = y
        else:
            note("a class has a single row: the held-out part is not stratified")
    try:
        if y is None:
            X_train, X_test = train_test_split(X, test_size=test_size, random_state=seed)
            return X_train, X_test, None, None
        return train_test_split(X, y, test_size=test_size, random_state=seed, stratify=stratify)
    except ValueError as error:
        raise DataError(f"cannot hold out {test_size} of {len(X)} rows ({error}); try --test-size 0") from None


def _default_output(data):
    from pathlib import Path

    return "model.lucid" if data == "-" else str(Path(data).with_suffix(".lucid").name)
