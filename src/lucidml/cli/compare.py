"""``lucidml compare``: every registered model beside its scikit-learn counterpart.

The protocol is the repeated random split of seed 002 §1.4: ``runs`` splits of the data into a
training part (``train_size``) and a test part, stratified by class for classification, split
i drawn with ``random_state = seed + i``; each model is fitted on the training part and scored
on the test part (accuracy for classification, R² for regression), and the mean and the
(population) standard deviation over the splits are reported (accuracy in percent). With
``runs=50, train_size=0.7, seed=0`` this is exactly the notes' ``multi_run``. With ``cv=K``
the splits are instead the K folds of a (stratified) K-fold cross-validation.

Both libraries see the same prepared data: on each split, missing values are filled and text
categories one-hot encoded (``_pipeline.preprocessor``), fitted on the training part only, and
the features are standardized for every model that depends on their scale (the same for the
scikit-learn side). Preparing is not timed: times are the models' fit + predict per split.

A sparse data set (a SciPy matrix, e.g. the bundled ``documents``) stays sparse: it needs no
filling or encoding, the scale-dependent models get it divided by each feature's largest
absolute value (``MaxAbsScaler``, which keeps zeros zero), and the models that take only dense
input are listed as skipped rather than handed a densified matrix.

Each scikit-learn counterpart is fitted on the very same splits, alternating with lucidml run by
run. Each model's first fit, on the first split, is a warm-up and is not timed (it loads
compiled code). On a machine that has not compiled a model's kernels yet, its small fits may run
interpreted (``lucidml.utils._numba``); such a row is marked, since its times are not those of
the compiled code (``lucidml warmup`` compiles every kernel once).
"""

import time
import warnings

import numpy as np
import scipy.sparse
from sklearn.base import clone
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import get_tags

from ..registry import entries, get_entry
from ..utils._numba import interpreted_calls
from ._limits import MAX_FEATURES
from ._pipeline import KINDS, SCALE_FREE, CliUsageError, preprocessor
from .fit import DataError

__all__ = ["compare", "select_models"]



def select_models(task, names=None):
    """The registry entries to compare for ``task``: all of its kind, or those ``names``."""
    kind = KINDS[task]
    if not names:
        return entries(kind)
    selected = []
    for name in names:
        try:
            entry = get_entry(name)
        except KeyError as error:
            raise CliUsageError(error.args[0]) from None
        if entry.kind != kind:
            raise CliUsageError(f"{entry.name} is a {entry.kind}; a {task} data set needs a {kind}")
        selected.append(entry)
    return selected


def _as_frame(X, names):
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        return X
    return pd.DataFrame(np.asarray(X), columns=[str(n) for n in names] if len(names) == X.shape[1] else None)


def _splits(data, runs, train_size, seed, cv):
    """(train indices, test indices) of each split."""
    from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

    classification = data.task == "classification"
    n = len(data.y)
    try:
        if cv:
            folds = (StratifiedKFold if classification else KFold)(n_splits=cv, shuffle=True, random_state=seed)
            return list(folds.split(np.zeros(n), data.y))
        stratify = data.y if classification else None
        return [train_test_split(np.arange(n), train_size=train_size, random_state=seed + i, stratify=stratify)
                for i in range(runs)]
    except ValueError as error:
        raise DataError(f"{data.name}: cannot split the data ({error})") from None


def _prepare(frame, y, splits):
    """Per split, the prepared (X_train, X_test, y_train, y_test) without and with scaling."""
    prepared = {False: [], True: []}
    for train, test in splits:
        for scale in (False, True):
            step = preprocessor(frame, scale).fit(frame.iloc[train])
            prepared[scale].append((step.transform(frame.iloc[train]), step.transform(frame.iloc[test]),
                                    y[train], y[test]))
    return prepared


def _prepare_sparse(X, y, splits):
    """As :func:`_prepare` for a sparse X: no filling or encoding; max-abs scaling keeps it sparse."""
    from sklearn.preprocessing import MaxAbsScaler

    prepared = {False: [], True: []}
    for train, test in splits:
        prepared[False].append((X[train], X[test], y[train], y[test]))
        scaler = MaxAbsScaler().fit(X[train])
        prepared[True].append((scaler.transform(X[train]), scaler.transform(X[test]), y[train], y[test]))
    return prepared


def _fit_score(estimator, split, score):
    """Fit on the training part, score on the test part; return (score, fit + predict seconds, fit seconds)."""
    X_train, X_test, y_train, y_test = split
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter would break the table
        estimator.fit(X_train, y_train)
        fitted = time.perf_counter()
        predicted = estimator.predict(X_test)
    done = time.perf_counter()
    return score(y_test, predicted), done - start, fitted - start


def _evaluate(estimator, splits, score, unit):
    """Scores and times over ``splits`` for one estimator, or the error that stopped it."""
    try:
        _fit_score(clone(estimator), splits[0], score)  # warm-up: compilation, caches
        before = interpreted_calls()
        results = [_fit_score(clone(estimator), split, score) for split in splits]
    except Exception as error:  # noqa: BLE001 - a failing model is reported in its row
        return {"error": f"{type(error).__name__}: {error}"}
    scores, seconds, fit_seconds = np.array(results).T
    return {
        "mean": float(unit * scores.mean()),
        "std": float(unit * scores.std()),
        "seconds_per_run": float(seconds.mean()),
        "median_fit_seconds": float(np.median(fit_seconds)),
        "interpreted": interpreted_calls() > before,
        "error": None,
    }


def compare(data, models, runs=10, train_size=0.7, seed=0, progress=None, cv=None):
    """Run the repeated-split (or K-fold) comparison.

    Parameters
    ----------
    data : lucidml.datasets.Dataset
        ``X`` may be an array or a pandas DataFrame (with text columns and missing values).
    models : list of EstimatorEntry
    runs, train_size, seed, cv :
        The protocol (see the module docstring); ``cv`` replaces the random splits.
    progress : callable(done, total, label), optional
        Called as each model finishes (for a progress bar).

    Returns
    -------
    dict
        The protocol, and per model: lucidml's and scikit-learn's mean and std score (accuracy
        in percent, R² as is), mean seconds of fit + predict per run, median seconds of the fit
        alone, the time ratio lucidml / scikit-learn (of fit + predict), and any error.
    """
    y = np.asarray(data.y)
    splits = _splits(data, runs, train_size, seed, cv)
    sparse = scipy.sparse.issparse(data.X)
    if sparse:
        X = scipy.sparse.csr_matrix(data.X)
        prepared, shape = _prepare_sparse(X, y, splits), X.shape
    else:
        frame = _as_frame(data.X, data.feature_names)
        prepared, shape = _prepare(frame, y, splits), frame.shape
    n_features = prepared[False][0][0].shape[1]
    classification = data.task == "classification"
    metric, score, unit = ("accuracy", accuracy_score, 100.0) if classification else ("r2", r2_score, 1.0)
    rows = []
    for done, entry in enumerate(models):
        if progress is not None:
            progress(done, len(models), entry.name)
        limit = MAX_FEATURES.get(entry.name)
        reason = None
        if limit is not None and n_features > limit:
            reason = f"skipped: {n_features:,} features, it takes at most {limit:,}"
        elif sparse and not get_tags(entry.make()).input_tags.sparse:
            reason = "skipped: it takes dense data only, and this data set is sparse"
        if reason is not None:
            skipped = {"error": reason}
            rows.append({"model": entry.name, **skipped, "sklearn": entry.sklearn, "sklearn_result": None,
                         "ratio": None})
            continue
        runs_of = prepared[entry.name not in SCALE_FREE]
        ours = _evaluate(entry.make(), runs_of, score, unit)
        theirs = _evaluate(entry.make_sklearn(), runs_of, score, unit) if entry.sklearn else None
        row = {"model": entry.name, **ours, "sklearn": entry.sklearn, "sklearn_result": theirs, "ratio": None}
        if theirs and not ours["error"] and not theirs["error"]:
            row["ratio"] = ours["seconds_per_run"] / theirs["seconds_per_run"]
        rows.append(row)
    if progress is not None:
        progress(len(models), len(models), "done")
    return {
        "dataset": data.name,
        "task": data.task,
        "metric": metric,
        "n_samples": int(shape[0]),
        "n_features": int(shape[1]),
        "runs": len(splits),
        "cv": cv,
        "train_size": None if cv else train_size,
        "seed": seed,
        "models": rows,
    }
