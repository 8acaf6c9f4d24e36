"""
A self-organizing map of the iris flowers
=========================================

Seed 002 §8.6 trains a Kohonen map: a lattice of units, each with a weight vector in the input
space; for every input the closest unit wins (competition), and the winner and its lattice
neighbours move towards the input (cooperation and adaptation), w_j ← w_j + η h_j,winner (x − w_j),
with a neighbourhood h that shrinks during training. The batch version (Kohonen 1995, the
"deterministic version" of the notes) replaces the updates by neighbourhood-weighted means and
gives the same map at every run from the same start (Remark 8.6: repeatability). Here a 8 × 8
batch map of the standardized iris data, started from the plane of its first two principal
components, is read through its U-matrix and its component planes.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.preprocessing import StandardScaler

from lucidml.cluster import SelfOrganizingMap
from lucidml.datasets import load
from lucidml.plot import SOMDisplay

X, y = load("iris")
X = StandardScaler().fit_transform(X)
names = ["sepal length", "sepal width", "petal length", "petal width"]
som = SelfOrganizingMap(shape=(8, 8), batch=True, init="pca", n_iter=30).fit(X)
again = SelfOrganizingMap(shape=(8, 8), batch=True, init="pca", n_iter=30).fit(X)
np.testing.assert_array_equal(som.weights_, again.weights_)  # the batch map is repeatable
print(f"quantization error {som.quantization_error_:.3f}, topographic error {som.topographic_error_:.3f}")
print("quantization error per epoch:", np.round(som.loss_curve_[::5], 3))

# %%
# Each species lands on its own part of the map: the share of each species' flowers whose winning
# unit is also a winner of another species is small.
winners = {species: set(som.labels_[y == species]) for species in np.unique(y)}
for species, units in winners.items():
    others = set().union(*(winners[s] for s in winners if s != species))
    print(f"species {species}: {len(units)} winning units, {len(units & others)} shared with another species")
assert not winners[0] & (winners[1] | winners[2])  # setosa is separate from the two others

# %%
# The U-matrix (mean distance of each unit to its lattice neighbours) shows a ridge between the
# setosa corner and the rest; the component planes show that petal length and petal width
# vary together across the map (their planes correlate at 0.98, as the features themselves do at
# 0.96), while sepal width runs on its own.
planes = np.corrcoef(som.weights_.T)
assert planes[2, 3] > 0.95 and abs(planes[1, 2]) < 0.5
display = SOMDisplay.from_estimator(som, feature_names=names)
display.figure_.suptitle("8 × 8 batch SOM of iris (seed 002 §8.6): U-matrix and component planes")
plt.show()
