"""
The loan tree: a multiway tree and error pruning
================================================

Seed 004 §12 grows a classification tree on nine loan applications described by three
categorical features (credit: excellent / fair / poor, term: 3 or 5 years, income: high /
low), choosing splits by the number of misclassified applications, one branch per category.
Credit makes 3 mistakes at the root against 4 for term or income, so it is the first split;
income then separates the "excellent" and "poor" branches. The grown tree has 5 leaves and
makes 1 mistake. The notes then prune by the cost C(T) = Error(T) + λ·#leaves: with λ = 2 the
grown tree costs 1 + 2·5 = 11, and pruning back to the root costs 4 + 2·1 = 6.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from lucidml.plot import TreeDisplay
from lucidml.tree import DecisionTreeClassifier, export_text

credit = {"excellent": 1, "fair": 2, "poor": 3}
term = {"3 yrs": 1, "5 yrs": 2}
income = {"high": 1, "low": 2}
rows = [("excellent", "3 yrs", "high", "safe"), ("fair", "5 yrs", "low", "risky"),
        ("fair", "3 yrs", "high", "safe"), ("poor", "5 yrs", "high", "risky"),
        ("excellent", "3 yrs", "low", "risky"), ("fair", "5 yrs", "low", "safe"),
        ("poor", "3 yrs", "high", "risky"), ("poor", "5 yrs", "low", "safe"),
        ("fair", "3 yrs", "high", "safe")]
X = np.array([[credit[c], term[t], income[i]] for c, t, i, _ in rows], dtype=float)
y = np.array([label for *_, label in rows])
names = ["credit", "term", "income"]

tree = DecisionTreeClassifier(criterion="misclassification", categorical_features=[0, 1, 2]).fit(X, y)
print(export_text(tree, feature_names=names))
mistakes = int(np.sum(tree.predict(X) != y))
print(f"{tree.get_n_leaves()} leaves, {mistakes} mistake; C(T) at λ = 2: {mistakes + 2 * tree.get_n_leaves()}")
assert (tree.get_n_leaves(), mistakes) == (5, 1)  # the notes' grown tree

# %%
# Error pruning with λ = 2 collapses both income splits and then the root.
pruned = DecisionTreeClassifier(criterion="misclassification", categorical_features=[0, 1, 2],
                                error_prune_lambda=2.0).fit(X, y)
mistakes = int(np.sum(pruned.predict(X) != y))
print(f"pruned: {pruned.get_n_leaves()} leaf, {mistakes} mistakes; C(T) = {mistakes + 2 * pruned.get_n_leaves()}")
assert mistakes + 2 * pruned.get_n_leaves() == 6  # the notes' pruned cost

# %%
# The grown tree (categories are shown by their codes: credit 1 = excellent, 2 = fair, 3 = poor;
# income 1 = high, 2 = low).
fig, ax = plt.subplots(figsize=(8, 4))
TreeDisplay.from_estimator(tree, feature_names=names, ax=ax)
ax.set_title("The loan tree of seed 004 §12")
plt.show()
