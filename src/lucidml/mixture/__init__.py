"""Mixture models fitted by EM."""
