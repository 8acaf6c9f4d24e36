"""
The XOR network: one hidden layer of two sigmoids
=================================================

Seed 000 §5.3 trains a 2-2-1 network of sigmoid units on the XOR table (label 1 when the two
inputs are equal), a problem no linear classifier solves: weights drawn from U(−10, 10),
mini-batches of two samples, learning rate 0.1 on summed gradients, a small weight decay.
``MLPClassifier`` runs the same recipe (η = 0.2 on the mean of a batch of two is 0.1 on the
sum) and separates the four points; the plot shows the probability of class 1 over the square.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from lucidml.linear import LogisticRegression
from lucidml.neural import MLPClassifier

X = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=float)
y = np.array([1, 0, 0, 1])

net = MLPClassifier(hidden_layer_sizes=(2,), activation="logistic", solver="sgd", momentum=0.0,
                    learning_rate_init=0.2, batch_size=2, shuffle=False, init=("uniform", 10), alpha=1e-4,
                    weight_decay="decoupled", forward_per="epoch", max_iter=1000, tol=0.0, random_state=6)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # a fixed 1000 epochs (tol=0), as the notes
    net.fit(X, y)
print("network  P(y=1):", net.predict_proba(X)[:, 1].round(3), "predictions", net.predict(X))
print("logistic P(y=1):", LogisticRegression().fit(X, y).predict_proba(X)[:, 1].round(3))

# %%
# The logistic regression answers ½ everywhere: a line cannot split XOR. The network's hidden
# units draw two lines, and the output unit combines them.
grid = np.linspace(-0.25, 1.25, 121)
xx, yy = np.meshgrid(grid, grid)
proba = net.predict_proba(np.column_stack([xx.ravel(), yy.ravel()]))[:, 1].reshape(xx.shape)

fig, ax = plt.subplots(figsize=(5, 4.5))
image = ax.contourf(xx, yy, proba, levels=20, cmap="RdBu_r", vmin=0, vmax=1)
ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", edgecolors="k", s=120, vmin=0, vmax=1)
fig.colorbar(image, ax=ax, label="P(y = 1)")
ax.set(xlabel="x₁", ylabel="x₂", title="XOR with a 2-2-1 sigmoid network (seed 000 §5.3)")
plt.show()
