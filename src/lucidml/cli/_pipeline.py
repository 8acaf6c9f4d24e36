"""The model ``lucidml fit`` trains: preprocessing of a table's columns, then a lucidml estimator.

Columns of numbers (and booleans) are *numeric*: missing values get the column's median, and,
for a model that depends on the features' scale, they are standardized. Every other column is
*categorical*: missing values become their own category and each category a 0/1 column
(categories unseen in training are ignored when predicting). Both sides are one scikit-learn
``Pipeline`` (``ColumnTransformer`` → model), which ``lucidml.io`` saves and loads.
"""

import ast

import numpy as np

from ..datasets import infer_task
from ..registry import entries, get_entry

__all__ = ["DEFAULT_MODELS", "KINDS", "SCALE_FREE", "CliUsageError", "build_pipeline", "column_kinds", "parse_params",
           "preprocessor", "task_of"]

DEFAULT_MODELS = {"classification": "RandomForestClassifier", "regression": "RandomForestRegressor",
                  "clustering": "KMeans"}
# Models whose answers do not change when a feature is rescaled (or that need the raw counts).
SCALE_FREE = {"DecisionTreeClassifier", "DecisionTreeRegressor", "RandomForestClassifier", "RandomForestRegressor",
              "BaggingClassifier", "BaggingRegressor", "AdaBoostClassifier", "GradientBoostingClassifier",
              "GradientBoostingRegressor", "GaussianNB", "MultinomialNB", "BernoulliNB"}
KINDS = {"classification": "classifier", "regression": "regressor", "clustering": "cluster"}


class CliUsageError(ValueError):
    """A request that cannot be carried out as asked (a wrong model name or parameter)."""


def task_of(y, task=None):
    """The task a target poses: given, or inferred (``lucidml.datasets.infer_task``)."""
    return task or infer_task(y)


def column_kinds(frame):
    """(numeric columns, categorical columns) of a DataFrame, in table order."""
    import pandas as pd

    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c])]
    categorical = [c for c in frame.columns if c not in numeric]
    return numeric, categorical


def parse_params(pairs):
    """``["C=10", "kernel=rbf"]`` → ``{"C": 10, "kernel": "rbf"}`` (Python literals, else strings)."""
    params = {}
    for pair in pairs or ():
        key, sep, text = pair.partition("=")
        if not sep or not key.strip().isidentifier():
            raise CliUsageError(f"--param needs KEY=VALUE, got {pair!r}")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = text.strip()
        params[key.strip()] = value
    return params


def choose_model(task, name=None):
    """The registry entry of model ``name`` (or the task's default), checked against the task."""
    name = name or DEFAULT_MODELS[task]
    try:
        entry = get_entry(name)
    except KeyError:
        known = ", ".join(e.name for e in entries(KINDS[task]))
        raise CliUsageError(f"unknown model {name!r}; for {task} choose one of: {known}") from None
    if entry.kind != KINDS[task]:
        raise CliUsageError(f"{entry.name} is a {entry.kind}, but this is a {task} task")
    return entry


def build_pipeline(frame, entry, params, seed):
    """The unfitted Pipeline for the feature columns of ``frame`` and the model of ``entry``."""
    from sklearn.pipeline import Pipeline

    model = entry.load()()
    unknown = set(params) - set(model.get_params())
    if unknown:
        raise CliUsageError(f"{entry.name} has no parameter {sorted(unknown)[0]!r}; "
                            f"its parameters are {', '.join(sorted(model.get_params()))}")
    if "random_state" in model.get_params() and "random_state" not in params:
        params = {**params, "random_state": seed}
    model.set_params(**params)
    return Pipeline([("prepare", preprocessor(frame, scale=entry.name not in SCALE_FREE)), ("model", model)])


def preprocessor(frame, scale):
    """The unfitted ColumnTransformer for ``frame``'s columns (see the module docstring)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    numeric, categorical = column_kinds(frame)
    numbers = [SimpleImputer(strategy="median", keep_empty_features=True)] + ([StandardScaler()] if scale else [])
    parts = []
    if numeric:
        parts.append(("numeric", make_pipeline(*numbers), numeric))
    if categorical:
        categories = make_pipeline(SimpleImputer(strategy="constant", fill_value="(missing)"),
                                   OneHotEncoder(handle_unknown="ignore", sparse_output=False, dtype=np.float64))
        parts.append(("categorical", categories, categorical))
    return ColumnTransformer(parts, remainder="drop", verbose_feature_names_out=False)
