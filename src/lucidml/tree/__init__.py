"""Decision trees (CART) with pre- and post-pruning."""

from .decision_tree import DecisionTreeClassifier, DecisionTreeRegressor
from .export import export_graphviz, export_text

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "export_graphviz", "export_text"]
