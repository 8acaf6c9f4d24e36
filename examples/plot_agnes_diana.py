"""
AGNES and DIANA: dendrograms of six points
==========================================

Seed 002 §8.3 builds a hierarchy of clusters bottom-up (AGNES: start from singletons, merge the
two closest groups) or top-down (DIANA: start from one group, split off the most dissimilar
points), and reads it from a dendrogram, each merge drawn at the dissimilarity of the two groups
it joins (Figures 8.24–8.27: six observations under single, complete and average linkage). The
linkages are (8.4)–(8.6): single d(G, H) = min d(i, j), complete = max d(i, j), average = the
mean of d(i, j) over the pairs, and Ward's = the increase of the within-cluster squared error.
The notes do not print their six points; ours are below. The merge heights are checked against
SciPy's ``linkage``, whose matrix format lucidml exposes as ``linkage_``.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from scipy.cluster.hierarchy import linkage

from lucidml.cluster import DIANA, AgglomerativeClustering
from lucidml.plot import DendrogramDisplay

X = np.array([[0.40, 0.53], [0.22, 0.38], [0.35, 0.32], [0.26, 0.19], [0.07, 0.42], [0.45, 0.30]])
names = [f"p{i + 1}" for i in range(len(X))]

models = {method: AgglomerativeClustering(n_clusters=2, linkage=method).fit(X)
          for method in ("single", "complete", "average", "ward")}
for method, model in models.items():
    np.testing.assert_allclose(model.linkage_[:, 2], linkage(X, method=method)[:, 2], atol=1e-12)
    print(f"{method:>8}: merge heights {np.round(model.linkage_[:, 2], 4)}, two clusters {model.labels_}")
diana = DIANA(n_clusters=2).fit(X)
print(f"{'DIANA':>8}: split heights {np.round(diana.linkage_[:, 2], 4)}, two clusters {diana.labels_}")

# %%
# Single linkage merges p3 and p6 first (the closest pair, at 0.102) and chains the others on
# at heights below 0.16, so its last merge only adds the outlying p1: cut at two clusters, it
# puts p1 alone, and so does average linkage. Complete linkage waits for the farthest pair and
# splits {p1, p2, p5} from {p3, p4, p6}; Ward's method splits off {p2, p5}, DIANA {p2, p4, p5}.
# The linkage decides the answer. Cutting a dendrogram with a horizontal line gives a flat
# clustering (Remark 8.2).


def groups(labels):
    return sorted(sorted(names[i] for i in np.flatnonzero(labels == k)) for k in np.unique(labels))


assert groups(models["single"].labels_) == groups(models["average"].labels_) == [["p1"], names[1:]]
assert groups(models["complete"].labels_) == [["p1", "p2", "p5"], ["p3", "p4", "p6"]]

fig, axes = plt.subplots(2, 3, figsize=(13, 7))
axes[0, 0].scatter(*X.T, s=40)
for name, (x, y) in zip(names, X):
    axes[0, 0].annotate(name, (x, y), textcoords="offset points", xytext=(5, 5))
axes[0, 0].set(title="six observations", aspect="equal")
for ax, (method, model) in zip(axes.ravel()[1:], [*models.items(), ("DIANA (divisive)", diana)]):
    DendrogramDisplay.from_estimator(model, labels=names, ax=ax)
    ax.set_title(method if method.startswith("DIANA") else f"AGNES, {method} linkage")
fig.suptitle("Hierarchical clustering of six points (seed 002 §8.3)")
fig.tight_layout()
plt.show()
