"""
Q-learning on the grid world
============================

Seed 004 §17 plans with a known model: the transition probabilities P_sa and the rewards give
the Bellman optimality equation V*(s) = R(s) + max_a γ Σ_s' P_sa(s') V*(s'), solved by value
iteration. Q-learning (Watkins' rule, in lucidml.rl as the learning counterpart of that
chapter) needs no model: it only walks the world, and after each move (s, a, r, s') nudges its
table towards the one-step Bellman target,

    Q(s, a) ← Q(s, a) + α [r + γ max_a' Q(s', a') − Q(s, a)].

Here on the 4 × 3 grid world of the Bellman example (one wall, exits worth +1 and −1, each step
−0.04, moves slip sideways with probability 0.2), with γ = 0.9. The agent explores by
uniformly random moves (Q-learning is off-policy: it learns the greedy policy's values whatever
it does), and α = 1/n(s, a) makes each entry an average of its targets. Its greedy policy
argmax_a Q(s, a) must be value iteration's in every cell.
"""

# %%
# Planning with the model, learning without it
# --------------------------------------------
import matplotlib.pyplot as plt
import numpy as np

from lucidml.plot import ValueFunctionDisplay
from lucidml.rl import MDP, MDPEnvironment, QLearning, value_iteration

world = MDP.grid_world(gamma=0.9)
plan = value_iteration(world, tol=1e-10)

walls, exits = [(1, 1)], [(0, 3), (1, 3)]
cells = [s for s in range(12) if divmod(s, 4) not in walls + exits]  # the 9 cells where a choice is made
start = np.zeros(world.n_states)
start[cells] = 1 / len(cells)  # each episode starts in a random free cell
env = MDPEnvironment(world, start=start, max_steps=100, random_state=0)
agent = QLearning(gamma=0.9, learning_rate="visits", epsilon=1.0, n_episodes=1500, random_state=0).fit(env)

names = np.array(["up", "right", "down", "left"])
print("value iteration:", names[plan.policy[cells]])
print("Q-learning:     ", names[agent.policy_[cells]])
assert np.array_equal(agent.policy_[cells], plan.policy[cells])

# How far the learned values are from V*: the averages still carry the early, too-low targets,
# but the ranking of the actions is already right.
V_learned = agent.q_.max(axis=1)
print("largest |max_a Q(s, a) − V*(s)|:", round(float(np.max(np.abs(V_learned[cells] - plan.V[cells]))), 3))

# %%
# Left: V* and the optimal policy from value iteration; right: max_a Q and the greedy policy
# learned from 1500 episodes of random walks.
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
ValueFunctionDisplay.from_result(plan, shape=(3, 4), walls=walls, terminals=exits, ax=axes[0])
axes[0].set_title("value iteration: V* and π*")
ValueFunctionDisplay(V_learned, agent.policy_, shape=(3, 4), walls=walls, terminals=exits).plot(ax=axes[1])
axes[1].set_title("Q-learning: max_a Q and its greedy policy")
fig.tight_layout()
plt.show()

