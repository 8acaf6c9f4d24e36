"""The progress lines that ``verbose`` prints: one format for every estimator, in scikit-learn's style.

Two shapes, both written to standard output (as scikit-learn does) and flushed line by line:

``StageTable`` — ensembles, one row per tree or boosting stage::

          Iter       Train Loss      OOB Improve   Remaining Time
             1           0.6016           0.0123            1.23s
             2           0.5344           0.0110            1.10s

    ``verbose=1`` prints stages 1–10, then every 10th up to 100, every 100th up to 1000, …;
    ``verbose>=2`` prints every stage.

``IterationLog`` — iterative solvers (epochs, EM iterations, Lloyd passes, restarts)::

    Initialization 0
    Iteration 1, loss = 0.69314718
    Iteration 2, loss = 0.41023355
    Converged at iteration 37: change 1.2e-05 < tol 1e-04

    and, where the loop runs inside one compiled kernel, one summary line per kernel call::

    Run 0, n_iter = 12, inertia = 153.46

With ``verbose=0`` every method returns at once; estimators call these only from their Python
loops, never from inside a compiled kernel.
"""

import sys
import time
from numbers import Integral

__all__ = ["IterationLog", "StageTable", "format_value"]


def format_value(value):
    """A number as the progress lines show it: integers as they are, floats with 8 significant digits."""
    if isinstance(value, bool) or not isinstance(value, (Integral, float)) and not hasattr(value, "dtype"):
        return str(value)
    if isinstance(value, Integral) or getattr(getattr(value, "dtype", None), "kind", "f") in "iu":
        return str(int(value))
    return f"{float(value):.8g}"


def _emit(text):
    """Print one line to the current standard output (read at call time, so capture works) and flush."""
    stream = sys.stdout
    stream.write(text + "\n")
    stream.flush()


def _duration(seconds):
    return f"{seconds / 60:.2f}m" if seconds > 60 else f"{seconds:.2f}s"


class StageTable:
    """Rows of ``Iter``, the given columns and ``Remaining Time``, one per tree or stage.

    ``table = StageTable(verbose, total, ["Train Loss"])`` prints the header (nothing if verbose
    is 0); ``table.row(stage, loss)`` prints stage ``stage`` (1-based) if it is due. ``begin``
    is the number of stages fitted before (``warm_start``), so the time estimate counts only
    this fit's stages.
    """

    def __init__(self, verbose, total, columns=(), begin=0):
        self.verbose, self.total, self.begin = int(verbose), int(total), int(begin)
        self._every = 1
        if not self.verbose:
            return
        self._start = time.perf_counter()
        names = ["Iter", *columns, "Remaining Time"]
        _emit(f"{names[0]:>10} " + "".join(f"{name:>16} " for name in names[1:]).rstrip())

    def row(self, stage, *values):
        """Print 1-based ``stage`` with ``values`` (one per column) if verbose says it is due."""
        if not self.verbose:
            return
        done = stage - self.begin
        if done % self._every:
            return
        remaining = (self.total - stage) * (time.perf_counter() - self._start) / max(done, 1)
        cells = [f"{value:>16.4f}" for value in values] + [f"{_duration(remaining):>16}"]
        _emit(f"{stage:>10d} " + " ".join(cells))
        if self.verbose == 1 and done // (self._every * 10) > 0:
            self._every *= 10


class IterationLog:
    """Lines of an iterative solver: ``Initialization r``, ``Iteration t, name = value, …``,
    ``Converged at iteration t: change c < tol τ`` and one-line summaries of a kernel call."""

    def __init__(self, verbose):
        self.verbose = int(verbose)

    def __bool__(self):
        return bool(self.verbose)

    def start(self, run):
        """A new initialization (restart) ``run`` (0-based) begins."""
        if self.verbose:
            _emit(f"Initialization {run}")

    def iteration(self, n_iter, **values):
        """Iteration ``n_iter`` (1-based) ended with these values (e.g. ``loss=0.35``)."""
        if self.verbose:
            _emit(f"Iteration {n_iter}" + _pairs(values))

    def converged(self, n_iter, change=None, tol=None, reason=None, name="change"):
        """The stopping rule held at iteration ``n_iter``: ``change`` < ``tol`` (``name`` says what
        ``change`` is: "duality gap", …), or ``reason`` in words."""
        if self.verbose:
            why = reason if reason is not None else f"{name} {change:.3g} < tol {tol:.3g}"
            _emit(f"Converged at iteration {n_iter}: {why}")

    def stopped(self, n_iter, reason):
        """The run ended at iteration ``n_iter`` without converging (``reason``: e.g. "max_iter reached")."""
        if self.verbose:
            _emit(f"Stopped at iteration {n_iter}: {reason}")

    def summary(self, label, **values):
        """One line for a loop that ran inside a compiled kernel: ``label, name = value, …``."""
        if self.verbose:
            _emit(label + _pairs(values))


def _pairs(values):
    return "".join(f", {name} = {format_value(value)}" for name, value in values.items())
