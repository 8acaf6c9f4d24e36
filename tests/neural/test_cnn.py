"""CNNClassifier: accuracy on the 8×8 digits, image input forms, bad input."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from lucidml.neural.cnn import CNNClassifier

from ..memory import traced_peak

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X / 16.0, y, test_size=0.3, random_state=0, stratify=y)


def test_digits_test_accuracy_at_least_98_percent(digits):
    Xtr, Xte, ytr, yte = digits
    clf = CNNClassifier(filters=(16, 32), alpha=0.1, learning_rate_init=0.01, max_iter=50, random_state=0)
    clf.fit(Xtr.reshape(-1, 8, 8), ytr)
    # measured 0.987 (seeds 0–2: 0.987, 0.983, 0.987)
    assert clf.score(Xte.reshape(-1, 8, 8), yte) >= 0.98
    assert clf.image_shape_ == (1, 8, 8) and clf.layers_[0].kernel.shape == (3, 3, 1, 16)


def test_image_forms_give_the_same_model(digits):
    Xtr, Xte, ytr, _ = digits
    kw = {"filters": (4,), "max_iter": 2, "random_state": 0}
    flat = CNNClassifier(**kw).fit(Xtr, ytr)  # 64 features: inferred as one 8×8 image
    grey = CNNClassifier(**kw).fit(Xtr.reshape(-1, 8, 8), ytr)
    chw = CNNClassifier(**kw).fit(Xtr.reshape(-1, 1, 8, 8), ytr)
    given = CNNClassifier(image_shape=(8, 8), **kw).fit(Xtr, ytr)
    reference = flat.predict_proba(Xte)
    assert flat.image_shape_ == grey.image_shape_ == chw.image_shape_ == given.image_shape_ == (1, 8, 8)
    for model, X in ((grey, Xte.reshape(-1, 8, 8)), (chw, Xte.reshape(-1, 1, 8, 8)), (given, Xte)):
        assert np.allclose(model.predict_proba(X), reference, atol=1e-12)


def test_channels_are_read_channels_first():
    rng = np.random.default_rng(0)
    images = rng.normal(size=(40, 2, 4, 4))
    y = np.arange(40) % 2
    images[y == 1, 1] += 2.0  # only the second channel carries the class
    clf = CNNClassifier(filters=(4,), learning_rate_init=0.01, max_iter=40, random_state=0).fit(images, y)
    assert clf.image_shape_ == (2, 4, 4) and clf.layers_[0].kernel.shape == (3, 3, 2, 4)
    assert clf.score(images, y) == 1.0


def test_non_square_rows_are_strips():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 6))
    y = (X[:, 2] + X[:, 3] > 0).astype(int)
    # 100 epochs: seeds 0–3 score 0.93–0.95 (60 epochs: 0.88–0.93)
    clf = CNNClassifier(filters=(4,), learning_rate_init=0.01, max_iter=100, random_state=0).fit(X, y)
    assert clf.image_shape_ == (1, 1, 6)
    assert clf.layers_[0].kernel.shape == (1, 3, 1, 4)  # the 3 × 3 kernel is a 1-D one along the strip
    assert clf.score(X, y) > 0.9


def test_float32_images_stay_float32(digits):
    Xtr, Xte, ytr, _ = digits
    clf = CNNClassifier(filters=(4,), max_iter=1, random_state=0).fit(Xtr.astype(np.float32), ytr)
    assert clf.coefs_[0].dtype == np.float32
    assert clf.predict_proba(Xte.astype(np.float32)).dtype == np.float32
    assert clf.predict_proba(Xte).dtype == np.float64  # float64 queries answered in float64, as scikit-learn's


def test_bad_input(digits):
    Xtr, _, ytr, _ = digits
    clf = CNNClassifier(filters=(2,), max_iter=1, random_state=0).fit(Xtr.reshape(-1, 8, 8), ytr)
    with pytest.raises(ValueError, match="images of shape"):
        clf.predict(np.zeros((3, 7, 8)))
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.zeros((3, 63)))
    with pytest.raises(ValueError, match="image_shape"):
        CNNClassifier(image_shape=(7, 9)).fit(Xtr, ytr)
    with pytest.raises(ValueError, match="NaN"):
        CNNClassifier().fit(np.where(Xtr > 0.9, np.nan, Xtr), ytr)
    online = CNNClassifier(filters=(2,), random_state=0).partial_fit(Xtr[:50], ytr[:50], classes=np.arange(10))
    with pytest.raises(ValueError, match="outside the classes"):
        online.partial_fit(Xtr[:5], np.full(5, 11))


def test_channels_last_images_are_refused_not_misread():
    import numpy as np

    from lucidml.neural.cnn import CNNClassifier

    X = np.zeros((6, 8, 8, 3))
    with pytest.raises(ValueError, match="channels-last"):
        CNNClassifier(max_iter=1).fit(X, np.arange(6) % 2)


def test_prediction_runs_a_block_of_rows_at_a_time(digits):
    """20,000 images: every layer's activations for all rows at once were ~9 KB a row (170 MB);
    predict_proba runs a block of rows at a time, with the same numbers as one pass."""
    Xtr, Xte, ytr, _ = digits
    clf = CNNClassifier(filters=(16,), max_iter=1, random_state=0).fit(Xtr, ytr)
    X = np.tile(Xte, (40, 1))[:20_000]
    clf.predict_proba(X[:10])  # the first call's compile is not the prediction's memory
    proba, peak = traced_peak(lambda: clf.predict_proba(X))
    assert peak < 60 * 2**20, f"predict_proba peaked at {peak / 2**20:.0f} MiB"
    np.testing.assert_allclose(proba[:len(Xte)], clf.predict_proba(Xte), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(proba, clf._net.predict(clf._check_predict_input(X)), rtol=1e-12, atol=1e-15)
