"""
Bellman equations on the grid world
===================================

Seed 004 §17 writes the value of a policy π as the solution of the Bellman equations
V^π(s) = R(s) + γ Σ_s' P_sπ(s)(s') V^π(s'), one linear equation per state, and the
optimal value as V*(s) = R(s) + max_a γ Σ_s' P_sa(s') V*(s'). Here on the classic 4 × 3 grid
world (one wall, +1 and −1 exits, each step −0.04, moves slip sideways with probability 0.2,
γ = 0.99): first the value of a fixed policy, solved as a linear system and by repeated
Bellman backups, then value iteration and its greedy policy.
"""

# %%
# Evaluating one policy
# ---------------------
# The policy "always go right" (action 1). Solving (I − γ P_π) V = R_π and iterating
# V ← R_π + γ P_π V give the same values.
import matplotlib.pyplot as plt
import numpy as np

from lucidml.plot import ValueFunctionDisplay
from lucidml.rl import MDP, policy_evaluation, value_iteration

mdp = MDP.grid_world()
right = np.ones(mdp.n_states, dtype=int)
V_exact = policy_evaluation(mdp, right, method="exact")
V_iter = policy_evaluation(mdp, right, method="iterative", tol=1e-12)
print(np.round(V_exact[:12].reshape(3, 4), 3))
print("largest difference, linear solve vs. iteration:", np.max(np.abs(V_exact - V_iter)))

# %%
# The optimal values
# ------------------
# Value iteration repeats the Bellman optimality backup until the greedy policy is optimal.
# The arrows are that policy: from the bottom-left cell it goes up, the long way round the
# −1 exit.
plan = value_iteration(mdp, tol=1e-8)
walls, exits = [(1, 1)], [(0, 3), (1, 3)]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
ValueFunctionDisplay(V_exact, right, shape=(3, 4), walls=walls, terminals=exits).plot(ax=axes[0])
axes[0].set_title("V of 'always right'")
ValueFunctionDisplay.from_result(plan, shape=(3, 4), walls=walls, terminals=exits, ax=axes[1])
axes[1].set_title("V* and the greedy policy (value iteration)")
fig.tight_layout()
plt.show()
