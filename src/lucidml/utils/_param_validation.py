"""Declarative parameter validation shared by every lucidml estimator.

Each estimator declares, in one class-level dict ``_parameter_constraints``, the values each
``__init__`` parameter may take, and calls :func:`validate_params` first thing in ``fit``.
``__init__`` itself never validates (scikit-learn's contract: ``set_params`` and cloning must
accept anything). Every estimator therefore rejects a bad parameter with the same message,
which names the parameter, the estimator, what was allowed and what was given.

A parameter's constraint list holds one or more of:

- ``Interval(Real, 0, None, closed="left")`` -- a number in a range (``Integral`` admits
  Python and NumPy integers but not bools or floats; ``Real`` admits both but not bools);
- ``Options({"lstsq", "normal"})`` -- one value of a fixed set;
- ``None`` -- the value ``None``;
- ``"boolean"`` -- ``True`` or ``False`` (NumPy bools too);
- ``"array-like"`` -- a list, tuple or NumPy array;
- ``"random_state"`` -- ``None``, an int, a ``RandomState`` or a ``Generator``;
- ``"callable"`` -- anything callable;
- a class -- any instance of it.

A value is valid when it satisfies at least one constraint of its list.
"""

import os
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

__all__ = ["Interval", "N_JOBS", "Options", "InvalidParameterError", "thread_count", "validate_params"]


class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter holds a value its constraints do not allow.

    It subclasses both ``ValueError`` and ``TypeError`` because a wrong value and a wrong
    type are reported the same way, as scikit-learn does.
    """


@dataclass(frozen=True)
class Interval:
    """Numbers of a given type between ``left`` and ``right`` (``None`` = unbounded)."""

    type: type
    left: float | None
    right: float | None
    closed: str = "both"

    def __post_init__(self):
        if self.type not in (Integral, Real):
            raise ValueError("Interval type must be numbers.Integral or numbers.Real")
        if self.closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"Interval closed must be left/right/both/neither, not {self.closed!r}")

    def is_satisfied_by(self, value):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.type):
            return False
        if isinstance(value, Real) and np.isnan(value):
            return False
        closed_left = self.closed in ("left", "both")
        closed_right = self.closed in ("right", "both")
        if self.left is not None and (value < self.left or (value == self.left and not closed_left)):
            return False
        if self.right is not None and (value > self.right or (value == self.right and not closed_right)):
            return False
        return True

    def __str__(self):
        kind = "an int" if self.type is Integral else "a float"
        left = "(-inf" if self.left is None else ("[" if self.closed in ("left", "both") else "(") + f"{self.left}"
        right = "inf)" if self.right is None else f"{self.right}" + ("]" if self.closed in ("right", "both") else ")")
        return f"{kind} in the range {left}, {right}"


@dataclass(frozen=True)
class Options:
    """One value out of a fixed set (typically strings naming a solver or a rule)."""

    values: frozenset

    def __init__(self, values):
        object.__setattr__(self, "values", frozenset(values))

    def is_satisfied_by(self, value):
        try:
            return value in self.values
        except TypeError:  # unhashable value
            return False

    def __str__(self):
        return "one of " + ", ".join(repr(v) for v in sorted(self.values, key=str))


class HasMethods:
    """An object with all of these methods (e.g. a base estimator: ``HasMethods(["fit", "predict"])``)."""

    def __init__(self, methods):
        self.methods = tuple(methods)

    def is_satisfied_by(self, value):
        return all(callable(getattr(value, name, None)) for name in self.methods)

    def __str__(self):
        return "an object with the methods " + ", ".join(self.methods)


def _satisfies(value, constraint):
    if constraint is None:
        return value is None
    if isinstance(constraint, (Interval, Options, HasMethods)):
        return constraint.is_satisfied_by(value)
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "array-like":
        return isinstance(value, (list, tuple, np.ndarray))
    if constraint == "random_state":
        return value is None or _satisfies(value, Interval(Integral, 0, 2**32 - 1)) or isinstance(
            value, (np.random.RandomState, np.random.Generator)
        )
    if constraint == "callable":
        return callable(value)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    raise ValueError(f"Unknown parameter constraint {constraint!r}")


def _describe(constraint):
    if constraint is None:
        return "None"
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__}"
    names = {
        "boolean": "a bool",
        "array-like": "an array-like",
        "random_state": "None, an int in [0, 2**32 - 1], a RandomState or a Generator",
        "callable": "a callable",
    }
    return names.get(constraint, str(constraint))


def validate_params(estimator):
    """Check every constrained parameter of ``estimator``; raise on the first bad one.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, the estimator, what it accepts and the value it got.
    """
    # getattr, as get_params(deep=False) does, without its signature inspection (~50 µs a call)
    for name, constraints in type(estimator)._parameter_constraints.items():
        value = getattr(estimator, name)
        if any(_satisfies(value, c) for c in constraints):
            continue
        allowed = [_describe(c) for c in constraints]
        expected = allowed[0] if len(allowed) == 1 else ", ".join(allowed[:-1]) + " or " + allowed[-1]
        raise InvalidParameterError(
            f"The {name!r} parameter of {type(estimator).__name__} must be {expected}; got {value!r}."
        )


# ``n_jobs`` of every estimator with parallel work: None, -1 (every core) or a positive count.
# 0, other negative counts (joblib's "all but k") and non-integers are refused.
N_JOBS = [Interval(Integral, -1, -1, closed="both"), Interval(Integral, 1, None, closed="left"), None]

# ``verbose``: 0 (silent), 1 (progress lines), 2 and up (every iteration); True/False as 1/0.
VERBOSE = ["boolean", Interval(Integral, 0, None, closed="left")]


def thread_count(n_jobs, work=None, serial_below=0):
    """Threads for a validated ``n_jobs``: every core for -1, at most the cores for a count, and
    for None what ``lucidml.set_config(n_threads=...)`` allows (every core by default). Work
    smaller than ``serial_below`` (same units as ``work``) runs on one thread."""
    from .._config import max_threads

    if work is not None and work < serial_below:
        return 1
    cores = os.cpu_count() or 1
    if n_jobs is None:
        return max_threads()
    return cores if n_jobs == -1 else max(1, min(n_jobs, cores))
