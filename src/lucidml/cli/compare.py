"""``lucidml compare``: every registered model beside its scikit-learn counterpart.

The protocol is the repeated random split of seed 002 §1.4: ``runs`` splits of the data into a
training part (``train_size``) and a test part, stratified by class for classification, split
i drawn with ``random_state = seed + i``; each model is fitted on the training part and scored
on the test part (accuracy for classification, R² for regression), and the mean and the
(population) standard deviation over the splits are reported in percent. With
``runs=50, train_size=0.7, seed=0`` this is exactly the notes' ``multi_run``.

Each scikit-learn counterpart is fitted on the very same splits, alternating with lucidml run by
run. Times are fit + predict per run; each model's first fit, on the first split, is a warm-up
and is not timed (it loads compiled code). On a machine that has not compiled a model's kernels
yet, its small fits may run interpreted (``lucidml.utils._numba``); such a row is marked, since
its times are not those of the compiled code (``lucidml warmup`` compiles every kernel once).
"""

import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.metrics import accuracy_score, r2_score
from sklearn.model_selection import train_test_split

from ..datasets import DatasetError
from ..registry import entries, get_entry
from ..utils._numba import interpreted_calls
from ._pipeline import CliUsageError

__all__ = ["compare", "select_models"]


def select_models(task, names=None):
    """The registry entries to compare for ``task``: all of its kind, or those ``names``."""
    kind = "classifier" if task == "classification" else "regressor"
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


def _splits(data, runs, train_size, seed):
    stratify = data.y if data.task == "classification" else None
    try:
        return [
            train_test_split(data.X, data.y, train_size=train_size, random_state=seed + i, stratify=stratify)
            for i in range(runs)
        ]
    except ValueError as error:
        raise DatasetError(f"{data.name}: cannot split the data ({error})") from None


def _fit_score(estimator, split, score):
    """Fit on the training part, score on the test part; return (score, seconds)."""
    X_train, X_test, y_train, y_test = split
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter would break the table
        estimator.fit(X_train, y_train)
        predicted = estimator.predict(X_test)
    seconds = time.perf_counter() - start
    return score(y_test, predicted), seconds


def _evaluate(estimator, splits, score):
    """Scores and times over ``splits`` for one estimator, or the error that stopped it."""
    try:
        _fit_score(clone(estimator), splits[0], score)  # warm-up: compilation, caches
        before = interpreted_calls()
        results = [_fit_score(clone(estimator), split, score) for split in splits]
    except Exception as error:  # noqa: BLE001 - a failing model is reported in its row
        return {"error": f"{type(error).__name__}: {error}"}
    scores, seconds = np.array(results).T
    return {
        "mean": float(100 * scores.mean()),
        "std": float(100 * scores.std()),
        "seconds_per_run": float(seconds.mean()),
        "interpreted": interpreted_calls() > before,
        "error": None,
    }


def compare(data, models, runs=10, train_size=0.7, seed=0, progress=None):
    """Run the repeated-split comparison.

    Parameters
    ----------
    data : lucidml.datasets.Dataset
    models : list of EstimatorEntry
    runs, train_size, seed :
        The protocol (see the module docstring).
    progress : callable(done, total, label), optional
        Called as each model finishes (for a progress bar).

    Returns
    -------
    dict
        The protocol, and per model: lucidml's and scikit-learn's mean and std score (in
        percent), seconds per run, the time ratio lucidml / scikit-learn, and any error.
    """
    splits = _splits(data, runs, train_size, seed)
    metric, score = ("accuracy", accuracy_score) if data.task == "classification" else ("r2", r2_score)
    rows = []
    for done, entry in enumerate(models):
        if progress is not None:
            progress(done, len(models), entry.name)
        ours = _evaluate(entry.make(), splits, score)
        theirs = _evaluate(entry.make_sklearn(), splits, score) if entry.sklearn else None
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
        "n_samples": int(data.X.shape[0]),
        "n_features": int(data.X.shape[1]),
        "runs": runs,
        "train_size": train_size,
        "seed": seed,
        "models": rows,
    }
