"""What the benchmark measures: one case per (registered estimator, parameters, data set, sizes).

The scikit-learn counterpart and the parameters that make the two comparable come from the
registry (``lucidml.registry``); ``params`` here are applied to both sides on top. ``sizes``
are total sample counts of a synthetic data set (80 % train, 20 % test), or ``None`` for a
bundled data set at its own size; ``--quick`` runs only the first size of each case.
``target`` is the speed goal: the ratio lucidml / scikit-learn of the fit time at most this.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    name: str
    estimator: str
    dataset: str
    sizes: tuple | None = None
    n_features: int | None = None
    params: dict = field(default_factory=dict)
    target: float = 1.0


CASES = (
    Case("linear_regression", "LinearRegression", "regression", sizes=(1_000, 10_000, 100_000), n_features=20),
    Case("linear_regression_diabetes", "LinearRegression", "diabetes"),
    Case("gaussian_nb", "GaussianNB", "classification", sizes=(1_000, 10_000, 100_000), n_features=20),
    Case("gaussian_nb_digits", "GaussianNB", "digits"),
)
