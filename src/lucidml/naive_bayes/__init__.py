"""Naive Bayes classifiers: Gaussian, multivariate Bernoulli and multinomial event models."""

from .bernoulli import BernoulliNB
from .gaussian import GaussianNB
from .multinomial import MultinomialNB
from .smoothing import laplace_smoothing

__all__ = ["BernoulliNB", "GaussianNB", "MultinomialNB", "laplace_smoothing"]
