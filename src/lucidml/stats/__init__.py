"""Multivariate Gaussian helpers: marginals, conditionals, log-density, ML fits, samplers (000 §14.2, 002 §7.3.3)."""

from .gaussian_mle import GaussianFit, gaussian_mle
from .gaussian_partition import gaussian_conditional, gaussian_marginal
from .mvn_logpdf import mvn_logpdf
from .sampling import box_muller, sample_multivariate_normal

__all__ = [
    "GaussianFit", "box_muller", "gaussian_conditional", "gaussian_marginal", "gaussian_mle", "mvn_logpdf",
    "sample_multivariate_normal",
]
