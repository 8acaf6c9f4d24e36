"""``lucidml predict`` and ``lucidml evaluate``: use a model that ``lucidml fit`` saved.

The table's columns are checked against the ones the model was fitted on: a missing column is
an error, extra ones are ignored with a note, a column that held numbers must hold numbers.
``predict`` writes one prediction per row as CSV, with the labels as they were in the training
table (and, with ``--proba``, one probability column per class); ``evaluate`` prints the
metrics of ``lucidml.cli.evaluate`` against the table's target column.
"""

import sys

from ..io import ModelFileError
from ._progress import working
from ._table import read_table
from .evaluate import format_metrics, metrics
from .fit import DataError, as_categories, labels, split_target

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
    X = frame[expected]
    parts = getattr(model[0], "transformers_", [])  # a pipeline saved by lucidml fit starts with its preparation
    categorical = [c for part, _, columns in parts if part == "categorical" for c in columns]
    for column in expected:
        if column not in categorical and X[column].dtype.kind not in "biuf":
            raise DataError(f"{name}: column {column!r} held numbers when the model was fitted; here it does not")
    return as_categories(X, categorical)


def run_predict(args, note):
    model = load_model(args.model)
    frame = read_table(args.data, sep=args.sep, decimal=args.decimal, encoding=args.encoding)
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
    frame = read_table(args.data, sep=args.sep, decimal=args.decimal, encoding=args.encoding)
    X, y = split_target(frame, args.target, args.data, note)
    X = features_for(model, X, args.data, note)
    estimator = model[-1]
    kind = getattr(estimator, "_estimator_type", None) or type(estimator).__sklearn_tags__(estimator).estimator_type
    task = {"classifier": "classification", "regressor": "regression"}.get(kind, "clustering")
    if task == "classification":
        y = labels(y)
    with working(sys.stderr, f"evaluating {type(estimator).__name__} on {X.shape[0]:,} rows", quiet=args.quiet):
        values = metrics(task, model, X, y)
    print(f"{type(estimator).__name__} on {args.data}: {task}, {X.shape[0]} rows")
    print(format_metrics(values))
