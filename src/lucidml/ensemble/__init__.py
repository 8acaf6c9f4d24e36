"""Ensembles: bagging, random forests, AdaBoost and gradient boosting."""
