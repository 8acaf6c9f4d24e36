"""Multivariate Gaussian helpers: marginals, conditionals, log-density, samplers (seeds 000 §14.2, 002 §7.3.3)."""

from .gaussian_partition import gaussian_conditional, gaussian_marginal
from .mvn_logpdf import mvn_logpdf
from .sampling import box_muller, sample_multivariate_normal

__all__ = ["box_muller", "gaussian_conditional", "gaussian_marginal", "mvn_logpdf", "sample_multivariate_normal"]
