"""How much the ``lucidml`` command gives each model: checked before any work starts."""

__all__ = ["MAX_FEATURES"]

# Models whose time or memory grows faster than linearly with the number of features: the CNN's
# square image, the GCN's feature graph, locally weighted regression's d × d solve per query,
# QDA's d × d covariance per class, the GAMs' one smoother per feature.
MAX_FEATURES = {"CNNClassifier": 4_096, "GCNClassifier": 10_000, "LocallyWeightedRegression": 2_000,
                "QuadraticDiscriminantAnalysis": 5_000, "GAMClassifier": 500, "GAMRegressor": 500}
