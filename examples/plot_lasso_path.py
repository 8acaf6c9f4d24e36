"""
The Lasso path: weights that become exactly zero
================================================

Seed 000 §1.7.4 fits ``Lasso`` to a regression problem with 10 features, 6 of them
informative (``make_regression(100, 10, n_informative=6, noise=1, random_state=2016)``, the
target divided by 10), and prints the weights for α = 0.1, 0.5, 1 and 10: the uninformative
weights are zero already at α = 0.1, the informative ones shrink as α grows, and at α = 10
every weight is zero. lucidml's coordinate descent prints the same table; the path below shows
every α at once.
"""

# %%
# The notes' table
# ----------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_regression

from lucidml.linear import Lasso
from lucidml.plot import RegularizationPathDisplay

X, y = make_regression(n_samples=100, n_features=10, n_informative=6, noise=1.0, bias=0, random_state=2016)
y = y / 10.0

np.set_printoptions(precision=4, suppress=True)
for alpha in [0.1, 0.5, 1.0, 10.0]:
    print(f"alpha = {alpha}:", Lasso(alpha=alpha, max_iter=100_000).fit(X, y).coef_)

# %%
# The notes print ``[0, 0, 7.511, 0.094, 0.142, 2.183, 0, 4.394, 5.425, 0]`` for α = 0.1:
# the same weights to the printed digits.
#
# The whole path
# --------------
# From α_max = max_j abs(x_jᵀ(y − ȳ)) / n, where every weight is zero, down to α_max / 1000, on a
# geometric grid, each fit warm-started from the previous one (``lucidml.linear.enet_path``).
display = RegularizationPathDisplay.from_estimator(Lasso(), X, y, n_alphas=50)
display.ax_.axvline(0.1, color="grey", linestyle=":")
display.ax_.set_title("Lasso path (seed 000 §1.7.4)")
plt.show()
