"""Adversarial inputs over the whole registry: a finite, sensible answer or a clear error (issue 20).

Every registered estimator is fitted on small tables (wine for classifiers, clusterers and
transformers, diabetes for regressors, scaled to [0, 1]) that are changed in one hostile way
each: extreme magnitudes, subnormals, degenerate columns and rows, odd dtypes and memory
layouts, extreme sample weights, pandas frames with odd column names. Each case must end in
either

- a ``ValueError`` or ``TypeError`` whose message says something (not a bare re-raise of an
  internal error), or
- outputs without NaN or infinity from every public method, predicted labels among
  ``classes_``, and — for the cases that only change how the same numbers are stored — the
  same outputs as the plain C-contiguous float64 array.

Any other exception (``IndexError``, ``ZeroDivisionError``, ``AttributeError``,
``LinAlgError``, a Numba error) fails the case.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import has_fit_parameter

from lucidml.datasets import load
from lucidml.registry import REGISTRY, get_entry

METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "transform", "score_samples")


def _base(kind):
    X, y = load("diabetes" if kind == "regressor" else "wine")
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    return X[::2].copy(), y[::2].copy()  # 89 and 221 rows: enough for every model, and quick


# Cases that store the same numbers differently: outputs must equal those of the plain array.
def _fortran(X, y):
    return np.asfortranarray(X), y


def _strided(X, y):
    wide = np.zeros((X.shape[0], 2 * X.shape[1]))
    wide[:, ::2] = X
    return wide[:, ::2], y


def _read_only(X, y):
    X = X.copy()
    X.flags.writeable = False
    return X, y


def _frame(X, y):
    names = [f"col {j}!" if j % 2 else f"ü_{j}" for j in range(X.shape[1])]
    return pd.DataFrame(X, columns=names), y


def _object_numeric(X, y):
    return X.astype(object), y


SAME_NUMBERS = {"fortran": _fortran, "strided": _strided, "read_only": _read_only, "frame": _frame,
                "object": _object_numeric}


# Cases that change the numbers: any finite answer or a clear error.
def _scaled(factor):
    return lambda X, y: (X * factor, y)


def _constant_column(X, y):
    X = X.copy()
    X[:, 0] = 3.0
    return X, y


def _duplicate_columns(X, y):
    return np.hstack([X, X[:, :2]]), y


def _duplicate_rows(X, y):
    return np.vstack([X, X]), np.concatenate([y, y])


def _wide(X, y):
    """More features than samples."""
    rows = X[:20]
    return np.hstack([rows, np.random.default_rng(0).uniform(size=(20, 40))]), y[:20]


def _one_per_class(X, y):
    """The first sample of each class (of the first three rows for a regressor's continuous y)."""
    keep = np.unique(y, return_index=True)[1] if y.dtype.kind in "iub" else np.arange(3)
    return X[keep], y[keep]


def _float32(X, y):
    return X.astype(np.float32), y


def _integers(X, y):
    return np.round(X * 10).astype(np.int64), y


def _booleans(X, y):
    return X > 0.5, y


CHANGED_NUMBERS = {
    "huge": _scaled(1e300), "huge_negative": _scaled(-1e300), "large": _scaled(1e150), "tiny": _scaled(1e-300),
    "subnormal": _scaled(1e-310), "constant_column": _constant_column, "duplicate_columns": _duplicate_columns,
    "duplicate_rows": _duplicate_rows, "one_per_class": _one_per_class, "wide": _wide, "float32": _float32,
    "int": _integers, "bool": _booleans,
}

WEIGHTS = {"zero_half": lambda n: np.r_[np.zeros(n // 2), np.ones(n - n // 2)], "tiny": lambda n: np.full(n, 1e-300),
           "huge": lambda n: np.full(n, 1e300), "uneven": lambda n: np.geomspace(1e-8, 1e8, n),
           # all subnormal (logistic regression's coefficients came out NaN); two rows of one class
           # only (wine's first rows; SVC's empty one-vs-one sub-problems raised IndexError)
           "subnormal": lambda n: np.full(n, 1e-320), "two_rows": lambda n: np.r_[np.ones(2), np.zeros(n - 2)]}

ALLOWED = (ValueError, TypeError)


def _outputs(model, X):
    out = {}
    for method in METHODS:
        if hasattr(model, method):
            out[method] = np.asarray(getattr(model, method)(X))
    return out


def _check_sane(model, outputs, name):
    for method, value in outputs.items():
        if value.dtype.kind in "fc":
            # log P = −∞ is the right answer for a class of probability 0, or a row infinitely far out
            log = method in ("predict_log_proba", "score_samples")
            finite = np.isfinite(value) | (value == -np.inf) if log else np.isfinite(value)
            assert np.all(finite), f"{name}: {method} returned NaN or infinity"
    if "predict" in outputs and hasattr(model, "classes_"):
        assert set(np.unique(outputs["predict"])) <= set(model.classes_), f"{name}: predicted an unknown class"


def _fit_and_answer(entry, X, y, sample_weight=None):
    model = entry.make()
    if model.get_params().get("random_state", 0) is None:  # the same numbers must give the same answer
        model.set_params(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # a warning is allowed; a NaN result is not
        if sample_weight is None:
            model.fit(X, y)
        else:
            model.fit(X, y, sample_weight=sample_weight)
        return model, _outputs(model, X)


def _clear_error(error):
    # (NumPy's LinAlgError is a ValueError, but it names a failed factorization, not the input's problem.)
    return isinstance(error, ALLOWED) and not isinstance(error, np.linalg.LinAlgError) and len(str(error)) > 10


def _run(entry, X, y, name, sample_weight=None):
    """(model, outputs), or None after a clear error; anything else fails."""
    try:
        model, outputs = _fit_and_answer(entry, X, y, sample_weight)
    except Exception as error:  # noqa: BLE001 - the point is to classify it
        assert _clear_error(error), f"{entry.name} on {name}: {type(error).__name__}: {error}"
        return None
    _check_sane(model, outputs, f"{entry.name} on {name}")
    return model, outputs


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_the_same_numbers_in_any_layout_give_the_same_answers(entry):
    X, y = _base(entry.kind)
    reference = _run(entry, X, y, "plain")
    assert reference is not None, f"{entry.name} refused the plain table"
    for name, make in SAME_NUMBERS.items():
        Xc, yc = make(X, y)
        result = _run(entry, Xc, yc, name)
        if result is None:
            continue  # a clear refusal (e.g. object arrays) is allowed
        for method, expected in reference[1].items():
            np.testing.assert_allclose(result[1][method], expected, rtol=1e-9, atol=1e-12,
                                       err_msg=f"{entry.name} on {name}: {method}")


@pytest.mark.parametrize("case", sorted(CHANGED_NUMBERS))
@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_hostile_tables_give_a_finite_answer_or_a_clear_error(entry, case):
    X, y = _base(entry.kind)
    _run(entry, *CHANGED_NUMBERS[case](X, y), case)


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("entry", [e for e in REGISTRY if has_fit_parameter(e.load(), "sample_weight")],
                         ids=lambda e: e.name)
def test_extreme_sample_weights_give_a_finite_answer_or_a_clear_error(entry, weights):
    X, y = _base(entry.kind)
    _run(entry, X, y, f"{weights} weights", sample_weight=WEIGHTS[weights](len(y)))


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_huge_values_at_predict_give_a_finite_answer_or_a_clear_error(entry):
    """Fitted on a plain table, asked about a row with a value of 1e300 (NaN from Gaussian naive
    Bayes' and QDA's probabilities, infinity from k-means' distances, before they were refused)."""
    X, y = _base(entry.kind)
    model, _ = _fit_and_answer(entry, X, y)
    hostile = X[:5].copy()
    hostile[1, 0] = 1e300
    for method in METHODS:
        if not hasattr(model, method):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                value = np.asarray(getattr(model, method)(hostile))
        except Exception as error:  # noqa: BLE001 - the point is to classify it
            assert _clear_error(error), f"{entry.name}.{method}: {type(error).__name__}: {error}"
            continue
        _check_sane(model, {method: value}, f"{entry.name} at 1e300")


@pytest.mark.parametrize("entry", [e for e in REGISTRY if e.kind == "regressor"], ids=lambda e: e.name)
def test_a_regression_target_of_text_is_read_as_numbers_or_refused_by_name(entry):
    X, y = _base(entry.kind)
    reference = _run(entry, X, y, "plain")
    as_text = _run(entry, X, y.astype(str), "y as text")
    assert as_text is not None, f"{entry.name} refused numbers written as text"
    np.testing.assert_allclose(as_text[1]["predict"], reference[1]["predict"], rtol=1e-9, atol=1e-12)
    words = y.astype(str)
    words[3] = "n/a"
    with pytest.raises(ValueError, match="n/a"):
        _fit_and_answer(entry, X, words)
    for text in ("nan", "inf", "1e999"):  # numbers as text, but not finite ones
        words = y.astype(str)
        words[3] = text
        with pytest.raises(ValueError, match="NaN or infinity"):
            _fit_and_answer(entry, X, words)


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_what_fit_accepts_predict_answers(entry):
    """A table the fit took (a value of 1e150, or 1e300) gets finite answers from every method, not
    a refusal (count naive Bayes and PCA's likelihood refused at predict what their fits took)."""
    X, y = _base(entry.kind)
    for value in (1e150, 1e300):
        hostile = X.copy()
        hostile[1, 0] = value
        model = entry.make()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(hostile, y)
        except Exception as error:  # noqa: BLE001 - a clear refusal at fit is allowed
            assert _clear_error(error), f"{entry.name} at {value:.0e}: {type(error).__name__}: {error}"
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            outputs = _outputs(model, hostile)  # no refusal now: every method answers
        _check_sane(model, outputs, f"{entry.name} at {value:.0e}")


def test_dbscan_clusters_at_any_scale():
    """Its neighbour searches scale exactly: 1e150 · X with 1e150 · eps is the same clustering."""
    from lucidml.cluster import DBSCAN

    X = np.array([[1.0, 2.0], [2.0, 2.0], [2.0, 3.0], [8.0, 7.0], [8.0, 8.0], [7.0, 8.0], [25.0, 80.0]])
    labels = DBSCAN(eps=3, min_samples=2).fit(X).labels_
    np.testing.assert_array_equal(DBSCAN(eps=3e150, min_samples=2).fit(X * 1e150).labels_, labels)


class _Variant:
    """A registered estimator with other arguments than the registry's (same interface as an entry)."""

    def __init__(self, name, **params):
        self._entry, self.params = get_entry(name), params
        self.name, self.kind = f"{name}({params})", self._entry.kind

    def make(self):
        return self._entry.make(**self.params)


# Solvers that the registry's defaults do not reach, with arithmetic of their own (step sizes that
# depend on the features' scale, penalties that depend on the weights' total).
VARIANTS = [_Variant("LogisticRegression", solver="sgd"), _Variant("LogisticRegression", solver="sgd", penalty="l1"),
            _Variant("SoftmaxRegression", solver="sgd"), _Variant("LinearRegression", solver="sgd"),
            _Variant("LogisticRegression", solver="gd"), _Variant("LogisticRegression", solver="newton"),
            _Variant("SoftmaxRegression", solver="gd"), _Variant("SoftmaxRegression", solver="newton"),
            _Variant("LinearRegression", solver="gd"), _Variant("LinearRegression", solver="normal"),
            _Variant("LADRegression", solver="irls"), _Variant("LocallyWeightedRegression", solver="gd"),
            _Variant("GLMRegressor", solver="lbfgs"), _Variant("PoissonRegressor", solver="lbfgs"),
            # Options swept over the registry that found defects: scale-free metrics whose SciPy norms
            # underflowed near 1e-300 (or overflowed), ARPACK's norms, a snap tolerance relative to C,
            # a whitening that overflowed.
            _Variant("KMedoids", metric="cosine"), _Variant("CLARA", metric="correlation"),
            _Variant("CLARANS", metric="jensenshannon"), _Variant("KNeighborsClassifier", metric="correlation"),
            _Variant("KNeighborsRegressor", metric="sqeuclidean"),
            _Variant("AgglomerativeClustering", linkage="average", metric="cosine"),
            _Variant("SVC", solver="simplified"), _Variant("PCA", svd_solver="arpack"),
            _Variant("TruncatedSVD", algorithm="arpack"), _Variant("LatentSemanticIndexing", algorithm="arpack"),
            _Variant("KernelPCA", eigen_solver="arpack"), _Variant("KernelPCA", eigen_solver="randomized"),
            _Variant("ICA", algorithm="gradient"),
            # and a few of those that passed, one per family
            _Variant("Ridge", solver="svd"), _Variant("LADRegression", solver="subgradient"),
            _Variant("GLMRegressor", family="gamma", link="log"),
            _Variant("LogisticRegression", penalty="l1", solver="gd"),
            _Variant("DBSCAN", metric="cosine"), _Variant("KMedoids", method="alternate"),
            _Variant("GaussianMixture", covariance_type="tied"), _Variant("MLPRegressor", solver="lbfgs"),
            _Variant("KernelRidge", kernel="laplacian"),
            # Iterative solvers whose fits drifted with X's memory layout (1e-8 to 1e-5 relative) until fit took C order
            _Variant("GLMRegressor", family="gamma", link="inverse", solver="lbfgs"),
            _Variant("GLMRegressor", family="gaussian", link="log", solver="lbfgs"),
            _Variant("Ridge", solver="lsqr"), _Variant("ICA", fun="laplace")]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_non_default_solvers_on_every_hostile_case(variant):
    X, y = _base(variant.kind)
    reference = _run(variant, X, y, "plain")
    for name, make in SAME_NUMBERS.items():
        result = _run(variant, *make(X, y), name)
        for method, expected in (reference[1].items() if result is not None else ()):
            np.testing.assert_allclose(result[1][method], expected, rtol=1e-9, atol=1e-12,
                                       err_msg=f"{variant.name} on {name}: {method}")
    for name, make in CHANGED_NUMBERS.items():
        _run(variant, *make(X, y), name)
    for name, weights in WEIGHTS.items():
        _run(variant, X, y, f"{name} weights", sample_weight=weights(len(y)))
