"""scikit-learn's own estimator checks, run over every registered lucidml estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from lucidml.registry import REGISTRY, get_entry


def _expected_failures(estimator):
    return get_entry(type(estimator).__name__).expected_failures


@parametrize_with_checks([entry.make_for_checks() for entry in REGISTRY], expected_failed_checks=_expected_failures)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_foundation_estimators_have_no_expected_failures():
    for name in ("LinearRegression", "GaussianNB"):
        assert get_entry(name).expected_failures == {}
