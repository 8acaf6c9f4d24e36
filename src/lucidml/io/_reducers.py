"""Library objects saved as plain data and rebuilt through their library's own checks.

Each reducer turns an object into a dict of plain values and arrays (``save``) and builds it
back from one (``load``), validating what it is given: NumPy's random states, SciPy's B-splines,
FITPACK splines, k-d trees and sparse matrices. ``load`` raises ``ValueError`` or ``TypeError`` for bad data.
"""

import functools

import numpy as np

from ._allowlist import class_path

__all__ = ["reducer_for"]


def _save_random_state(rng):
    kind, keys, pos, has_gauss, cached = rng.get_state(legacy=True)
    return {"keys": keys, "pos": int(pos), "has_gauss": int(has_gauss), "cached_gaussian": float(cached)}


def _load_random_state(state):
    keys = state["keys"]
    if not (isinstance(keys, np.ndarray) and keys.dtype == np.uint32 and keys.shape == (624,)):
        raise ValueError("a random state needs 624 uint32 keys")
    # NumPy takes any position: one past the key table would read memory outside it.
    if not (type(state["pos"]) is int and 0 <= state["pos"] <= 624 and state["has_gauss"] in (0, 1)):
        raise ValueError("a random state's position must be in [0, 624] and has_gauss 0 or 1")
    rng = np.random.RandomState()
    rng.set_state(("MT19937", keys, int(state["pos"]), int(state["has_gauss"]), float(state["cached_gaussian"])))
    return rng


def _save_generator(rng):
    state = rng.bit_generator.state
    if state["bit_generator"] != "PCG64":
        raise TypeError(f"only PCG64 generators can be saved, not {state['bit_generator']}")
    return {"state": int(state["state"]["state"]), "inc": int(state["state"]["inc"]),
            "has_uint32": int(state["has_uint32"]), "uinteger": int(state["uinteger"])}


def _load_generator(state):
    fields = (state["state"], state["inc"], state["uinteger"])
    if not (all(type(v) is int for v in fields) and 0 <= state["state"] < 2**128 and 0 <= state["inc"] < 2**128
            and 0 <= state["uinteger"] < 2**32 and state["has_uint32"] in (0, 1)):
        raise ValueError("a PCG64 state needs 128-bit state and increment, a 32-bit buffer and a 0/1 flag")
    bits = np.random.PCG64()
    bits.state = {"bit_generator": "PCG64", "state": {"state": int(state["state"]), "inc": int(state["inc"])},
                  "has_uint32": int(state["has_uint32"]), "uinteger": int(state["uinteger"])}
    return np.random.Generator(bits)


def _save_bspline(spline):
    return {"t": spline.t, "c": spline.c, "k": int(spline.k), "extrapolate": spline.extrapolate,
            "axis": int(spline.axis)}


def _load_bspline(state):
    from scipy.interpolate import BSpline

    t, c = state["t"], state["c"]
    if not (isinstance(t, np.ndarray) and isinstance(c, np.ndarray) and t.dtype.kind == "f" and c.dtype.kind == "f"):
        raise TypeError("a B-spline needs float arrays of knots and coefficients")
    return BSpline(t, c, int(state["k"]), extrapolate=state["extrapolate"], axis=int(state["axis"]))


def _save_fitpack_spline(spline):
    t, c, k = spline._eval_args
    return {"t": t, "c": c, "k": int(k), "ext": int(spline.ext)}


def _fitpack_loader(name):
    def load(state):
        import scipy.interpolate

        t, c, k = state["t"], state["c"], int(state["k"])
        # FITPACK's splev trusts its arguments: n ≥ 2(k + 1) sorted knots, n − k − 1 coefficients.
        if not (isinstance(t, np.ndarray) and isinstance(c, np.ndarray) and t.ndim == c.ndim == 1
                and t.dtype == c.dtype == np.float64 and 1 <= k <= 5 and t.size >= 2 * (k + 1)
                and t.size - k - 1 <= c.size <= t.size and np.all(np.diff(t) >= 0)):
            raise TypeError("a FITPACK spline needs sorted float knots, enough coefficients and a degree in 1..5")
        if int(state["ext"]) not in (0, 1, 2, 3):
            raise ValueError("a FITPACK spline's ext must be 0, 1, 2 or 3")
        # The same knots, coefficients and degree evaluate through the same splev: the same values.
        return getattr(scipy.interpolate, name)._from_tck((t, c, k), ext=int(state["ext"]))

    return load


def _save_kdtree(tree):
    if tree.boxsize is not None:
        raise TypeError("periodic k-d trees (boxsize) cannot be saved")
    return {"data": tree.data, "leafsize": int(tree.leafsize)}


def _load_kdtree(state):
    from scipy.spatial import cKDTree

    data = state["data"]
    if not (isinstance(data, np.ndarray) and data.ndim == 2 and data.dtype == np.float64):
        raise TypeError("a k-d tree needs a 2-d float64 data array")
    # The same points and leaf size build the same tree: queries answer bit for bit alike.
    return cKDTree(data, leafsize=int(state["leafsize"]))


def _save_compressed(matrix):
    return {"data": matrix.data, "indices": matrix.indices, "indptr": matrix.indptr, "shape": tuple(matrix.shape)}


def _compressed_loader(name):
    def load(state):
        import scipy.sparse

        parts = (state["data"], state["indices"], state["indptr"])
        if not all(isinstance(a, np.ndarray) and a.ndim == 1 for a in parts) or parts[1].dtype.kind not in "iu":
            raise TypeError(f"a {name} needs 1-d data, integer indices and index pointers")
        matrix = getattr(scipy.sparse, name)(parts, shape=tuple(state["shape"]))
        matrix.check_format(full_check=True)  # every index in range, pointers non-decreasing
        return matrix

    return load


class _Reducer:
    def __init__(self, save, load):
        self.save, self.load = save, load


@functools.cache
def _reducers():
    import scipy.interpolate
    import scipy.sparse
    import scipy.spatial

    table = {
        np.random.RandomState: _Reducer(_save_random_state, _load_random_state),
        np.random.Generator: _Reducer(_save_generator, _load_generator),
        scipy.interpolate.BSpline: _Reducer(_save_bspline, _load_bspline),
        scipy.spatial.cKDTree: _Reducer(_save_kdtree, _load_kdtree),
    }
    for name in ("UnivariateSpline", "LSQUnivariateSpline"):
        table[getattr(scipy.interpolate, name)] = _Reducer(_save_fitpack_spline, _fitpack_loader(name))
    for name in ("csr_matrix", "csc_matrix", "csr_array", "csc_array"):
        table[getattr(scipy.sparse, name)] = _Reducer(_save_compressed, _compressed_loader(name))
    return {class_path(cls): reducer for cls, reducer in table.items()}


def reducer_for(path):
    """The reducer of the class named ``path``, or None."""
    return _reducers().get(path)
