"""
Kernel PCA untangles two concentric circles
===========================================

Seed 002 §7.4 (Summary 7.27) runs PCA in the feature space of a kernel without ever forming
the features: build the Gram matrix K = [k(xᵢ, xⱼ)], centre it, K̃ = K − 1_N K − K 1_N +
1_N K 1_N, take its leading eigenvectors αⱼ (eigenvalues μⱼ), and read the training scores as
√μⱼ αⱼ; a new point is projected through its own (centred) row of kernel values. Two rings
around the same centre have the same mean and no linear direction tells them apart, so ordinary
PCA only rotates them; with the RBF kernel k(x, z) = exp(−γ‖x − z‖²) the first kernel principal
component already puts the inner ring on one side and the outer ring on the other.

The scores are checked against scikit-learn's ``KernelPCA`` (equal up to the sign of each
component) and against the eigenvectors of K̃ computed here by hand.
"""

# %%
# Linear and kernel PCA on the circles
# ------------------------------------
import matplotlib.pyplot as plt
import numpy as np
import sklearn.decomposition
from scipy.spatial.distance import cdist
from sklearn.datasets import make_circles

from lucidml.decomposition import PCA, KernelPCA

X, y = make_circles(n_samples=300, factor=0.2, noise=0.08, random_state=123)  # y = 1: the inner ring

Z_linear = PCA(n_components=2).fit_transform(X)
kpca = KernelPCA(n_components=2, kernel="rbf", gamma=5.0).fit(X)
Z = kpca.transform(X)

# The first component alone separates the rings: every inner point lies on one side of a threshold.
orient = np.sign(Z[y == 1, 0].mean())
first = Z[:, 0] * orient  # oriented so that the inner ring is on the positive side
gap = first[y == 1].min() - first[y == 0].max()
print(f"first kernel component: inner ring ≥ {first[y == 1].min():.3f}, outer ring ≤ {first[y == 0].max():.3f}")
assert gap > 0
# Along the first linear component the rings overlap.
assert np.abs(Z_linear[y == 1, 0]).max() > np.abs(Z_linear[y == 0, 0]).min()

# %%
# The same numbers two other ways
# -------------------------------
# scikit-learn's KernelPCA, and Summary 7.27 written out with NumPy.
ref = sklearn.decomposition.KernelPCA(n_components=2, kernel="rbf", gamma=5.0).fit(X)
Z_ref = ref.transform(X)
signs = np.sign(np.sum(Z * Z_ref, axis=0))
assert np.allclose(Z, Z_ref * signs, atol=1e-8)

K = np.exp(-5.0 * cdist(X, X, "sqeuclidean"))
ones = np.full_like(K, 1 / len(X))
K_centred = K - ones @ K - K @ ones + ones @ K @ ones
mu, alpha = np.linalg.eigh(K_centred)
mu, alpha = mu[::-1][:2], alpha[:, ::-1][:, :2]
Z_hand = alpha * np.sqrt(mu)
assert np.allclose(np.abs(Z), np.abs(Z_hand), atol=1e-8)
print("eigenvalues μ₁, μ₂:", np.round(mu, 4))

# %%
# A grid of new points projected onto the first kernel component: its level sets are rings.
xx, yy = np.meshgrid(np.linspace(-1.4, 1.4, 120), np.linspace(-1.4, 1.4, 120))
level = kpca.transform(np.column_stack([xx.ravel(), yy.ravel()]))[:, 0].reshape(xx.shape)

fig, axes = plt.subplots(1, 3, figsize=(14, 4))
axes[0].contourf(xx, yy, level, levels=20, cmap="coolwarm", alpha=0.6)
axes[0].scatter(*X.T, c=y, cmap="coolwarm", edgecolors="k", s=15)
axes[0].set_title("data, shaded by the first kernel component")
axes[0].set_aspect("equal")
axes[1].scatter(Z_linear[:, 0], Z_linear[:, 1], c=y, cmap="coolwarm", edgecolors="k", s=15)
axes[1].set_title("linear PCA")
axes[2].scatter(Z[:, 0], Z[:, 1], c=y, cmap="coolwarm", edgecolors="k", s=15)
axes[2].axvline(orient * (first[y == 1].min() + first[y == 0].max()) / 2, color="k", ls="--", lw=1)
axes[2].set_title("RBF kernel PCA (γ = 5)")
for ax, name in zip(axes[1:], ["PC", "kernel PC"]):
    ax.set_xlabel(f"{name} 1")
    ax.set_ylabel(f"{name} 2")
fig.tight_layout()
plt.show()
