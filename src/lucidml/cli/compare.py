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

The splits, fits, scores, times and the vote are those of one engine,
:func:`lucidml.model_selection.compare_models`; this module chooses the models, prepares the
data for each and turns the result into rows. Each scikit-learn counterpart is fitted on the
very same splits, right after its lucidml model. Each model's first fit, on the first split, is
a warm-up and is not timed (it loads compiled code). On a machine that has not compiled a
model's kernels yet, its small fits may run interpreted (``lucidml.utils._numba``); such a row
is marked, since its times are not those of the compiled code (``lucidml warmup`` compiles
every kernel once).

For classification, the notes' hard-voting ensemble (seed 002 §1.4) is scored too: the
majority vote of the lucidml models that ran, beside the vote of their scikit-learn
counterparts; its times are those of fitting and running all its members.
"""

import warnings

import numpy as np
import scipy.sparse
from sklearn.preprocessing import MaxAbsScaler
from sklearn.utils import get_tags

from ..model_selection import compare_models, comparison_splits
from ..model_selection.comparison import VOTE
from ..registry import entries, get_entry
from ..utils._numba import interpreted_calls
from ._limits import MAX_FEATURES
from ._pipeline import KINDS, SCALE_FREE, CliUsageError, preprocessor
from .fit import DataError

__all__ = ["compare", "select_models"]

_THEIRS = "scikit-learn "  # prefix of the scikit-learn counterparts' names in the engine


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
        Called as each model starts, and once at the end (for a progress bar).

    Returns
    -------
    dict
        The protocol, and per model: lucidml's and scikit-learn's mean and std score (accuracy
        in percent, R² as is), mean seconds of fit + predict per run, median seconds of the fit
        alone, the time ratio lucidml / scikit-learn (of fit + predict), and any error; under
        ``hard_vote`` (classification, two models or more; else None) the same figures for the
        majority vote, with its ``members``.
    """
    y = np.asarray(data.y)
    classification = data.task == "classification"
    try:
        splits = comparison_splits(y, n_splits=runs, train_size=train_size, cv=cv, stratify=classification,
                                   random_state=seed)
    except ValueError as error:
        raise DataError(f"{data.name}: cannot split the data ({error})") from None
    X, steps, n_features = _preparations(data, splits)
    reasons, estimators, prepare = {}, {}, {}
    for entry in models:
        reasons[entry.name] = _skip_reason(entry, n_features, scipy.sparse.issparse(X))
        if reasons[entry.name] is None:
            sides = [(entry.name, entry.make)] + ([(_THEIRS + entry.name, entry.make_sklearn)] if entry.sklearn else [])
            for name, make in sides:
                estimators[name], prepare[name] = make(), steps[entry.name not in SCALE_FREE]
    votes = {}
    for vote, side in ((VOTE, ""), (_THEIRS + VOTE, _THEIRS)):
        members = [side + entry.name for entry in models if side + entry.name in estimators]
        if classification and len(members) >= 2:
            votes[vote] = members
    metric, unit = ("accuracy", 100.0) if classification else ("r2", 1.0)
    result, interpreted = _run(estimators, X, y, splits, prepare, votes, metric, models, progress)
    figures = {name: _figures(result, name, unit, interpreted) for name in result.scores} if result else {}
    rows = []
    for entry in models:
        ours = {"error": reasons[entry.name]} if reasons[entry.name] else figures[entry.name]
        theirs = figures.get(_THEIRS + entry.name)
        rows.append({"model": entry.name, **ours, "sklearn": entry.sklearn, "sklearn_result": theirs,
                     "ratio": _ratio(ours, theirs)})
    hard_vote = None
    if VOTE in votes:
        hard_vote = {"model": VOTE, **figures[VOTE], "members": result.voters.get(VOTE, [])}
        theirs = figures.get(_THEIRS + VOTE)
        if theirs is not None:
            theirs["members"] = [name[len(_THEIRS):] for name in result.voters.get(_THEIRS + VOTE, [])]
        hard_vote.update(sklearn_result=theirs, ratio=_ratio(hard_vote, theirs))
    return {
        "dataset": data.name,
        "task": data.task,
        "metric": metric,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "runs": len(splits),
        "cv": cv,
        "train_size": None if cv else train_size,
        "seed": seed,
        "models": rows,
        "hard_vote": hard_vote,
    }


def _as_frame(X, names):
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        return X
    return pd.DataFrame(np.asarray(X), columns=[str(n) for n in names] if len(names) == X.shape[1] else None)


def _preparations(data, splits):
    """X as the engine takes it, the preparation without and with scaling, and the prepared width.

    A table is filled and encoded (``preprocessor``); a sparse matrix is left as it is, or divided
    by each feature's largest absolute value, which keeps zeros zero.
    """
    if scipy.sparse.issparse(data.X):
        X = scipy.sparse.csr_matrix(data.X)
        return X, {False: None, True: MaxAbsScaler()}, X.shape[1]
    frame = _as_frame(data.X, data.feature_names)
    steps = {False: preprocessor(frame, False), True: preprocessor(frame, True)}
    train = frame.iloc[splits[0][0]]
    width = steps[False].fit(train).transform(train.iloc[:1]).shape[1]  # after one-hot encoding
    return frame, steps, width


def _skip_reason(entry, n_features, sparse):
    """Why a model is not run on this data set, or None."""
    limit = MAX_FEATURES.get(entry.name)
    if limit is not None and n_features > limit:
        return f"skipped: {n_features:,} features, it takes at most {limit:,}"
    if sparse and not get_tags(entry.make()).input_tags.sparse:
        return "skipped: it takes dense data only, and this data set is sparse"
    return None


def _run(estimators, X, y, splits, prepare, votes, metric, models, progress):
    """:func:`~lucidml.model_selection.compare_models` on the splits, and which models ran interpreted."""
    positions = {entry.name: i for i, entry in enumerate(models)}
    started = []  # (model name, interpreted calls so far) as each model starts

    def starting(done, total, name):
        started.append((name, interpreted_calls()))
        if progress is not None and name in positions:
            progress(positions[name], len(models), name)

    result = None
    if estimators:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence chatter, failed fits: the rows say it
            result = compare_models(estimators, X, y, cv=splits, scoring=metric, voting=votes, prepare=prepare,
                                    warm_up=True, error_score=np.nan, progress=starting)
    ends = [count for _, count in started[1:]] + [interpreted_calls()]
    interpreted = {name: end > count for (name, count), end in zip(started, ends)}
    if progress is not None:
        progress(len(models), len(models), "done")
    return result, interpreted


def _figures(result, name, unit, interpreted):
    """One side of a row: mean and std score, mean seconds of fit + predict, median fit seconds."""
    if name in result.errors:
        return {"error": result.errors[name]}
    scores, fit_seconds = result.scores[name], result.fit_times[name]
    return {
        "mean": float(unit * scores.mean()),
        "std": float(unit * scores.std()),
        "seconds_per_run": float((fit_seconds + result.predict_times[name]).mean()),
        "median_fit_seconds": float(np.median(fit_seconds)),
        "interpreted": any(interpreted.get(member, False) for member in result.voters.get(name, [name])),
        "error": None,
    }


def _ratio(ours, theirs):
    """Seconds per run, lucidml / scikit-learn, where both ran."""
    if theirs and not ours["error"] and not theirs["error"]:
        return ours["seconds_per_run"] / theirs["seconds_per_run"]
    return None
