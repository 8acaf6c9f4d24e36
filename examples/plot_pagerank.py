"""
PageRank: ranking the pages of a small web
==========================================

Seed 002 §10.4 lists PageRank and the Google matrix G = α P̂ + (1 − α) v 1ᵀ (its text is not in
the notes, so the graph here is our own). A random surfer follows one of a page's out-links
with probability α = 0.85 and otherwise jumps to a page at random; the ranking is the surfer's
stationary distribution, the eigenvector r = G r with eigenvalue 1. The power method and a
direct sparse solve of (I − α P̂) r = (1 − α) v give the same scores.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from lucidml.graph import pagerank
from lucidml.plot import PageRankDisplay

pages = ["home", "about", "blog", "post 1", "post 2", "contact"]
links = [("home", "about"), ("home", "blog"), ("about", "home"), ("about", "contact"), ("blog", "post 1"),
         ("blog", "post 2"), ("blog", "home"), ("post 1", "blog"), ("post 2", "blog"), ("post 2", "post 1"),
         ("contact", "home")]
A = np.zeros((len(pages), len(pages)))
for source, target in links:
    A[pages.index(source), pages.index(target)] = 1.0  # A[i, j] = 1: page i links to page j

power = pagerank(A, damping=0.85, method="power")
direct = pagerank(A, damping=0.85, method="linear")
for i in np.argsort(-power.scores):
    print(f"{pages[i]:8s} {power.scores[i]:.4f}")
print("power method vs. linear solve:", np.max(np.abs(power.scores - direct.scores)))

# %%
# Node size and colour are the scores: the blog, linked from the home page and from both
# posts, ranks first.
fig, ax = plt.subplots(figsize=(6, 5))
PageRankDisplay.from_graph(A, labels=pages, damping=0.85, ax=ax)
ax.set_title("PageRank, α = 0.85 (seed 002 §10.4)")
plt.show()
