"""
PCA on the wine data: explained variance and the choice of k
============================================================

Seed 002 §7.1.3 defines the explained variance ratio of each principal component,
evr(λ_i) = λ_i / Σ_j λ_j with λ_j the eigenvalues of XᵀX (X centred), and the cumulative
explained variance cev(λ_k) = Σ_{i ≤ k} evr(λ_i), and picks the smallest k with cev(λ_k) ≥ ε
(7.21); its Figure 7.2 shows both for the standardized wine data (13 features). lucidml's PCA
computes them from the SVD of X (§7.2), without forming XᵀX.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.preprocessing import StandardScaler

from lucidml.datasets import load
from lucidml.decomposition import PCA
from lucidml.plot import ExplainedVarianceDisplay, ProjectionDisplay

X, y = load("wine")
X = StandardScaler().fit_transform(X)
pca = PCA().fit(X)

eigenvalues = np.linalg.eigvalsh((X - X.mean(axis=0)).T @ (X - X.mean(axis=0)))[::-1]
evr = eigenvalues / eigenvalues.sum()
np.testing.assert_allclose(pca.explained_variance_ratio_, evr, rtol=1e-10)
cev = np.cumsum(evr)
print("evr:", np.round(evr, 3))
print("cev:", np.round(cev, 3))
for eps in (0.8, 0.9, 0.95):
    print(f"smallest k with cev ≥ {eps}: {int(np.argmax(cev >= eps)) + 1}")

# %%
# The first two components hold more than half of the variance and already separate the three
# cultivars.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
ExplainedVarianceDisplay.from_estimator(pca, ax=left)
left.set_title("evr and cev, wine (seed 002 §7.1.3)")
ProjectionDisplay.from_estimator(PCA(n_components=2).fit(X), X, y, ax=right)
right.set_title("the wine data on the first two components")
fig.tight_layout()
plt.show()
