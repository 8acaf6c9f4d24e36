"""
Boosting: gradient tree boosting from residuals, and AdaBoost.M1
================================================================

Seed 000 §7.9.6 writes gradient tree boosting for the squared loss in a dozen lines: start from
f₀ = mean(y), then fit each new regression tree to the residuals y − f (the negative gradient
of the loss) and add it, with no shrinkage; 100 trees of depth 2 beat one tree of depth 5 on
its test split (RMSE 0.075 against 0.080 on the Boston data, which scikit-learn no longer
ships; here Friedman's benchmark function #1 takes its place). ``GradientBoostingRegressor``
with ``learning_rate=1`` is that loop; a smaller learning rate (shrinkage, §7.8.4) does better.
Then AdaBoost.M1 (Algorithm 10 of §7.8.2) on stumps: each classifier's weight is
α_k = ln((1 − r_k) / r_k), r_k its weighted training error.
"""

# %%
# The notes' loop and the library
# -------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_friedman1, make_moons
from sklearn.model_selection import train_test_split

from lucidml.ensemble import AdaBoostClassifier, GradientBoostingRegressor
from lucidml.tree import DecisionTreeRegressor

X, y = make_friedman1(n_samples=500, noise=1.0, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.33, random_state=42)


def rmse(y_true, y_pred):
    return float(np.sqrt(np.mean((y_true - y_pred) ** 2)))


f0, steps = y_train.mean(), []
fitted = np.full(len(y_train), f0)
for k in range(100):
    tree = DecisionTreeRegressor(max_depth=2, max_bins=255, random_state=0).fit(X_train, y_train - fitted)  # residuals
    fitted += tree.predict(X_train)
    steps.append(tree.predict(X_test))
staged_by_hand = f0 + np.cumsum(steps, axis=0)  # the test predictions after 1, 2, …, 100 trees
by_hand = staged_by_hand[-1]

plain = GradientBoostingRegressor(n_estimators=100, learning_rate=1.0, max_depth=2, criterion="squared_error",
                                  random_state=0)
plain.fit(X_train, y_train)
np.testing.assert_allclose(plain.predict(X_train), fitted, atol=1e-9)  # the same 100 trees
shrunk = GradientBoostingRegressor(n_estimators=300, learning_rate=0.1, max_depth=2, random_state=0)
shrunk.fit(X_train, y_train)
single = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X_train, y_train)
scores = {"one tree of depth 5": rmse(y_test, single.predict(X_test)),
          "the notes' loop, 100 trees": rmse(y_test, by_hand),
          "learning_rate=1, 100 trees": rmse(y_test, plain.predict(X_test)),
          "learning_rate=0.1, 300 trees": rmse(y_test, shrunk.predict(X_test))}
for name, score in scores.items():
    print(f"{name:>30}: test RMSE {score:.3f}")
assert max(scores["the notes' loop, 100 trees"], scores["learning_rate=1, 100 trees"]) < scores["one tree of depth 5"]
assert scores["learning_rate=0.1, 300 trees"] < scores["learning_rate=1, 100 trees"]

# %%
# AdaBoost.M1 on the two moons
# ----------------------------
Xm, ym = make_moons(300, noise=0.25, random_state=0)
ada = AdaBoostClassifier(n_estimators=60, random_state=0).fit(Xm, ym)  # decision stumps by default
r = ada.estimator_errors_
np.testing.assert_allclose(ada.estimator_weights_, np.log((1 - r) / r), rtol=1e-10)
print("first weighted errors r_k:", r[:5].round(3), " weights α_k:", ada.estimator_weights_[:5].round(3))
print(f"training accuracy of 60 stumps: {ada.score(Xm, ym):.3f}")

# %%
# Left: the test error as trees are added (the loop's running sums, and ``staged_predict``).
# Without shrinkage the error falls for about twenty trees and then rises again, as the later
# trees fit the noise of the training residuals; with η = 0.1 each tree corrects a tenth of the
# residual and the ensemble keeps improving over hundreds of trees. Right: the staircase
# boundary of 60 stumps.
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
for staged, label in ((staged_by_hand, "learning_rate = 1 (the notes' loop)"),
                      (shrunk.staged_predict(X_test), "learning_rate = 0.1")):
    curve = [rmse(y_test, p) for p in staged]
    left.plot(np.arange(1, len(curve) + 1), curve, label=label)
left.axhline(scores["one tree of depth 5"], color="grey", linestyle=":", label="one tree of depth 5")
left.set(xlabel="number of trees", ylabel="test RMSE", title="Gradient tree boosting (seed 000 §7.9.6)")
left.legend()
xx, yy = np.meshgrid(np.linspace(-1.6, 2.6, 200), np.linspace(-1.2, 1.7, 200))
proba = ada.predict_proba(np.column_stack([xx.ravel(), yy.ravel()]))[:, 1].reshape(xx.shape)
right.contourf(xx, yy, proba, levels=20, cmap="RdBu_r", alpha=0.7)
right.scatter(*Xm.T, c=ym, cmap="RdBu_r", edgecolors="k", s=18)
right.set(title="AdaBoost.M1, 60 stumps (seed 000 §7.8.2)", xlabel="x₁", ylabel="x₂")
fig.tight_layout()
plt.show()
