"""What the registry knows of one estimator: :class:`EstimatorEntry` (the list is ``lucidml.registry``)."""

from dataclasses import dataclass, field
from importlib import import_module

__all__ = ["EstimatorEntry", "KINDS"]

KINDS = ("classifier", "regressor", "cluster", "transformer", "density")


def weight_equivalence_failures(reason):
    """The same expected failure of scikit-learn's sample-weight equivalence checks on dense and on sparse data."""
    return {f"check_sample_weight_equivalence_on_{data}_data": reason for data in ("dense", "sparse")}


def _import(dotted_path):
    module, _, name = dotted_path.rpartition(".")
    return getattr(import_module(module), name)


@dataclass(frozen=True)
class EstimatorEntry:
    """How lucidml tests, benchmarks and compares one estimator.

    Attributes
    ----------
    path : str
        Dotted path of the lucidml class, e.g. ``"lucidml.linear.LinearRegression"``.
    kind : {"classifier", "regressor", "cluster", "transformer", "density"}
        "density" is a density estimator (``DensityMixin``: ``score`` is the mean log-likelihood),
        such as a mixture model.
    sklearn : str or None
        Dotted path of the scikit-learn counterpart that fits the same model, if one exists.
    params, sklearn_params : dict
        Constructor arguments that make lucidml and scikit-learn comparable (same model,
        same regularization, same stopping rule).
    check_params : dict
        Cheap constructor arguments for scikit-learn's estimator checks.
    expected_failures : dict
        ``{check name: reason}`` for the checks this estimator is known to fail.
    compiled : bool
        Whether ``fit`` runs Numba kernels (the benchmarks then measure its cold start).
    float32 : bool
        Whether float32 input is fitted and predicted in float32 (fitted arrays and outputs stay
        float32, as scikit-learn's counterpart keeps them); tested in ``tests/test_data_types.py``.
        Which estimators take sparse input is the estimator's own scikit-learn tag
        (``input_tags.sparse``), read by :attr:`accepts_sparse`.
    """

    path: str
    kind: str
    sklearn: str | None = None
    params: dict = field(default_factory=dict)
    sklearn_params: dict = field(default_factory=dict)
    check_params: dict = field(default_factory=dict)
    expected_failures: dict = field(default_factory=dict)
    compiled: bool = False
    float32: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.path}: kind must be one of {KINDS}, not {self.kind!r}")

    @property
    def name(self):
        return self.path.rpartition(".")[2]

    def load(self):
        """The lucidml class."""
        return _import(self.path)

    def make(self, **overrides):
        """A lucidml estimator with the comparison parameters (and ``overrides``)."""
        return self.load()(**{**self.params, **overrides})

    def make_sklearn(self, **overrides):
        """The scikit-learn counterpart with its comparison parameters, or None."""
        if self.sklearn is None:
            return None
        return _import(self.sklearn)(**{**self.sklearn_params, **overrides})

    @property
    def accepts_sparse(self):
        """Whether the estimator fits and predicts SciPy sparse matrices natively."""
        from sklearn.utils import get_tags

        return get_tags(self.make_for_checks()).input_tags.sparse

    def make_for_checks(self):
        """A lucidml estimator with cheap parameters, for the estimator checks."""
        return self.load()(**self.check_params)
