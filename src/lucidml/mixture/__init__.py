"""Mixture models fitted by EM."""

from .bernoulli_mixture import BernoulliMixture
from .gaussian_mixture import GaussianMixture

__all__ = ["BernoulliMixture", "GaussianMixture"]
