"""
Bias and variance of decision trees of growing depth
====================================================

A shallow tree underfits: whatever training set it gets, it draws nearly the same few steps,
far from the truth (high bias, low variance). A deep tree overfits: it follows the noise of
its training set, so two training sets give two very different trees (low bias, high variance)
(seed 001 §11, seed 000 §8.1). ``bias_variance_decomposition`` measures both: it holds out a
test part, refits the tree on bootstrap samples of the rest and splits the mean test error
into the squared bias of the mean prediction and the variance around it.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from lucidml.model_selection import bias_variance_decomposition
from lucidml.tree import DecisionTreeRegressor

rng = np.random.default_rng(0)
X = rng.uniform(0, 1, (300, 1))
expected = np.sin(2 * np.pi * X[:, 0])  # ȳ(x): the data are synthetic, so the noise is known
y = expected + 0.3 * rng.normal(size=300)

depths = list(range(1, 11))
results = [bias_variance_decomposition(DecisionTreeRegressor(max_depth=depth), X, y, loss="squared", n_rounds=40,
                                       test_size=0.3, y_expected=expected, random_state=0) for depth in depths]
for depth, (loss, bias, variance) in zip(depths, results):
    print(f"depth {depth:2d}: expected loss {loss:.3f} = bias² {bias:.3f} + variance {variance:.3f} + noise")
    assert loss > bias + variance  # the noise adds to both
assert results[0].bias > 3 * min(r.bias for r in results)  # the stump underfits
assert results[-1].variance > 1.5 * results[0].variance  # the deepest tree varies most

# %%
# The bias falls with the depth until the trees can follow the sine (depth 3–4). Deeper trees
# follow the noise: the variance keeps rising, and since the bootstrap samples all come from one
# training set, their mean prediction keeps that set's noise, which the decomposition counts as
# bias, so it rises again. Bias² + variance, the error that depends on the model, is smallest in
# between. The noise, here 0.3² = 0.09, is the floor no model goes under.
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(depths, [r.bias for r in results], marker="o", label="bias²")
ax.plot(depths, [r.variance for r in results], marker="o", label="variance")
ax.plot(depths, [r.bias + r.variance for r in results], marker="o", label="bias² + variance")
ax.plot(depths, [r.expected_loss for r in results], marker="o", linestyle="--", label="expected test loss")
ax.axhline(0.09, color="grey", linestyle=":", label="noise 0.3²")
best = depths[int(np.argmin([r.bias + r.variance for r in results]))]
assert 2 <= best <= 6
ax.axvline(best, color="k", linewidth=0.8)
ax.set_xlabel("max_depth of the tree")
ax.set_ylabel("squared error")
ax.set_title(f"Bias–variance trade-off: best depth {best}")
ax.legend()
fig.tight_layout()
plt.show()
