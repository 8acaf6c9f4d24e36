"""scikit-learn's estimator checks on every registered estimator built with its default arguments.

tests/test_common.py runs the checks with each entry's cheap ``check_params``; this module runs them on
``entry.load()()``, so that a default which only works at the cheap settings (too few units for the
check's data, an iteration limit the check's data never reaches, ...) is caught too. The expected
failures are the registry's, as in test_common (a check declared for a default that passes with the
cheap ``check_params`` shows there as XPASS; xfail is not strict).

Cost: 3457 cases, about a minute on a 2-core machine once the Numba kernels are compiled (test_common
compiles them first in a full run; a cold cache adds several minutes, mostly the tree ensembles).
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from lucidml.registry import REGISTRY, get_entry


def _expected_failures(estimator):
    return get_entry(type(estimator).__name__).expected_failures


@parametrize_with_checks([entry.load()() for entry in REGISTRY], expected_failed_checks=_expected_failures)
def test_sklearn_compatible_estimator_with_defaults(estimator, check):
    check(estimator)
