"""
A generalized additive model on the two moons
=============================================

Seed 000 §7.4 fits logit p(y = 1 | x) = α + f₁(x₁) + … + f_n(x_n), one smooth function per
feature, by local scoring: a Newton step turns the labels into a working response
z = η + (y − μ)/(μ(1 − μ)) with weights w = μ(1 − μ), and weighted backfitting of z by cubic
smoothing splines updates each f_j in turn (Algorithm 8). §7.9.3 runs it on 200 points of
``make_moons(noise=0.2)`` (global seed 0, i.e. ``random_state=0``) and draws P(y = 1 | x). The
boundary bends where a logistic regression can only draw a line, yet stays additive: it is a
level set of f₁(x₁) + f₂(x₂), so it cannot follow the interlocking tips of the moons.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from lucidml.gam import GAMClassifier
from lucidml.linear import LogisticRegression

X, y = make_moons(200, noise=0.20, random_state=0)
gam = GAMClassifier(smoother="spline").fit(X, y)
logistic = LogisticRegression().fit(X, y)
print(f"GAM: {gam.n_iter_} local-scoring iterations, deviance {gam.loss_curve_[-1]:.2f}, "
      f"training accuracy {gam.score(X, y):.3f}")
print(f"logistic regression: training accuracy {logistic.score(X, y):.3f}")

# %%
# The model is additive: its log-odds are α plus one function of each feature, nothing else.
eta = gam.intercept_ + sum(f(X[:, j]) for j, f in enumerate(gam.components_))
np.testing.assert_allclose(gam.decision_function(X), eta, atol=1e-10)
assert gam.score(X, y) > logistic.score(X, y)

# %%
# Left: P(y = 1 | x) of the GAM. Middle and right: the two fitted functions f₁ and f₂ (the
# components of the log-odds), with the data's labels as a rug.
fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
xx, yy = np.meshgrid(np.linspace(-1.6, 2.6, 200), np.linspace(-1.3, 1.8, 200))
proba = gam.predict_proba(np.column_stack([xx.ravel(), yy.ravel()]))[:, 1].reshape(xx.shape)
axes[0].imshow(proba, cmap="bwr", alpha=0.8, extent=(-1.6, 2.6, -1.3, 1.8), origin="lower", vmin=0, vmax=1)
axes[0].contour(xx, yy, proba, levels=[0.5], colors="k")
axes[0].scatter(*X.T, c=y, cmap="bwr", edgecolors="k", s=25)
axes[0].set(title="GAM, P(y = 1 | x) (seed 000 §7.9.3)", xlabel="x₁", ylabel="x₂")
for j, ax in enumerate(axes[1:]):
    grid = np.linspace(X[:, j].min(), X[:, j].max(), 200)
    ax.plot(grid, gam.components_[j](grid), color="k")
    ax.plot(X[y == 0, j], np.full((y == 0).sum(), ax.get_ylim()[0]), "|", color="blue")
    ax.plot(X[y == 1, j], np.full((y == 1).sum(), ax.get_ylim()[0]), "|", color="red")
    ax.set(title=f"f{j + 1}(x{j + 1})", xlabel=f"x{j + 1}", ylabel="contribution to the log-odds")
fig.tight_layout()
plt.show()
