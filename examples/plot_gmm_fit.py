"""
EM for a mixture of two Gaussians
=================================

Seed 000 §13.6 draws 1000 points from 2·N(0, I) + (5, 3) and 1000 from N(0, I)·C with
C = [[0, −0.5], [3.5, 0.7]], then runs ten EM iterations from φ = ½, Σ = I and means taken
from two halves of the data. EM recovers the two generating Gaussians: means (5, 3) and (0, 0),
covariances 4·I and CᵀC, weights ½.

E step: w_ik = φ_k N(x_i | μ_k, Σ_k) / Σ_j φ_j N(x_i | μ_j, Σ_j); M step: φ_k = mean_i w_ik,
μ_k = Σ_i w_ik x_i / Σ_i w_ik, Σ_k = Σ_i w_ik (x_i − μ_k)(x_i − μ_k)ᵀ / Σ_i w_ik.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from lucidml.mixture import GaussianMixture
from lucidml.plot import ConvergenceDisplay

rng = np.random.default_rng(0)
C = np.array([[0.0, -0.5], [3.5, 0.7]])
X = np.vstack([2.0 * rng.standard_normal((1000, 2)) + [5.0, 3.0], rng.standard_normal((1000, 2)) @ C])

with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # ten iterations, as the notes, on purpose
    gm = GaussianMixture(n_components=2, init_params="notes", tol=0.0, max_iter=10, random_state=234).fit(X)

np.set_printoptions(precision=3, suppress=True)
print("weights", gm.weights_)
print("means\n", gm.means_)
print("covariances\n", gm.covariances_)
print("CᵀC =\n", C.T @ C)

# The generating Gaussians, to sampling error (2000 points): component 0 is the shifted one here.
np.testing.assert_allclose(gm.weights_, [0.5, 0.5], atol=0.02)
np.testing.assert_allclose(gm.means_, [[5.0, 3.0], [0.0, 0.0]], atol=0.1)
np.testing.assert_allclose(gm.covariances_, [4.0 * np.eye(2), C.T @ C], atol=0.4)

# %%
# The fitted densities' contours over the data, and the lower bound of the log-likelihood,
# which EM never lowers.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
left.scatter(X[:, 0], X[:, 1], c=gm.predict(X), s=4, cmap="coolwarm", alpha=0.5)
xx, yy = np.meshgrid(np.linspace(-6, 12, 200), np.linspace(-6, 10, 200))
density = np.exp(gm.score_samples(np.column_stack([xx.ravel(), yy.ravel()]))).reshape(xx.shape)
left.contour(xx, yy, density, levels=8, colors="k", linewidths=0.8)
left.scatter(*gm.means_.T, marker="x", s=100, c="k")
left.set(title="Two Gaussians fitted by EM (seed 000 §13.6)", xlabel="x₁", ylabel="x₂")
ConvergenceDisplay.from_estimator(gm, ax=right)
right.set_title("lower bound per EM iteration")
fig.tight_layout()
plt.show()
