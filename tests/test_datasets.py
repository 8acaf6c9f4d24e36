"""lucidml.datasets: bundled, synthetic and CSV data, and the errors for each bad input."""

import numpy as np
import pytest
import scipy.sparse
from sklearn import datasets as skd

from lucidml.datasets import DatasetError, infer_task, list_datasets, load, load_dataset


@pytest.mark.parametrize(
    "name, loader, task",
    [
        ("iris", skd.load_iris, "classification"),
        ("wine", skd.load_wine, "classification"),
        ("breast_cancer", skd.load_breast_cancer, "classification"),
        ("digits", skd.load_digits, "classification"),
        ("diabetes", skd.load_diabetes, "regression"),
    ],
)
def test_bundled_sets_are_scikit_learns(name, loader, task):
    data = load_dataset(name)
    reference = loader()
    np.testing.assert_array_equal(data.X, reference.data)
    np.testing.assert_array_equal(data.y, reference.target)
    assert data.task == task
    assert data.feature_names == list(reference.feature_names)


def _dense(X):
    return X.toarray() if scipy.sparse.issparse(X) else X


@pytest.mark.parametrize(
    "name", ["moons", "circles", "blobs", "classification", "regression", "counts", "documents", "word_counts",
             "images"]
)
def test_synthetic_sets_honour_size_seed_and_noise(name):
    X, y = load(name, n_samples=120, random_state=3)
    assert X.shape[0] == y.shape[0] == 120
    X2, y2 = load(name, n_samples=120, random_state=3)
    np.testing.assert_array_equal(_dense(X), _dense(X2))
    X3, _ = load(name, n_samples=120, random_state=4)
    assert not np.array_equal(_dense(X), _dense(X3))
    X4, y4 = load(name, n_samples=120, random_state=3, noise=0.5)
    assert not (np.array_equal(_dense(X), _dense(X4)) and np.array_equal(y, y4))


def test_documents_are_sparse_counts_and_images_are_learnable():
    X, y = load("documents", n_samples=300, n_features=500)
    assert scipy.sparse.issparse(X) and X.shape == (300, 500) and set(y) == set(range(5))
    assert np.all(X.data >= 1) and np.all(X.data == np.round(X.data))
    assert 50 < X.sum(axis=1).mean() < 150  # about 100 words per document
    X, y = load("images", n_samples=600)
    assert X.shape == (600, 784) and set(y) == set(range(10))
    # The classes are separable from the pixels (a linear model learns them well above chance).
    from sklearn.linear_model import RidgeClassifier

    assert RidgeClassifier().fit(X[:400], y[:400]).score(X[400:], y[400:]) > 0.5
    with pytest.raises(DatasetError, match="perfect square"):
        load("images", n_samples=10, n_features=50)


def test_synthetic_feature_count_and_tasks():
    assert load("classification", n_samples=50, n_features=7)[0].shape == (50, 7)
    assert load("regression", n_samples=50, n_features=3)[0].shape == (50, 3)
    assert load("blobs", n_samples=50, n_features=5)[0].shape == (50, 5)
    counts, topics = load("counts", n_samples=200, n_features=30)
    assert counts.shape == (200, 30) and set(topics) == {0, 1, 2}
    assert np.all(counts >= 0) and np.all(counts == np.round(counts)) and np.all(counts.sum(axis=1) >= 1)
    assert load_dataset("regression").task == "regression"
    assert load_dataset("moons").task == "classification"
    assert set(list_datasets()) >= {"iris", "wine", "breast_cancer", "digits", "diabetes", "moons", "circles",
                                    "blobs", "classification", "regression", "counts"}


def _write(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_csv_with_string_target_is_classification(tmp_path):
    path = _write(tmp_path, "a,b,label\n1,2,cat\n3,4,dog\n5,,cat\n")
    data = load_dataset(path, target="label")
    assert data.task == "classification"
    assert data.feature_names == ["a", "b"]
    np.testing.assert_array_equal(data.y, ["cat", "dog", "cat"])
    assert np.isnan(data.X[2, 1]) and data.X[1, 0] == 3.0


def test_csv_target_inference_and_override(tmp_path):
    ints = _write(tmp_path, "x,y\n" + "".join(f"{i},{i % 3}\n" for i in range(30)))
    floats = _write(tmp_path, "x,y\n" + "".join(f"{i},{i * 0.37}\n" for i in range(30)), "f.csv")
    booleans = _write(tmp_path, "x,y\n1,true\n2,False\n3,TRUE\n", "b.csv")
    assert load_dataset(ints, target="y").task == "classification"
    assert load_dataset(floats, target="y").task == "regression"
    assert load_dataset(booleans, target="y").task == "classification"
    forced = load_dataset(ints, target="y", task="regression")
    assert forced.task == "regression" and forced.y.dtype == np.float64
    assert infer_task(np.arange(100)) == "regression"  # too many distinct integers for classes
    assert infer_task(np.array([0.0, 1.0, 1.0])) == "classification"


@pytest.mark.parametrize(
    "text, target, message",
    [
        ("a,b\n1,2\n", "c", "no column named 'c'"),
        ("a,b\n1,x\n", "a", "feature column 'b' is not numeric"),
        ("a,b\n1,\n", "b", "has missing values"),
        ("a,b\n", "b", "no data rows"),
        ("a,b\n1,2,3\n", "b", "3 fields where the header has 2"),
        ("", "b", "empty"),
        ("a,b\n1,2\n", None, "name the target column"),
    ],
)
def test_csv_errors_are_one_clear_line(tmp_path, text, target, message):
    path = _write(tmp_path, text)
    with pytest.raises(DatasetError, match=message) as info:
        load(path, target=target)
    assert "\n" not in str(info.value)


def test_unknown_name_missing_file_and_bad_task(tmp_path):
    with pytest.raises(DatasetError, match="unknown data set 'nosuch'"):
        load("nosuch")
    with pytest.raises(DatasetError, match="no such file"):
        load("missing.csv", target="y")
    with pytest.raises(DatasetError, match="task must be one of"):
        load("iris", task="clustering")
    labels = _write(tmp_path, "x,y\n1,cat\n2,dog\n")
    with pytest.raises(DatasetError, match="target is not numeric"):
        load(labels, target="y", task="regression")
