"""
How many clusters? The elbow, the silhouette and the gap statistic
==================================================================

Seed 002 §8.5.2 reads the number of clusters off three curves: the within-cluster SSE, which
always falls with k and bends at the right k (the elbow); the mean silhouette width, largest
for the best-separated clustering; and the gap statistic (Tibshirani, Walther & Hastie 2001),
which compares log SSE with its value on data without clusters and takes the smallest k whose
gap is within one standard error of the next one. ``lucidml.cluster.choose_n_clusters`` computes
each curve and its choice of k.
"""

# %%
import matplotlib.pyplot as plt
from sklearn.datasets import make_blobs

from lucidml.cluster import KMeans, choose_n_clusters
from lucidml.plot import ElbowDisplay, SilhouetteDisplay

X, _ = make_blobs(n_samples=300, centers=4, cluster_std=0.8, random_state=3)

k_range = range(1, 9)
elbow = choose_n_clusters(X, k_range, method="elbow", random_state=0)
silhouette = choose_n_clusters(X, range(2, 9), method="silhouette", random_state=0)
gap = choose_n_clusters(X, k_range, method="gap", random_state=0)  # the default method
for result in (elbow, silhouette, gap):
    print(f"{result.method:>10}: k = {result.best_k}")
assert silhouette.best_k == gap.best_k == 4  # the four blobs

# %%
# The three curves, each with its chosen k, and the silhouette plot of the gap statistic's
# clustering (every sample's silhouette, cluster by cluster). The silhouette and the gap find the
# four blobs; the automatic knee of the elbow curve (the point farthest below its chord) is the
# least reliable of the three: the SSE bends gradually here, and the knee stops one cluster short.
fig, axes = plt.subplots(2, 2, figsize=(10, 8))
ElbowDisplay(elbow.k_values, elbow.scores).plot(ax=axes[0, 0])
axes[0, 0].set_title(f"elbow: k = {elbow.best_k}")
axes[0, 1].plot(silhouette.k_values, silhouette.scores, marker="o")
axes[0, 1].set(xlabel="number of clusters k", ylabel="mean silhouette width",
               title=f"silhouette: k = {silhouette.best_k}")
axes[1, 0].errorbar(gap.k_values, gap.scores, yerr=gap.standard_error, marker="o", capsize=3)
axes[1, 0].set(xlabel="number of clusters k", ylabel="Gap(k) ± s_k", title=f"gap statistic: k = {gap.best_k}")
for ax, k in ((axes[0, 0], elbow.best_k), (axes[0, 1], silhouette.best_k), (axes[1, 0], gap.best_k)):
    ax.axvline(k, color="grey", linestyle=":")
model = KMeans(n_clusters=gap.best_k, random_state=0).fit(X)
SilhouetteDisplay.from_estimator(model, X, ax=axes[1, 1])
axes[1, 1].set_title(f"silhouettes of k-means with k = {gap.best_k}")
fig.tight_layout()
plt.show()
