"""
An RBF support vector machine on the two moons
==============================================

Seed 000 §6.10.2 fits ``SVC(C=100, gamma=0.1, kernel="rbf")`` to 200 points of
``make_moons(noise=0.2)`` (the global NumPy seed set to 0, which is ``random_state=0``), draws
the decision boundary and counts the support vectors (α_i ≠ 0): 51 in the notes. lucidml's SVC
solves the same dual by SMO; scikit-learn's ``DecisionBoundaryDisplay`` draws it, since a
lucidml estimator is a scikit-learn estimator.
"""

# %%
import matplotlib.pyplot as plt
from sklearn.datasets import make_moons
from sklearn.inspection import DecisionBoundaryDisplay

from lucidml.svm import SVC

X, y = make_moons(200, noise=0.20, random_state=0)
clf = SVC(C=100.0, gamma=0.1, kernel="rbf").fit(X, y)
print("number of support vectors:", len(clf.support_))
print("training accuracy:", clf.score(X, y))
assert len(clf.support_) == 51  # the notes' count

# %%
# The decision function f(x) = Σ_i α_i y_i k(x_i, x) + b: its zero level is the boundary, the
# levels ±1 the margins; circled points are the support vectors.
fig, ax = plt.subplots(figsize=(6, 4.5))
DecisionBoundaryDisplay.from_estimator(clf, X, response_method="decision_function", plot_method="contourf",
                                       cmap="RdBu", alpha=0.5, ax=ax)
DecisionBoundaryDisplay.from_estimator(clf, X, response_method="decision_function", plot_method="contour",
                                       levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"], ax=ax)
ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", edgecolors="k", s=25)
ax.scatter(*clf.support_vectors_.T, s=90, facecolors="none", edgecolors="k", linewidths=0.8)
ax.set_title("SVC(C=100, γ=0.1) on make_moons (seed 000 §6.10.2)")
plt.show()
