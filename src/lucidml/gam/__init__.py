"""Generalized additive models fitted by backfitting and local scoring."""
