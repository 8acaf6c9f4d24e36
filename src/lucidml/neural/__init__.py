"""Neural networks with explicit back-propagation: MLP, CNN, GCN, and the layers they are built from."""

from .activations import ACTIVATIONS, Activation, get_activation
from .cnn import CNNClassifier
from .conv import Conv2D
from .dense import Dense
from .dropout import Dropout
from .flatten import Flatten
from .gcn import GCNClassifier
from .gradient_check import gradient_check, numerical_gradient, relative_error
from .graph_conv import GraphConv, normalized_adjacency
from .initializers import check_init, initialize
from .losses import LOSSES, get_loss
from .mlp import MLPClassifier, MLPRegressor
from .optimizers import SGD, Adam
from .pooling import AvgPool2D, MaxPool2D

__all__ = [
    "ACTIVATIONS", "LOSSES", "SGD", "Activation", "Adam", "AvgPool2D", "CNNClassifier", "Conv2D", "Dense", "Dropout",
    "Flatten", "GCNClassifier", "GraphConv", "MLPClassifier", "MLPRegressor", "MaxPool2D", "check_init",
    "get_activation", "get_loss", "gradient_check", "initialize", "normalized_adjacency", "numerical_gradient",
    "relative_error",
]
