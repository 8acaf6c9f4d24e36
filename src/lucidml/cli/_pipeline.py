"""The model ``lucidml fit`` trains: preprocessing of a table's columns, then a lucidml estimator.

Columns of numbers (and booleans) are *numeric*: missing values get the column's median, and,
for a model that depends on the features' scale, they are standardized. Every other column is
*categorical*: missing values become their own category and each category a 0/1 column, at
most :data:`MAX_CATEGORIES` per column (the rarer ones share the last); a category unseen in
training counts as a rare one when predicting, or, where the column has none, is ignored. A
text column whose values are nearly all different (an id, a name, free text: more than half of
its rows and :data:`MAX_CATEGORIES` distinct values) is left out: its 0/1 columns would number
as its rows, and tell nothing of new ones. Both sides are one scikit-learn ``Pipeline``
(``ColumnTransformer`` → model), which ``lucidml.io`` saves and loads.
"""

import ast

import numpy as np

from ..datasets import infer_task
from ..registry import entries, get_entry

__all__ = ["DEFAULT_MODELS", "KINDS", "MAX_CATEGORIES", "SCALE_FREE", "CliUsageError", "build_pipeline", "column_kinds",
           "identifier_columns", "parse_params", "preprocessor", "task_of"]

DEFAULT_MODELS = {"classification": "RandomForestClassifier", "regression": "RandomForestRegressor",
                  "clustering": "KMeans"}
# Models whose answers do not change when a feature is rescaled (or that need the raw counts).
SCALE_FREE = {"DecisionTreeClassifier", "DecisionTreeRegressor", "RandomForestClassifier", "RandomForestRegressor",
              "BaggingClassifier", "BaggingRegressor", "AdaBoostClassifier", "GradientBoostingClassifier",
              "GradientBoostingRegressor", "GaussianNB", "MultinomialNB", "BernoulliNB"}
KINDS = {"classification": "classifier", "regression": "regressor", "clustering": "cluster"}
# 0/1 columns of one categorical column at most (the rarer categories share the last).
MAX_CATEGORIES = 100


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


def identifier_columns(frame, categorical):
    """The categorical columns of ``frame`` whose values are nearly all different (see the module
    docstring): more than half of their non-missing rows, and more than MAX_CATEGORIES, distinct."""
    found = []
    for column in categorical:
        values = frame[column].dropna()
        distinct = values.nunique()
        if distinct > MAX_CATEGORIES and distinct > 0.5 * len(values):
            found.append(column)
    return found


def build_pipeline(frame, entry, params, seed, note=None):
    """The unfitted Pipeline for the feature columns of ``frame`` and the model of ``entry``;
    ``note(text)`` hears of the columns left out."""
    from sklearn.pipeline import Pipeline

    model = entry.load()()
    unknown = set(params) - set(model.get_params())
    if unknown:
        raise CliUsageError(f"{entry.name} has no parameter {sorted(unknown)[0]!r}; "
                            f"its parameters are {', '.join(sorted(model.get_params()))}")
    if "random_state" in model.get_params() and "random_state" not in params:
        params = {**params, "random_state": seed}
    model.set_params(**params)
    return Pipeline([("prepare", preprocessor(frame, scale=entry.name not in SCALE_FREE, note=note)),
                     ("model", model)])


def preprocessor(frame, scale, note=None):
    """The unfitted ColumnTransformer for ``frame``'s columns (see the module docstring);
    ``note(text)`` hears of the columns left out."""
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    numeric, categorical = column_kinds(frame)
    identifiers = identifier_columns(frame, categorical)
    if identifiers:
        categorical = [column for column in categorical if column not in identifiers]
        if note is not None:
            note(f"left out {len(identifiers)} text column(s) whose values are nearly all different (an id or free "
                 f"text?): {', '.join(map(str, identifiers[:5]))}{', …' if len(identifiers) > 5 else ''}")
    numbers = [SimpleImputer(strategy="median", keep_empty_features=True)] + ([StandardScaler()] if scale else [])
    parts = []
    if numeric:
        parts.append(("numeric", make_pipeline(*numbers), numeric))
    if categorical:
        categories = make_pipeline(SimpleImputer(strategy="constant", fill_value="(missing)"),
                                   OneHotEncoder(handle_unknown="infrequent_if_exist", sparse_output=False,
                                                 dtype=np.float64, max_categories=MAX_CATEGORIES))
        parts.append(("categorical", categories, categorical))
    return ColumnTransformer(parts, remainder="drop", verbose_feature_names_out=False)
