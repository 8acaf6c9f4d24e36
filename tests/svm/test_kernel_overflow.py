"""Kernel values that overflow (a polynomial kernel of large features, gamma='scale' of a subnormal
variance) are refused with a ValueError that says so, at fit and at predict, never answered with NaN;
sample weights near 1e300 on float32 data are solved, not turned into infinities."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.preprocessing import StandardScaler

from lucidml.kernels import KernelLMS, KernelRidge
from lucidml.svm import SVC, SVR


def _iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def test_gamma_scale_of_a_subnormal_variance_is_refused():
    X, y = _iris()
    with pytest.raises(ValueError, match="gamma='scale'"):
        SVC().fit(X * 1e-155, y)


@pytest.mark.parametrize("model", [SVC(kernel="poly", gamma=1.0), SVR(kernel="poly", gamma=1.0),
                                   KernelRidge(kernel="polynomial"), KernelLMS(kernel="polynomial", gamma=1.0)])
def test_a_kernel_that_overflows_at_fit_is_refused_and_leaves_the_model_unfitted(model):
    X, y = _iris()
    with pytest.raises(ValueError, match="overflowed|not finite"):
        model.fit(X[:60] * 1e60, y[:60].astype(float))
    fitted = {name for name in vars(model) if name.endswith("_") and not name.startswith("_")}
    assert fitted <= {"n_features_in_"}, fitted


@pytest.mark.parametrize("model", [SVC(kernel="poly"), SVR(kernel="poly"), KernelRidge(kernel="polynomial"),
                                   KernelLMS(kernel="polynomial")])
def test_a_kernel_that_overflows_at_predict_is_refused(model):
    X, y = _iris()
    model.fit(X, y.astype(float))
    with pytest.raises(ValueError, match="overflow"):
        model.predict(X[:2] * 1e120)


def test_kernel_ridge_weights_near_1e300_on_float32_data():
    """√s of weights 1e300 is 1e150, infinite in float32: the weights are scaled to at most 1 (with λ
    scaled alike, the same β), so the float32 fit equals the float64 one and the unweighted one."""
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    weights = np.full(len(y), 1e300)
    single = KernelRidge(kernel="rbf", gamma=0.1).fit(X.astype(np.float32), y, sample_weight=weights)
    double = KernelRidge(kernel="rbf", gamma=0.1).fit(X, y, sample_weight=weights)
    predictions = single.predict(X[:20].astype(np.float32))
    assert np.all(np.isfinite(predictions))
    np.testing.assert_allclose(predictions, double.predict(X[:20]), rtol=1e-3)
    scaled = KernelRidge(kernel="rbf", gamma=0.1, alpha=1e-3).fit(X, y, sample_weight=np.full(len(y), 1e3))
    np.testing.assert_allclose(scaled.predict(X[:20]), KernelRidge(kernel="rbf", gamma=0.1, alpha=1e-6).fit(X, y)
                               .predict(X[:20]), rtol=1e-9)
    with pytest.raises(ValueError, match="beyond any float"):
        KernelRidge(kernel="rbf", alpha=1e9).fit(X, y, sample_weight=np.full(len(y), 1e-300))
