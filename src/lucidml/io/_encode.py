"""From an object graph to a manifest and its arrays (the saving half of ``lucidml.io``).

Values become JSON: ``None``, booleans, integers, strings, finite floats and lists as
themselves; everything else as a one-key object whose key says what it is::

    {"$float": "nan"}              a non-finite float ("nan", "inf", "-inf")
    {"$scalar": ["<f8", 0.5]}      a NumPy scalar: its dtype and value
    {"$array": "a3"}               an array, stored as member arrays/a3.npy (or a view of one)
    {"$tuple": [...]}, {"$set": [...]}, {"$frozenset": [...]}, {"$dict": [[key, value], ...]}
    {"$slice": [start, stop, step]}, {"$dtype": "<f8"}, {"$type": "numpy.float64"}
    {"$class": "lucidml.neural.activations._ReLU"}   a class used as a value (allow-listed)
    {"$ref": 2}                    the object at index 2 of the manifest's object table

Each object is saved once, however often it is referenced, so shared objects stay shared. An
array that is a view into another saved array is saved as that view (its offset and strides),
not as a copy: a forest's trees read their nodes from one table, and still do after loading.
"""

import functools
import inspect
import json
import math

import numpy as np

from ._allowlist import CLASS_VALUES, ESTIMATORS, OBJECTS, class_path, settable
from ._reducers import reducer_for

__all__ = ["FORMAT_VERSION", "encode"]

FORMAT_VERSION = 1
FORMAT_NAME = "lucid"

# Scalar types a file may name as values ({"$type": ...}), e.g. OneHotEncoder(dtype=np.float64).
TYPES = {f"numpy.{name}": getattr(np, name) for name in (
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
    "complex64", "complex128", "str_")}
TYPES.update({"builtins.bool": bool, "builtins.int": int, "builtins.float": float, "builtins.str": str,
              "builtins.complex": complex, "builtins.object": object})
_TYPE_NAMES = {cls: name for name, cls in TYPES.items()}


def encode(root, version):
    """(manifest bytes maker, arrays to write) for saving ``root``.

    Raises ``TypeError`` naming the first value that a model file cannot hold.
    """
    writer = _Writer()
    root_ref = writer.value(root, type(root).__name__)
    arrays, table = writer.array_table()

    def make_manifest(digests):
        for name, digest in digests.items():
            table[name]["sha256"] = digest
        manifest = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "lucidml_version": version,
                    "root": root_ref, "objects": writer.objects, "arrays": table}
        return json.dumps(manifest, allow_nan=False, separators=(",", ":")).encode("utf-8")

    return make_manifest, arrays


class _Writer:
    def __init__(self):
        self.objects = []
        self._object_index = {}
        self._arrays = {}  # id → (name, array, object strings?)
        self._alive = []  # what was indexed by id stays alive, so no id is reused

    def value(self, v, where):
        kind = type(v)
        if v is None or kind in (bool, str):
            return v
        if kind is int:
            return v
        if kind is float:
            return v if math.isfinite(v) else {"$float": repr(v)}
        if kind is list:
            return [self.value(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if kind is tuple:
            return {"$tuple": [self.value(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if kind is dict:
            return {"$dict": [[self.value(k, f"{where} key"), self.value(x, f"{where}[{k!r}]")] for k, x in v.items()]}
        if kind in (set, frozenset):
            return {f"${kind.__name__}": [self.value(x, f"{where} item") for x in v]}
        if kind is slice:
            return {"$slice": [self.value(x, where) for x in (v.start, v.stop, v.step)]}
        if kind is np.ndarray:
            return {"$array": self._array(v, where)}
        if isinstance(v, np.generic):
            return self._scalar(v, where)
        if isinstance(v, np.dtype):
            if v != object:  # the object dtype as a value is only a name (SimpleImputer keeps it)
                _check_dtype(v, where)
            return {"$dtype": dtype_descr(v)}
        if isinstance(v, type) and v in _TYPE_NAMES:
            return {"$type": _TYPE_NAMES[v]}
        if isinstance(v, type) and class_path(v) in CLASS_VALUES:
            return {"$class": class_path(v)}
        return {"$ref": self._object(v, where)}

    def _scalar(self, v, where):
        _check_dtype(v.dtype, where)
        item = v.item()
        if v.dtype.kind == "c":
            item = [item.real, item.imag]
            return {"$scalar": [dtype_descr(v.dtype), [self.value(x, where) for x in item]]}
        return {"$scalar": [dtype_descr(v.dtype), self.value(item, where)]}

    def _array(self, array, where):
        if id(array) in self._arrays:
            return self._arrays[id(array)][0]
        as_object = array.dtype == object
        if as_object:  # strings only (class labels, feature names): fixed-width unicode
            if not all(type(x) is str for x in array.flat):
                raise TypeError(f"{where}: object arrays can be saved only when they hold strings")
        else:
            _check_dtype(array.dtype, where)
        name = f"a{len(self._arrays)}"
        self._arrays[id(array)] = (name, array, as_object)
        self._alive.append(array)
        return name

    def _object(self, obj, where):
        if id(obj) in self._object_index:
            return self._object_index[id(obj)]
        cls = type(obj)
        path = class_path(cls)
        reducer = reducer_for(path)
        if path not in ESTIMATORS and path not in OBJECTS and reducer is None:
            if inspect.isroutine(obj) or isinstance(obj, functools.partial):
                kind = f"a function ({getattr(obj, '__qualname__', 'partial')})"
            elif isinstance(obj, type):
                kind = f"the class {class_path(obj)}"
            else:
                kind = f"a {path}"
            raise TypeError(f"{where} is {kind}, which a lucidml model file cannot hold "
                            "(only lucidml's and scikit-learn's estimators, their fitted state and plain data)")
        index = len(self.objects)
        self._object_index[id(obj)] = index
        self._alive.append(obj)
        self.objects.append(None)
        entry = {"class": path}
        if reducer is not None:
            entry["state"] = self._attributes(reducer.save(obj), where, cls, check=False)
        elif path in ESTIMATORS:
            params = obj.get_params(deep=False)
            entry["params"] = {k: self.value(v, f"{where}.{k}") for k, v in params.items()}
            # What the constructor sets from the parameters, it sets again on loading.
            made = vars(cls(**params))
            state = {k: v for k, v in vars(obj).items() if k not in params and k not in made}
            entry["state"] = self._attributes(state, where, cls, estimator=True, params=params)
        elif isinstance(obj, tuple):  # a named tuple
            entry["fields"] = [self.value(x, f"{where}.{f}") for f, x in zip(cls._fields, obj)]
        else:
            own_state = getattr(cls, "__getstate__", None) is not object.__getstate__
            state = obj.__getstate__() if own_state else vars(obj)
            if not isinstance(state, dict):
                raise TypeError(f"{where}: a {path} whose state is not a dict cannot be saved")
            entry["state"] = self._attributes(state, where, cls)
        self.objects[index] = entry
        return index

    def _attributes(self, state, where, cls, estimator=False, params=(), check=True):
        out = {}
        for name, value in state.items():
            if check and not settable(cls, name, estimator, params):
                raise TypeError(f"{where}.{name} is not an attribute a model file may set on {class_path(cls)}")
            out[name] = self.value(value, f"{where}.{name}")
        return out

    def array_table(self):
        """(arrays to write, the manifest's array table). Views of a saved array stay views."""
        saved = {}
        table = {}
        bases = _view_bases([(array, as_object) for _, array, as_object in self._arrays.values()])
        names = {id(array): name for name, array, _ in self._arrays.values()}
        for name, array, as_object in self._arrays.values():
            base = bases.get(id(array))
            if base is not None:
                table[name] = {"dtype": dtype_descr(array.dtype), "shape": list(array.shape),
                               "view": {"of": names[id(base)], "offset": _address(array) - _address(base),
                                        "strides": list(array.strides)}}
                continue
            if as_object:
                array = array.astype(str)
            elif not (array.flags.c_contiguous or array.flags.f_contiguous):
                array = np.ascontiguousarray(array)
            saved[name] = array
            table[name] = {"dtype": dtype_descr(array.dtype), "shape": list(array.shape)}
            if as_object:
                table[name]["object"] = True
        return saved, table


def _view_bases(arrays):
    """{id(array): the saved array it is a view of} for arrays that share memory with a larger
    contiguous saved array holding all their bytes (a forest's trees and its node table)."""
    groups = {}
    for array, as_object in arrays:
        if not as_object:
            groups.setdefault(id(_memory_owner(array)), []).append(array)
    bases = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        base = max((a for a in group if a.flags.c_contiguous or a.flags.f_contiguous), key=lambda a: a.nbytes,
                   default=None)
        if base is None:
            continue
        low, high = _address(base), _address(base) + base.nbytes
        for array in group:
            first, last = _extent(array)
            if array is not base and low <= first and last <= high:
                bases[id(array)] = base
    return bases


def _memory_owner(array):
    """The object that owns the memory ``array`` looks at."""
    while isinstance(array, np.ndarray) and array.base is not None:
        array = array.base
    return array


def _address(array):
    return array.__array_interface__["data"][0]


def _extent(array):
    """[first, last) byte addresses an array's elements span."""
    first = last = _address(array)
    if array.size:
        for n, stride in zip(array.shape, array.strides):
            if stride < 0:
                first += (n - 1) * stride
            else:
                last += (n - 1) * stride
    return first, last + array.itemsize


ALLOWED_KINDS = "biufcU"


def _check_dtype(dtype, where):
    if not dtype_allowed(dtype):
        raise TypeError(f"{where}: arrays of dtype {dtype} cannot be saved in a model file")


def dtype_allowed(dtype):
    """Numbers, booleans and unicode strings, or records of them: never objects."""
    if dtype.fields is not None:
        return all(dtype_allowed(dtype.fields[name][0]) for name in dtype.names)
    if dtype.subdtype is not None:
        return dtype_allowed(dtype.subdtype[0])
    return dtype.kind in ALLOWED_KINDS


def dtype_descr(dtype):
    """A dtype as JSON: NumPy's .npy description (a string, or a list for records)."""
    descr = np.lib.format.dtype_to_descr(dtype)
    return json.loads(json.dumps(descr))  # tuples become lists
