"""Categorical columns of a data frame as the integer codes of their categories (missing: NaN).

Histogram trees split a categorical column coded 0, 1, … like any ordered feature ("code ≤ t"),
as LightGBM and HistGradientBoosting do without native categories. The categories are fixed at
fit (read from the frame's dtype, or computed over the partitions when a dask frame does not
know them), and every later frame is coded against those same categories, whatever its own
dtype lists; a category not seen at fit is coded as missing.
"""

import dask.dataframe as dd
import numpy as np
import pandas as pd

__all__ = ["fit_categories", "encode_categories"]


def _categorical_columns(X):
    return [c for c, dtype in X.dtypes.items() if isinstance(dtype, pd.CategoricalDtype)]


def fit_categories(X):
    """{column: its categories (a pandas Index)} of the categorical columns of a (dask) data frame; {} otherwise."""
    if not isinstance(X, (pd.DataFrame, dd.DataFrame)):
        return {}
    categories = {}
    for column in _categorical_columns(X):
        series = X[column]
        if isinstance(X, dd.DataFrame) and not series.cat.known:
            # One pass over the column: the distinct values of its partitions, sorted where they sort
            # (their order depends on the partitions). Not dask's ``cat.as_known()``: with pandas 3 it
            # fails on its own union ("Categorical categories must be unique").
            values = series.astype(object).dropna().unique().compute()
            levels = pd.Index(pd.unique(np.asarray(values, dtype=object)), dtype=object)
            try:
                levels = levels.sort_values()
            except TypeError:
                pass
            categories[column] = levels
        else:
            categories[column] = series.cat.categories
    return categories


def _codes(frame, categories):
    """The frame with each categorical column replaced by float codes of ``categories`` (NaN: missing or unseen)."""
    frame = frame.copy()
    for column, levels in categories.items():
        codes = pd.Index(levels).get_indexer(np.asarray(frame[column], dtype=object)).astype(np.float64)
        codes[codes < 0] = np.nan  # missing, or a category not seen at fit
        frame[column] = codes
    return frame


def encode_categories(X, categories):
    """X with its categorical columns coded against the fitted ``categories``; other inputs unchanged."""
    if not categories or not isinstance(X, (pd.DataFrame, dd.DataFrame)):
        return X
    missing = [c for c in categories if c not in X.columns]
    if missing:
        raise ValueError(f"X lacks the categorical columns {missing} seen in fit.")
    if isinstance(X, pd.DataFrame):
        return _codes(X, categories)
    meta = _codes(X._meta, categories)
    return X.map_partitions(_codes, categories, meta=meta)
