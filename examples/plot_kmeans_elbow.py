"""
k-means and the elbow: how many clusters?
=========================================

Exercise 8.1 of seed 002 (§8.2, §8.5) makes a data set of four clusters, runs k-means with
k-means++ seeding for K = 1, …, 10, computes the within-cluster SSE (the distortion) with a
function of one's own rather than the ``inertia_`` attribute, and looks for the elbow of SSE
against K: the K after which adding a cluster stops paying.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs

from lucidml.cluster import KMeans
from lucidml.metrics import sse
from lucidml.plot import ElbowDisplay

X, _ = make_blobs(n_samples=200, n_features=2, centers=4, cluster_std=0.6, shuffle=True, random_state=0)


def distortion(X, labels):
    """SSE = Σ_k Σ_{i ∈ C_k} ‖x_i − c_k‖², c_k the mean of cluster k: written out."""
    return sum(np.sum((X[labels == k] - X[labels == k].mean(axis=0)) ** 2) for k in np.unique(labels))


k_values = range(1, 11)
models = [KMeans(n_clusters=k, init="k-means++", n_init=10, random_state=0).fit(X) for k in k_values]
for k, model in zip(k_values, models):
    print(f"K = {k:2d}: SSE by hand {distortion(X, model.labels_):8.2f}, "
          f"lucidml.metrics.sse {sse(X, model.labels_):8.2f}, inertia_ {model.inertia_:8.2f}")

# %%
# The three numbers agree. The SSE falls steeply up to K = 4, the number of clusters drawn, and
# slowly after it: the elbow.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
ElbowDisplay(list(k_values), [m.inertia_ for m in models]).plot(ax=left)
left.axvline(4, color="grey", linestyle=":")
left.set_title("SSE against K (seed 002, Exercise 8.1)")
best = models[3]
right.scatter(X[:, 0], X[:, 1], c=best.labels_, s=15, cmap="tab10")
right.scatter(*best.cluster_centers_.T, marker="*", s=300, c="k")
right.set_title("K = 4: the clusters and their centres")
fig.tight_layout()
plt.show()
