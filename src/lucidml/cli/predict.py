"""``lucidml predict`` and ``lucidml evaluate``: use a model that ``lucidml fit`` saved.

The table's columns are checked against the ones the model was fitted on: a missing column is
an error, extra ones are ignored with a note, a column that held numbers must hold numbers.
``predict`` writes one prediction per row as CSV, with the labels as they were in the training
table (and, with ``--proba``, one probability column per class); ``evaluate`` prints the
metrics of ``lucidml.cli.evaluate`` against the table's target column.
"""

import sys

from ..io import ModelFileError
from ._output import check_output
from ._pipeline import CliUsageError
from ._progress import working
from ._table import booleans_as_numbers, read_table, table_options
from .evaluate import format_metrics, metrics
from .fit import DataError, as_categories, as_number, labels, split_target, target_for

__all__ = ["features_for", "load_model", "run_evaluate", "run_predict"]


def load_model(path):
    from ..io import load

    model = load(path)
    if not hasattr(model, "steps") or not hasattr(model, "feature_names_in_"):
        raise ModelFileError(f"{path} holds a {type(model).__name__}, not a model saved by lucidml fit")
    if not hasattr(model, "predict"):
        raise DataError(f"{type(model[-1]).__name__} cannot label new rows (it has no predict); its clusters are "
                        "those of the rows it was fitted on")
    return model


def features_for(model, frame, name, note):
    """The columns ``model`` was fitted on, taken from ``frame`` in that order (extra ones noted)."""
    expected = [str(c) for c in model.feature_names_in_]
    missing = [c for c in expected if c not in frame.columns]
    if missing:
        raise DataError(f"{name}: missing column(s) the model was fitted on: {', '.join(missing[:10])}")
    extra = [c for c in frame.columns if c not in expected]
    if extra:
        note(f"ignoring column(s) the model was not fitted on: {', '.join(map(str, extra[:10]))}")
    X = booleans_as_numbers(frame[expected])
    categorical = categorical_columns(model)
    for column in _columns(model, "numeric"):
        if X[column].dtype.kind not in "biuf":
            raise DataError(f"{name}: column {column!r} held numbers when the model was fitted; here it does not")
    return _known_categories(model, as_categories(X, categorical), categorical, note)


def _known_categories(model, X, categorical, note):
    """Categorical columns with a number written another way than in training ("2.0", "02" for the
    category "2") read as that category; categories the model never saw are noted (they are
    encoded as none of the known ones, or as the column's rare ones where it has them)."""
    if not categorical:
        return X
    encoder = model[0].named_transformers_["categorical"][-1]
    rare = getattr(encoder, "infrequent_categories_", [None] * len(categorical))  # (files before MAX_CATEGORIES)
    for column, categories, rare_ones in zip(categorical, encoder.categories_, rare):
        known = {str(k) for k in categories}
        by_number = {}
        for text in map(str, categories):  # (in the encoder's sorted order: "01" before "1", every run)
            number = as_number(text)
            if number is not None:
                by_number.setdefault(number, text)
        values = X[column]
        unseen = values.notna() & ~values.isin(known)
        if unseen.any() and by_number:
            X.loc[unseen, column] = values[unseen].map(lambda v: by_number.get(as_number(v), v))
            unseen = X[column].notna() & ~X[column].isin(known)
        if unseen.any():
            shown = ", ".join(repr(v) for v in X.loc[unseen, column].unique()[:3])
            counted = "with the rare categories" if rare_ones is not None else "as none of the known ones"
            note(f"column {column!r}: {int(unseen.sum())} row(s) hold a category the model never saw ({shown}); "
                 f"they count {counted}")
    return X


def categorical_columns(model):
    """The columns a pipeline saved by ``lucidml fit`` one-hot encodes."""
    return _columns(model, "categorical")


def _columns(model, kind):
    """The columns of a pipeline saved by ``lucidml fit`` that its preparation reads as ``kind``
    ("numeric" or "categorical"; the others, ids and free text, it leaves out)."""
    parts = getattr(model[0], "transformers_", [])  # a pipeline saved by lucidml fit starts with its preparation
    return [str(c) for part, _, columns in parts if part == kind for c in columns]


def run_predict(args, note):
    check_output(args.output, "-o", args.data, args.model)
    model = load_model(args.model)
    frame = read_table(args.data, **table_options(args, categorical_columns(model)))
    X = features_for(model, frame, args.data, note)
    import pandas as pd

    if args.proba and not hasattr(model, "predict_proba"):
        raise DataError(f"{type(model[-1]).__name__} gives no probabilities (--proba)")
    with working(sys.stderr, f"predicting {len(X):,} rows", quiet=args.quiet):
        out = pd.DataFrame({"prediction": model.predict(X)})
        if args.proba:
            for label, column in zip(model.classes_, model.predict_proba(X).T):
                out[f"probability of {label}"] = column
    if args.output:
        out.to_csv(args.output, index=False)
        note(f"wrote {len(out)} prediction(s) to {args.output}")
    else:
        out.to_csv(sys.stdout, index=False)


def run_evaluate(args, note):
    model = load_model(args.model)
    estimator = model[-1]
    kind = getattr(estimator, "_estimator_type", None) or type(estimator).__sklearn_tags__(estimator).estimator_type
    task = {"classifier": "classification", "regressor": "regression"}.get(kind, "clustering")
    if task != "clustering" and args.target is None:
        raise CliUsageError(f"evaluate needs --target: the column of {args.data} that holds the true values")
    frame = read_table(args.data, **table_options(args, categorical_columns(model)))
    X, y = split_target(frame, args.target, args.data, note)
    X = features_for(model, X, args.data, note)
    if task == "classification":
        y = labels(y)
    elif task == "regression":
        y = target_for(task, y, args.target, args.data)
    with working(sys.stderr, f"evaluating {type(estimator).__name__} on {X.shape[0]:,} rows", quiet=args.quiet):
        values = metrics(task, model, X, y, note)
    print(f"{type(estimator).__name__} on {args.data}: {task}, {X.shape[0]} rows")
    print(format_metrics(values))

