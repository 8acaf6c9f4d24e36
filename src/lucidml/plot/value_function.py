"""The value function and the greedy policy of an MDP whose states are the cells of a grid."""

import numpy as np

from ._axes import axes_or_new, finish_plot

__all__ = ["ValueFunctionDisplay"]

# Screen direction (dx, dy, y up) of the actions of MDP.grid_world: 0..3 = up, right, down, left.
GRID_ACTIONS = ((0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0))


class ValueFunctionDisplay:
    """V(s) as a heat map of the grid, its value written in each cell, and π(s) as an arrow.

    State s is the cell (s // n_cols, s % n_cols), row 0 at the top, as in
    :meth:`lucidml.rl.MDP.grid_world`; states beyond the grid (grid_world's absorbing end
    state) are not drawn. Walls are left blank; terminal cells get no arrow.

    Parameters
    ----------
    values : array-like of shape (n_states,)
        V(s), with n_states ≥ n_rows · n_cols.
    policy : array-like of int of shape (n_states,), default=None
        The action in each state; None draws no arrows.
    shape : tuple (n_rows, n_cols)
    walls : iterable of (row, col), default=()
    terminals : iterable of (row, col), default=()
    action_directions : sequence of (dx, dy), default=GRID_ACTIONS
        The arrow of each action, y pointing up the screen (default: up, right, down, left).
    name : str, default=None
        Title of the plot.

    Attributes
    ----------
    image_ : matplotlib AxesImage
        V on the grid (walls masked).
    quiver_ : matplotlib Quiver or None
        One arrow per cell that is neither a wall nor terminal.
    texts_ : list of matplotlib Text
        The value written in each cell that is not a wall.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from lucidml.rl import MDP, value_iteration
    >>> from lucidml.plot import ValueFunctionDisplay
    >>> plan = value_iteration(MDP.grid_world())
    >>> display = ValueFunctionDisplay.from_result(plan, shape=(3, 4), walls=[(1, 1)], terminals=[(0, 3), (1, 3)])
    >>> display.image_.get_array().shape, len(display.quiver_.U)
    ((3, 4), 9)
    >>> display.texts_[0].get_text()      # V of the top-left cell
    '0.78'
    """

    def __init__(self, values, policy=None, *, shape, walls=(), terminals=(), action_directions=GRID_ACTIONS,
                 name=None):
        self.values = values
        self.policy = policy
        self.shape = shape
        self.walls = walls
        self.terminals = terminals
        self.action_directions = action_directions
        self.name = name

    def plot(self, ax=None, *, cmap="viridis", decimals=2, **kwargs):
        """Draw the grid.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        cmap : str, default="viridis"
        decimals : int, default=2
            Digits of the values written in the cells.
        **kwargs
            Passed to ``Axes.quiver``.

        Returns
        -------
        self : ValueFunctionDisplay
        """
        n_rows, n_cols = (int(n) for n in self.shape)
        V = np.asarray(self.values, dtype=np.float64)
        if V.ndim != 1 or V.size < n_rows * n_cols:
            raise ValueError(f"values must be 1-D with at least n_rows·n_cols = {n_rows * n_cols} states; got shape "
                             f"{V.shape}.")
        walls = _cells(self.walls, n_rows, n_cols, "walls")
        blank = np.zeros((n_rows, n_cols), dtype=bool)
        blank[tuple(np.array(sorted(walls), dtype=np.intp).reshape(-1, 2).T)] = True
        grid = np.ma.masked_array(V[:n_rows * n_cols].reshape(n_rows, n_cols), mask=blank)
        ax = axes_or_new(ax)
        self.image_ = ax.imshow(grid, cmap=cmap)
        ax.figure.colorbar(self.image_, ax=ax, label="V(s)")
        self.texts_ = [ax.text(c, r, f"{grid[r, c]:.{decimals}f}", ha="center", va="bottom", fontsize=8, color="w")
                       for r in range(n_rows) for c in range(n_cols) if not blank[r, c]]
        self.quiver_ = self._arrows(ax, n_rows, n_cols, walls, **kwargs)
        ax.set_xticks(range(n_cols))
        ax.set_yticks(range(n_rows))
        return finish_plot(self, ax)

    def _arrows(self, ax, n_rows, n_cols, walls, **kwargs):
        """One arrow per cell that is neither a wall nor terminal, pointing the policy's way."""
        if self.policy is None:
            return None
        policy = np.asarray(self.policy)
        directions = np.asarray(self.action_directions, dtype=np.float64)
        if policy.ndim != 1 or policy.size < n_rows * n_cols or not np.issubdtype(policy.dtype, np.integer):
            raise ValueError("policy must be one action index per state (at least one per cell).")
        if policy.min() < 0 or policy.max() >= len(directions):
            raise ValueError(f"policy actions must be in [0, {len(directions)}): one direction per action.")
        skip = walls | _cells(self.terminals, n_rows, n_cols, "terminals")
        cells = [(r, c) for r in range(n_rows) for c in range(n_cols) if (r, c) not in skip]
        if not cells:
            return None
        rows, cols = np.array(cells).T
        arrows = directions[policy[rows * n_cols + cols]]
        return ax.quiver(cols, rows + 0.15, arrows[:, 0], arrows[:, 1], angles="uv", pivot="middle",
                         **{"scale": 2.5 * max(n_rows, n_cols), **kwargs})

    @classmethod
    def from_result(cls, result, *, shape, walls=(), terminals=(), ax=None, **kwargs):
        """Draw the values and policy a planner returned (value or policy iteration).

        Parameters
        ----------
        result : PlanningResult
            ``V`` and ``policy`` of every state.
        shape, walls, terminals
            As in the class.
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        ValueFunctionDisplay
        """
        if not (hasattr(result, "V") and hasattr(result, "policy")):
            raise TypeError(f"from_result needs a planning result with V and policy; got {type(result).__name__}.")
        display = cls(result.V, result.policy, shape=shape, walls=walls, terminals=terminals,
                      name=type(result).__name__)
        return display.plot(ax=ax, **kwargs)

    @classmethod
    def from_estimator(cls, agent, *, shape, walls=(), terminals=(), ax=None, **kwargs):
        """Draw what a fitted learner knows: max_a Q(s, a) (Q-learning, SARSA) or its V, and its policy.

        Parameters
        ----------
        agent : fitted QLearning, SARSA or ModelBasedLearner
        shape, walls, terminals
            As in the class.
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        ValueFunctionDisplay
        """
        if hasattr(agent, "q_"):
            values = np.asarray(agent.q_).max(axis=1)
        elif hasattr(agent, "value_"):
            values = agent.value_
        else:
            raise TypeError(f"ValueFunctionDisplay needs a fitted reinforcement learner (with q_ or value_); "
                            f"{type(agent).__name__} has neither (is it fitted?).")
        display = cls(values, agent.policy_, shape=shape, walls=walls, terminals=terminals, name=type(agent).__name__)
        return display.plot(ax=ax, **kwargs)


def _cells(cells, n_rows, n_cols, what):
    """The (row, col) pairs as a set, each checked to lie on the grid."""
    cells = {tuple(int(v) for v in cell) for cell in cells}
    for r, c in cells:
        if not (0 <= r < n_rows and 0 <= c < n_cols):
            raise ValueError(f"{what} must be (row, col) cells of the {n_rows}×{n_cols} grid; got {(r, c)}.")
    return cells
