"""Learning-theory bounds and empirical risk (seeds 000 §8.2–8.5, 002 §3.2, 001 §5)."""

from .hoeffding import hoeffding_confidence, hoeffding_gap, hoeffding_sample_size
from .margin import max_margin
from .mistake_bound import perceptron_mistake_bound
from .risk import empirical_risk, erm
from .vc import margin_vc_dimension, vc_bound

__all__ = [
    "empirical_risk", "erm", "hoeffding_confidence", "hoeffding_gap", "hoeffding_sample_size", "margin_vc_dimension",
    "max_margin", "perceptron_mistake_bound", "vc_bound",
]
