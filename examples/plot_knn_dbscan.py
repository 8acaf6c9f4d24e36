"""
k nearest neighbours and DBSCAN on the half moons
=================================================

Seed 002 §5.5 (Algorithm 5.37) classifies a new point by a majority vote among its k nearest
training points, k = 5 and the Euclidean distance by default; seed 004 (k-nearest neighbours
classification) adds that larger k smooths the boundary. Seed 002 §8.4 clusters by density:
with N_ε(x) the points within ε of x, a point with at least MinPts points in N_ε(x) is *core*,
a non-core point within ε of a core point is *border*, and the rest is *noise*; its exercise 8.2
asks for half-moon shapes, where k-means fails and DBSCAN does not.

Here: two half moons of 200 points with a few uniform outliers added. DBSCAN (ε = 0.2,
MinPts = 5) finds the two moons and labels the outliers −1; k-means with two clusters cuts each
moon in half. Then a 5-NN and a 25-NN classifier on the moons. Every label and prediction is
checked against scikit-learn's.
"""

# %%
# Density-based clusters
# ----------------------
import matplotlib.pyplot as plt
import numpy as np
import sklearn.cluster
import sklearn.neighbors
from sklearn.datasets import make_moons
from sklearn.inspection import DecisionBoundaryDisplay
from sklearn.metrics import adjusted_rand_score

from lucidml.cluster import DBSCAN, KMeans
from lucidml.neighbors import KNeighborsClassifier

X_moons, y_moons = make_moons(200, noise=0.05, random_state=0)
rng = np.random.default_rng(0)
outliers = rng.uniform([-1.5, -1.0], [2.5, 1.5], size=(12, 2))
X = np.vstack([X_moons, outliers])

db = DBSCAN(eps=0.2, min_samples=5).fit(X)
labels = db.labels_
n_clusters = len(set(labels) - {-1})
print("clusters:", n_clusters, " noise points:", np.sum(labels == -1), " core points:", len(db.core_sample_indices_))

reference = sklearn.cluster.DBSCAN(eps=0.2, min_samples=5).fit(X)
assert np.array_equal(labels, reference.labels_)  # same labels, cluster numbers included
assert np.array_equal(np.sort(db.core_sample_indices_), np.sort(reference.core_sample_indices_))
assert n_clusters == 2
# The two moons are recovered exactly (the outliers that fall on a moon may join it).
assert adjusted_rand_score(y_moons, labels[:200]) == 1.0

km = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X)
print("adjusted Rand index on the moons: DBSCAN", adjusted_rand_score(y_moons, labels[:200]),
      " k-means", round(adjusted_rand_score(y_moons, km.labels_[:200]), 3))

# %%
# Core points are drawn large, border points small, noise as black crosses.
core = np.zeros(len(X), dtype=bool)
core[db.core_sample_indices_] = True
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for k, colour in zip(range(n_clusters), ["tab:blue", "tab:orange"]):
    member = labels == k
    axes[0].scatter(*X[member & core].T, c=colour, s=30, edgecolors="k", linewidths=0.4)
    axes[0].scatter(*X[member & ~core].T, c=colour, s=12)
axes[0].scatter(*X[labels == -1].T, c="k", marker="x", s=40, label="noise (−1)")
axes[0].legend(loc="lower left")
axes[0].set_title("DBSCAN(ε=0.2, MinPts=5)")
axes[1].scatter(*X.T, c=km.labels_, cmap="coolwarm", s=15)
axes[1].scatter(*km.cluster_centers_.T, c="k", marker="*", s=200)
axes[1].set_title("k-means, 2 clusters")
fig.tight_layout()
plt.show()

# %%
# Majority vote among the k nearest
# ---------------------------------
# A 5-NN and a 25-NN classifier trained on noisier moons; their predictions on a grid of test
# points are scikit-learn's. The larger k gives the smoother boundary.
X_train, y_train = make_moons(200, noise=0.3, random_state=1)
X_test, y_test = make_moons(500, noise=0.3, random_state=2)
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for ax, k in zip(axes, [5, 25]):
    knn = KNeighborsClassifier(n_neighbors=k).fit(X_train, y_train)
    ref = sklearn.neighbors.KNeighborsClassifier(n_neighbors=k).fit(X_train, y_train)
    assert np.array_equal(knn.predict(X_test), ref.predict(X_test))
    assert np.allclose(knn.predict_proba(X_test), ref.predict_proba(X_test))
    print(f"k = {k:2d}: training accuracy {knn.score(X_train, y_train):.3f}, "
          f"test accuracy {knn.score(X_test, y_test):.3f}")
    DecisionBoundaryDisplay.from_estimator(knn, X_train, response_method="predict_proba", cmap="RdBu",
                                           alpha=0.5, grid_resolution=150, ax=ax)
    ax.scatter(*X_train.T, c=y_train, cmap="RdBu", edgecolors="k", s=20)
    ax.set_title(f"{k}-NN: P(class 1 | x) = share of class 1 among the {k} nearest")
fig.tight_layout()
plt.show()
