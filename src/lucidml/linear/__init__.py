"""Linear models: least squares (plain, regularized, robust, local), classifiers and GLMs."""

from .adaline import Adaline
from .elastic_net import ElasticNet, Lasso, enet_path, lasso_path
from .glm import GLMRegressor, PoissonRegressor
from .lad import LADRegression
from .least_squares_classifier import LeastSquaresClassifier
from .linear_regression import LinearRegression
from .locally_weighted import LocallyWeightedRegression
from .logistic import LogisticRegression
from .perceptron import Perceptron
from .polynomial import polynomial_features
from .ridge import Ridge
from .softmax import SoftmaxRegression

__all__ = [
    "Adaline", "ElasticNet", "GLMRegressor", "LADRegression", "Lasso", "LeastSquaresClassifier", "LinearRegression",
    "LocallyWeightedRegression", "LogisticRegression", "Perceptron", "PoissonRegressor", "Ridge", "SoftmaxRegression",
    "enet_path", "lasso_path", "polynomial_features",
]
