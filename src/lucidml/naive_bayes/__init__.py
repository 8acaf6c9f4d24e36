"""Naive Bayes classifiers."""

from .gaussian import GaussianNB

__all__ = ["GaussianNB"]
