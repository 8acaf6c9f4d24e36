"""Write the model files of tests/io/fixtures/format_<N>/ (run by hand: ``python -m tests.io.make_fixtures``).

Each released format version keeps a few small files, saved by the lucidml of that version, with
the data and the answers they gave then; ``test_fixtures.py`` checks that they still load and
answer the same. Never regenerate the files of a released version: add a directory for a new one.
"""

from pathlib import Path

import numpy as np

import lucidml
from lucidml.io._encode import FORMAT_VERSION


def fixture_models():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from lucidml.cluster import KMeans
    from lucidml.ensemble import GradientBoostingClassifier, RandomForestRegressor
    from lucidml.linear import LogisticRegression
    from lucidml.neural import MLPClassifier
    from lucidml.tree import DecisionTreeClassifier

    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 4))
    labels = np.array(["cat", "dog", "eel"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)]
    target = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=30)
    models = {
        "logistic_regression": LogisticRegression().fit(X, labels),
        "decision_tree": DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, labels),
        "random_forest": RandomForestRegressor(n_estimators=4, max_depth=3, random_state=0).fit(X, target),
        "gradient_boosting": GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, labels),
        "mlp": MLPClassifier(hidden_layer_sizes=(5,), max_iter=30, random_state=0).fit(X, labels),
        "scaled_kmeans": make_pipeline(StandardScaler(), KMeans(n_clusters=3, n_init=1, random_state=0)).fit(X),
    }
    return X, models


def answers(model, X):
    methods = ("predict", "predict_proba", "transform")
    return {m: getattr(model, m)(X) for m in methods if hasattr(model, m)}


def main():
    import warnings

    directory = Path(__file__).parent / "fixtures" / f"format_{FORMAT_VERSION}"
    directory.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        X, models = fixture_models()
    expected = {"X": X}
    for name, model in models.items():
        lucidml.save(model, directory / f"{name}.lucid")
        for method, values in answers(model, X).items():
            expected[f"{name}.{method}"] = values
    np.savez(directory / "expected.npz", **expected)
    print(f"wrote {len(models)} models to {directory}")


if __name__ == "__main__":
    main()
