"""
Gaussian discriminant analysis and naive Bayes: generative classifiers
======================================================================

Seed 000 §4.3 models each class as a Gaussian, x | y = c ~ N(μ_c, Σ), estimates φ, μ_c and Σ by
maximum likelihood, and classifies by Bayes' rule. With one covariance shared by the classes
(LDA) the posterior is logistic in x (the theorem of §4.3):
p(y = 1 | x) = σ(θᵀx + θ₀) with θ = Σ⁻¹(μ₁ − μ₀) and θ₀ = ½ μ₀ᵀΣ⁻¹μ₀ − ½ μ₁ᵀΣ⁻¹μ₁ + log(φ₁/φ₀);
with one covariance per class (QDA) the boundary is a conic. Gaussian naive Bayes (§4.5) keeps
only the diagonal of each class covariance. §4.8.2 fits LDA and QDA to two classes from
``make_classification(n_features=2, n_redundant=0, n_informative=1, n_clusters_per_class=1,
random_state=3216)`` and draws P(y = 1 | x) over the plane; here also naive Bayes.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn import discriminant_analysis as sk
from sklearn.datasets import make_classification

from lucidml.discriminant import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from lucidml.naive_bayes import GaussianNB

X, y = make_classification(n_features=2, n_redundant=0, n_informative=1, n_clusters_per_class=1, random_state=3216)
models = {"LDA (shared Σ)": LinearDiscriminantAnalysis().fit(X, y),
          "QDA (Σ per class)": QuadraticDiscriminantAnalysis().fit(X, y),
          "Gaussian naive Bayes": GaussianNB().fit(X, y)}
for name, model in models.items():
    print(f"{name:>22}: training accuracy {model.score(X, y):.2f}")

# %%
# The posterior of LDA is the sigmoid of the linear function of §4.3, built here from the
# fitted φ, μ_c and Σ; LDA and QDA give scikit-learn's probabilities.
lda = models["LDA (shared Σ)"]
precision = np.linalg.inv(lda.covariance_)
mu0, mu1 = lda.means_
theta = precision @ (mu1 - mu0)
theta0 = 0.5 * mu0 @ precision @ mu0 - 0.5 * mu1 @ precision @ mu1 + np.log(lda.priors_[1] / lda.priors_[0])
np.testing.assert_allclose(lda.predict_proba(X)[:, 1], 1 / (1 + np.exp(-(X @ theta + theta0))), atol=1e-10)
print("θ =", theta.round(4), " θ₀ =", round(theta0, 4))

references = [sk.LinearDiscriminantAnalysis(), sk.QuadraticDiscriminantAnalysis()]
for model, reference in zip(list(models.values())[:2], references):
    np.testing.assert_allclose(model.predict_proba(X), reference.fit(X, y).predict_proba(X), atol=1e-8)

# %%
# P(y = 1 | x) over the plane, as in the notes' figures; the black dots are the class means.
x1, x2 = np.meshgrid(np.linspace(-3.1, 3.1, 200), np.linspace(-3.1, 3.1, 200))
grid = np.column_stack([x1.ravel(), x2.ravel()])
fig, axes = plt.subplots(1, 3, figsize=(14, 4.3), sharey=True)
for ax, (name, model) in zip(axes, models.items()):
    proba = model.predict_proba(grid)[:, 1].reshape(x1.shape)
    ax.imshow(proba, cmap="bwr", alpha=0.8, extent=(-3.1, 3.1, -3.1, 3.1), origin="lower", vmin=0, vmax=1)
    ax.contour(x1, x2, proba, levels=[0.5], colors="k", linewidths=1)
    ax.scatter(*X[y == 0].T, marker="o", facecolors="none", edgecolors="darkred")
    ax.scatter(*X[y == 1].T, marker="x", color="navy")
    ax.plot(*lda.means_.T, "ko", markersize=8)
    ax.set(title=name, xlabel="x₁")
axes[0].set_ylabel("x₂")
fig.suptitle("P(y = 1 | x) of three generative classifiers (seed 000 §4.8.2)")
fig.tight_layout()
plt.show()
