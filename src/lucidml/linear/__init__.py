"""Linear models: least squares (plain, regularized, robust, local), classifiers and GLMs."""

from .elastic_net import ElasticNet, Lasso, enet_path, lasso_path
from .glm import GLMRegressor, PoissonRegressor
from .lad import LADRegression
from .least_squares_classifier import LeastSquaresClassifier
from .linear_regression import LinearRegression
from .locally_weighted import LocallyWeightedRegression
from .logistic import LogisticRegression
from .ridge import Ridge
from .softmax import SoftmaxRegression

__all__ = [
    "ElasticNet", "GLMRegressor", "LADRegression", "Lasso", "LeastSquaresClassifier", "LinearRegression",
    "LocallyWeightedRegression", "LogisticRegression", "PoissonRegressor", "Ridge", "SoftmaxRegression", "enet_path",
    "lasso_path",
]
