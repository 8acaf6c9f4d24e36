"""Data sets by name: scikit-learn's bundled files, synthetic generators, and CSV files.

>>> from lucidml.datasets import load
>>> X, y = load("iris")
>>> X.shape, y.shape
((150, 4), (150,))
>>> X, y = load("moons", n_samples=50, noise=0.1, random_state=0)
>>> X.shape
(50, 2)
"""

import csv
import os
from dataclasses import dataclass, field

import numpy as np
from sklearn import datasets as _skd

__all__ = ["Dataset", "DatasetError", "infer_task", "list_datasets", "load", "load_dataset", "make_text_corpus"]

TASKS = ("classification", "regression")

# A target of integers with at most this many distinct values is taken as class labels.
MAX_CLASSES_FOR_INTEGER_TARGET = 20


class DatasetError(ValueError):
    """A data set cannot be loaded; the message says why in one line."""


@dataclass
class Dataset:
    """A loaded data set: features, target, and what kind of task the target poses."""

    name: str
    X: np.ndarray
    y: np.ndarray
    task: str
    feature_names: list = field(default_factory=list)


_BUNDLED = {
    "iris": (_skd.load_iris, "classification"),
    "wine": (_skd.load_wine, "classification"),
    "breast_cancer": (_skd.load_breast_cancer, "classification"),
    "digits": (_skd.load_digits, "classification"),
    "diabetes": (_skd.load_diabetes, "regression"),
}


def _moons(n_samples, n_features, noise, random_state):
    return _skd.make_moons(n_samples=n_samples, noise=0.2 if noise is None else noise, random_state=random_state)


def _circles(n_samples, n_features, noise, random_state):
    noise = 0.1 if noise is None else noise
    return _skd.make_circles(n_samples=n_samples, noise=noise, factor=0.5, random_state=random_state)


def _blobs(n_samples, n_features, noise, random_state):
    std = 1.0 if noise is None else noise
    return _skd.make_blobs(
        n_samples=n_samples, n_features=n_features or 2, centers=3, cluster_std=std, random_state=random_state
    )


def _classification(n_samples, n_features, noise, random_state):
    n_features = n_features or 20
    return _skd.make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=max(2, n_features // 2),
        n_redundant=min(2, n_features - max(2, n_features // 2)),
        flip_y=0.01 if noise is None else noise,
        random_state=random_state,
    )


def _multiclass(n_samples, n_features, noise, random_state):
    """Like ``classification`` with five classes (one Gaussian cluster each): multinomial models."""
    n_features = n_features or 20
    return _skd.make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=max(3, n_features // 2),
        n_redundant=min(2, n_features - max(3, n_features // 2)),
        n_classes=5,
        n_clusters_per_class=1,
        flip_y=0.01 if noise is None else noise,
        random_state=random_state,
    )


def _regression(n_samples, n_features, noise, random_state):
    return _skd.make_regression(
        n_samples=n_samples, n_features=n_features or 10, noise=10.0 if noise is None else noise, random_state=random_state
    )


def _counts(n_samples, n_features, noise, random_state):
    """Word counts of documents from 3 topics: each topic a Dirichlet draw over the vocabulary."""
    rng = np.random.default_rng(random_state)
    n_words = n_features or 50
    topics = rng.dirichlet(np.full(n_words, 1.0 if noise is None else noise), size=3)
    y = rng.integers(0, 3, size=n_samples)
    lengths = rng.poisson(50, size=n_samples) + 1
    X = np.array([rng.multinomial(n, topics[c]) for n, c in zip(lengths, y)], dtype=np.float64)
    return X, y


def _documents(n_samples, n_features, noise, random_state):
    """A sparse document–term count matrix (CSR) of documents on 5 topics, Zipf-like vocabulary.

    Each topic is a Dirichlet draw over the vocabulary tilted by a 1/rank prior, so a few words are
    frequent and most are rare, as in text; every document has about 100 words.
    """
    import scipy.sparse

    n_words = n_features or 1_000
    doc_of_word, words, y = _topic_words(n_samples, n_words, 5, 100, 0.1 if noise is None else noise, random_state)
    X = scipy.sparse.csr_matrix((np.ones(len(words)), (doc_of_word, words)), shape=(n_samples, n_words))
    X.sum_duplicates()
    return X, y


def _word_counts(n_samples, n_features, noise, random_state):
    """``documents`` as a dense array: a wide table of word counts (most entries zero)."""
    X, y = _documents(n_samples, n_features, noise, random_state)
    return X.toarray(), y


def _topic_words(n_documents, n_words, n_topics, mean_length, concentration, random_state):
    """Every word of every document at once: (document of each word, word ids, topic of each document).

    Topic t is a Dirichlet(concentration) draw over the vocabulary tilted by a 1/rank prior (Zipf's
    law); document i has 1 + Poisson(mean_length) words, all drawn from its topic.
    """
    rng = np.random.default_rng(random_state)
    prior = 1.0 / np.arange(1, n_words + 1)
    topics = rng.dirichlet(np.full(n_words, concentration), size=n_topics) * prior
    topics /= topics.sum(axis=1, keepdims=True)
    y = rng.integers(0, n_topics, size=n_documents)
    lengths = rng.poisson(mean_length, size=n_documents) + 1
    doc_of_word = np.repeat(np.arange(n_documents), lengths)
    cumulative = np.cumsum(topics, axis=1)
    words = np.empty(len(doc_of_word), dtype=np.int64)
    for topic in range(n_topics):
        mine = y[doc_of_word] == topic
        words[mine] = np.minimum(np.searchsorted(cumulative[topic], rng.random(mine.sum())), n_words - 1)
    return doc_of_word, words, y


def make_text_corpus(n_documents=1_000, *, n_words=2_000, n_topics=5, mean_length=60, concentration=0.5,
                     random_state=0):
    """A generated text collection for offline examples: ``(texts, topics)``.

    Every document is a string of made-up words ("w17 w3 w902 …") drawn from one of ``n_topics``
    topics, each a Dirichlet(``concentration``) distribution over ``n_words`` words tilted by
    Zipf's law (a few words are frequent, most are rare, and the frequent ones are shared by all
    topics, as function words are). Feed it to scikit-learn's ``CountVectorizer`` or
    ``TfidfVectorizer``; a larger ``concentration`` makes the topics closer and harder to tell apart.

    >>> texts, topics = make_text_corpus(3, n_words=50, mean_length=5, random_state=1)
    >>> len(texts), topics.shape
    (3, (3,))
    >>> texts[0].split()[0].startswith("w")
    True
    """
    doc_of_word, words, topics = _topic_words(n_documents, n_words, n_topics, mean_length, concentration,
                                              random_state)
    vocabulary = np.array([f"w{j}" for j in range(n_words)])
    bounds = np.searchsorted(doc_of_word, np.arange(n_documents + 1))
    texts = [" ".join(vocabulary[words[bounds[i]:bounds[i + 1]]]) for i in range(n_documents)]
    return texts, topics


def _images(n_samples, n_features, noise, random_state):
    """Square grey images of 10 classes, flattened to rows: a smooth random template per class,
    shifted by up to 2 pixels and corrupted by Gaussian noise. ``n_features`` is the pixel count
    (a perfect square; default 28 × 28 = 784)."""
    from scipy.ndimage import gaussian_filter

    rng = np.random.default_rng(random_state)
    side = int(round(np.sqrt(n_features or 784)))
    if side * side != (n_features or 784):
        raise DatasetError(f"images: n_features must be a perfect square, got {n_features}")
    templates = np.stack([gaussian_filter(rng.normal(size=(side, side)), sigma=side / 10) for _ in range(10)])
    templates /= templates.std(axis=(1, 2), keepdims=True)
    y = rng.integers(0, 10, size=n_samples)
    shifts = rng.integers(-2, 3, size=(n_samples, 2))
    X = np.empty((n_samples, side, side))
    for k in range(10):  # shift each class's template per sample with one roll per distinct shift
        for dy in range(-2, 3):
            for dx in range(-2, 3):
                rows = (y == k) & (shifts[:, 0] == dy) & (shifts[:, 1] == dx)
                X[rows] = np.roll(templates[k], (dy, dx), axis=(0, 1))
    X += rng.normal(scale=1.0 if noise is None else noise, size=X.shape)
    return X.reshape(n_samples, side * side), y


# name -> (generator, task, what `noise` means)
_SYNTHETIC = {
    "moons": (_moons, "classification", "std of Gaussian noise (0.2)"),
    "circles": (_circles, "classification", "std of Gaussian noise (0.1)"),
    "blobs": (_blobs, "classification", "cluster std (1.0)"),
    "classification": (_classification, "classification", "fraction of flipped labels (0.01)"),
    "multiclass": (_multiclass, "classification", "fraction of flipped labels (0.01)"),
    "regression": (_regression, "regression", "std of Gaussian noise on y (10.0)"),
    "counts": (_counts, "classification", "Dirichlet concentration of the topics (1.0; larger = closer topics)"),
    "documents": (_documents, "classification", "Dirichlet concentration of the topics (0.1); X is sparse CSR"),
    "word_counts": (_word_counts, "classification", "as documents, but X is a dense array"),
    "images": (_images, "classification", "std of the pixel noise (1.0)"),
}


def list_datasets():
    """Names of the bundled and synthetic data sets (a CSV path is accepted too)."""
    return sorted(_BUNDLED) + sorted(_SYNTHETIC)


def load(name, **options):
    """Load a data set and return ``(X, y)``; see :func:`load_dataset` for the options."""
    data = load_dataset(name, **options)
    return data.X, data.y


def load_dataset(name, *, target=None, task=None, n_samples=None, n_features=None, noise=None, random_state=0):
    """Load a data set by name, or a CSV file by path.

    Parameters
    ----------
    name : str
        A bundled set (``iris``, ``wine``, ``breast_cancer``, ``digits``, ``diabetes``), a
        synthetic one (``moons``, ``circles``, ``blobs``, ``classification``, ``multiclass``, ``regression``,
        ``counts``: word counts of documents on 3 topics, ``documents``: a sparse document–term
        matrix on 5 topics, ``word_counts``: the same as a dense array, ``images``: flattened
        square images of 10 classes), or the path of a
        CSV file with a header row.
    target : str, default=None
        For a CSV file: the name of the target column (required).
    task : {"classification", "regression"}, default=None
        Force the task; by default it is known (named sets) or inferred from the target
        (see :func:`infer_task`).
    n_samples, n_features : int, default=None
        Synthetic sets only: size (default 300 for moons/circles/blobs, 1000 otherwise) and,
        where it applies, number of features.
    noise : float, default=None
        Synthetic sets only; its meaning and default per generator are listed by
        ``lucidml.datasets._SYNTHETIC``.
    random_state : int, default=0
        Synthetic sets only: the seed of the generator.

    Returns
    -------
    Dataset
        With ``X`` (float array), ``y``, ``task`` and ``feature_names``.

    Raises
    ------
    DatasetError
        Unknown name, missing file, missing target column, non-numeric feature column.
    """
    if task is not None and task not in TASKS:
        raise DatasetError(f"task must be one of {', '.join(TASKS)}; got {task!r}")
    key = str(name).lower()
    if key in _BUNDLED:
        loader, known_task = _BUNDLED[key]
        bunch = loader()
        data = Dataset(key, bunch.data.astype(np.float64), bunch.target, known_task, list(bunch.feature_names))
    elif key in _SYNTHETIC:
        generator, known_task, _ = _SYNTHETIC[key]
        default_size = 300 if key in ("moons", "circles", "blobs") else 1000
        X, y = generator(n_samples or default_size, n_features, noise, random_state)
        data = Dataset(key, X, y, known_task, [f"x{j}" for j in range(X.shape[1])])
    elif os.path.splitext(str(name))[1].lower() == ".csv" or os.path.exists(str(name)):
        data = _load_csv(str(name), target)
    else:
        raise DatasetError(
            f"unknown data set {name!r}: use one of {', '.join(list_datasets())}, or the path of a CSV file"
        )
    if task is not None:
        data.task = task
    if data.task == "regression":
        try:
            data.y = data.y.astype(np.float64)
        except ValueError:
            raise DatasetError(f"{data.name}: the target is not numeric, so it cannot be a regression target") from None
    return data


def infer_task(y):
    """``"classification"`` for strings, booleans or a few distinct integers; else ``"regression"``.

    A numeric target whose values are all integers and take at most
    ``MAX_CLASSES_FOR_INTEGER_TARGET`` (20) distinct values is taken as class labels.
    """
    y = np.asarray(y)
    if y.dtype.kind in "OUSb":
        return "classification"
    integral = np.all(np.isfinite(y)) and np.all(y == np.round(y))
    if integral and len(np.unique(y)) <= MAX_CLASSES_FOR_INTEGER_TARGET:
        return "classification"
    return "regression"


def _load_csv(path, target):
    if not os.path.isfile(path):
        raise DatasetError(f"no such file: {path}")
    if target is None:
        raise DatasetError(f"{path}: name the target column (target=... / --target COLUMN)")
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        raise DatasetError(f"{path}: the file is empty")
    header, body = [h.strip() for h in rows[0]], [r for r in rows[1:] if any(cell.strip() for cell in r)]
    if target not in header:
        raise DatasetError(f"{path}: no column named {target!r}; columns are {', '.join(header)}")
    if not body:
        raise DatasetError(f"{path}: the file has a header but no data rows")
    for line_number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise DatasetError(f"{path}, line {line_number}: {len(row)} fields where the header has {len(header)}")
    t = header.index(target)
    features = [j for j in range(len(header)) if j != t]
    X = np.empty((len(body), len(features)))
    for k, j in enumerate(features):
        X[:, k] = _numeric_column(path, header[j], [row[j] for row in body])
    target_cells = [row[t].strip() for row in body]
    missing = [i + 2 for i, cell in enumerate(target_cells) if cell.lower() in _MISSING]
    if missing:
        raise DatasetError(f"{path}: the target column {target!r} has missing values (line {missing[0]})")
    y = _target_column(target_cells)
    return Dataset(os.path.basename(path), X, y, infer_task(y), [header[j] for j in features])


_MISSING = {"", "na", "nan", "null", "none"}


def _numeric_column(path, name, cells):
    values = np.empty(len(cells))
    for i, cell in enumerate(cells):
        cell = cell.strip()
        if cell.lower() in _MISSING:
            values[i] = np.nan
            continue
        try:
            values[i] = float(cell)
        except ValueError:
            raise DatasetError(
                f"{path}: feature column {name!r} is not numeric (line {i + 2}: {cell!r}); "
                "encode it as numbers or drop it"
            ) from None
    return values


def _target_column(cells):
    lowered = {c.lower() for c in cells}
    if lowered <= {"true", "false"}:
        return np.array([c.lower() == "true" for c in cells])
    try:
        values = np.array([float(c) for c in cells])
    except ValueError:
        return np.array(cells)  # string class labels
    if np.all(values == np.round(values)) and np.all(np.abs(values) < 2**53):
        return values.astype(np.int64)
    return values
