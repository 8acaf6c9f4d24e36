"""Choosing and trusting models: bias–variance, feature subset search, degree choice, comparison.

scikit-learn already does much of model selection and lucidml reuses it rather than rewrite it:
its splitters (``KFold``, ``StratifiedKFold``, ``ShuffleSplit``, ``LeaveOneOut``; the hold-out,
K-fold and leave-one-out procedures of seeds 000 §9 and 003 §1), ``cross_val_score`` /
``cross_validate``, ``clone``, ``check_scoring``, ``GridSearchCV``, ``VotingClassifier`` and
``SequentialFeatureSelector`` (forward selection, seeds 000 §9.1). This package adds what it lacks:

- :func:`bias_variance_decomposition` — expected loss split into bias and variance by bootstrap
  (seeds 000 §8.1, 001 §11);
- :class:`SequentialBackwardSelection` — the notes' SBS (seeds 002 §6.4.2), with the score of
  every subset on its path;
- :class:`StepwiseSelection` — forward–backward stepwise selection (seeds 000 §9.1);
- :func:`select_polynomial_degree` — CV error per polynomial degree and the Occam choice
  (seeds 002 §1.3);
- :func:`compare_models` — the repeated random-split comparison with a hard-voting ensemble
  (seeds 002 §1.4), the engine of ``lucidml compare``; :func:`comparison_splits`, its splits.
"""

from .bias_variance import BiasVarianceResult, bias_variance_decomposition

__all__ = ["BiasVarianceResult", "bias_variance_decomposition"]
from .backward_selection import SequentialBackwardSelection
from .stepwise_selection import StepwiseSelection

__all__ += ["SequentialBackwardSelection", "StepwiseSelection"]
from .polynomial_degree import DegreeSelectionResult, select_polynomial_degree

__all__ += ["DegreeSelectionResult", "select_polynomial_degree"]
from .comparison import ComparisonResult, compare_models, comparison_splits

__all__ += ["ComparisonResult", "compare_models", "comparison_splits"]
