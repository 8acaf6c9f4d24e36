"""A full-depth regression tree's test R² on diabetes: lucidml, scikit-learn, and a plain reference.

The real-data table (``benchmarks.real_data``) reads lucidml's ``DecisionTreeRegressor`` on
diabetes about 0.03–0.04 below scikit-learn's. A tree grown until its leaves are pure takes
thousands of tied splits there (353 training rows, integer targets), and which one it takes is up
to its random state, so this script averages the 5-fold test R² of that table's splits
(``comparison_splits(cv=5, random_state=0)``) over ``--seeds`` random states, for

- lucidml's tree (ties go to the feature of the lower random rank, ``tree._random.feature_rank``);
- scikit-learn's (ties go to the feature visited first in a random order; X is cast to float32);
- the exact CART of 004 §12 written out below in NumPy: each node's best threshold per feature
  (the lowest of equal ones), then one of the tied features uniformly at random;

on three versions of the same table: scikit-learn's scaled diabetes (float64, as in the table),
the same rounded to float32, and the raw measurements (``scaled=False``). The scaling is affine
and keeps every column's order and ties, so each tree makes the same splits of the training rows
on all three; what changes is where a test row goes whose value falls exactly on a threshold.
Most columns hold whole-number measurements (age, blood pressure, ...), so the midpoint between
two training values is often a value that only a test row has (age 51 between 50 and 52): exactly
on the threshold in the raw units (it goes left), and on either side of it by the last bit of
the rounding once scaled, differently in float64 (lucidml) and in float32 (scikit-learn).

``python -m benchmarks.tie_breaking [--seeds 40]`` prints the mean and its standard error for each.
"""

import argparse
import sys

import numpy as np


def _reference_tree(X, y, rng):
    """Nodes (feature, threshold, left, right, value) of the exact squared-error CART on (X, y)."""
    nodes = []

    def build(rows):
        target = y[rows]
        me = len(nodes)
        nodes.append(None)
        best = {}
        if rows.size >= 2 and target.min() < target.max():
            centred = target - target.mean()
            n = rows.size
            left = np.arange(1, n)
            for f in range(X.shape[1]):
                order = np.argsort(X[rows, f], kind="stable")
                x = X[rows, f][order]
                s = np.cumsum(centred[order])[:-1]
                gain = s * s / left + s * s / (n - left)  # S_R = −S_L: the targets are centred
                gain[x[1:] == x[:-1]] = -np.inf  # thresholds lie between distinct values
                p = int(np.argmax(gain))  # the lowest of the feature's best thresholds
                if gain[p] > -np.inf:
                    best[f] = (gain[p], 0.5 * (x[p] + x[p + 1]))
        if not best:
            nodes[me] = (-1, 0.0, -1, -1, target.mean())
            return me
        top = max(g for g, _ in best.values())
        tied = [f for f, (g, _) in best.items() if g >= top - 1e-9 * abs(top)]
        feature = tied[rng.integers(len(tied))]
        threshold = best[feature][1]
        goes_left = X[rows, feature] <= threshold
        left_child, right_child = build(rows[goes_left]), build(rows[~goes_left])
        nodes[me] = (feature, threshold, left_child, right_child, target.mean())
        return me

    build(np.arange(y.size))
    return nodes


def _reference_predict(nodes, X):
    out = np.empty(X.shape[0])
    for i, x in enumerate(X):
        k = 0
        while nodes[k][0] >= 0:
            feature, threshold, left, right, _ = nodes[k]
            k = left if x[feature] <= threshold else right
        out[i] = nodes[k][4]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=40)
    args = parser.parse_args(argv)

    from sklearn.datasets import load_diabetes
    from sklearn.metrics import r2_score
    from sklearn.tree import DecisionTreeRegressor as SklearnTree

    from lucidml.model_selection import comparison_splits
    from lucidml.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    tables = {"scaled (float64)": X, "scaled, rounded to float32": X.astype(np.float32).astype(np.float64),
              "raw": load_diabetes(scaled=False, return_X_y=True)[0]}
    splits = comparison_splits(y, cv=5, stratify=False, random_state=0)
    contenders = {
        "lucidml": lambda seed, Xt, yt: DecisionTreeRegressor(random_state=seed).fit(Xt, yt).predict,
        "scikit-learn": lambda seed, Xt, yt: SklearnTree(random_state=seed).fit(Xt, yt).predict,
        "reference (uniform ties)": lambda seed, Xt, yt: (
            lambda X_test, nodes=_reference_tree(Xt, yt, np.random.default_rng([seed, len(yt)])):
            _reference_predict(nodes, X_test)),
    }
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    print(f"DecisionTreeRegressor() on diabetes, 5-fold test R² averaged over {args.seeds} random states")
    for table, X in tables.items():
        for name, fit in contenders.items():
            scores = np.array([np.mean([r2_score(y[test], fit(seed, X[train], y[train])(X[test]))
                                        for train, test in splits]) for seed in range(args.seeds)])
            print(f"{table:<28}{name:<26} mean {scores.mean():+.4f}  "
                  f"standard error {scores.std(ddof=1) / np.sqrt(scores.size):.4f}", flush=True)

if __name__ == "__main__":
    main()
