"""From a manifest and its arrays back to objects (the loading half of ``lucidml.io``).

Everything in the manifest is checked before it is used: the format and its version, the
shape of every entry, each class against the allow-list, each attribute name against its
class's schema, each array's dtype, shape and digest against its member. Any failure raises
``ModelFileError``; nothing named by the file is imported or called.
"""

import json
import math
import re

import numpy as np

from ..utils._param_validation import validate_params
from ._allowlist import CLASS_VALUES, ESTIMATORS, OBJECTS, PARAMETER_VALUES, resolve, settable
from ._encode import FORMAT_NAME, FORMAT_VERSION, TYPES, dtype_allowed
from ._errors import ModelFileError
from ._legacy import OLD_NAMES, upgrade
from ._reducers import reducer_for

__all__ = ["Reader", "array_paths", "describe", "parse_manifest"]

MAX_DEPTH = 64  # nesting of values inside one object (objects nest through the table)
MAX_DIMENSIONS = 32
_SHA256 = re.compile(r"[0-9a-f]{64}")
_ARRAY_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")
_TAGS = {"$float", "$scalar", "$array", "$tuple", "$set", "$frozenset", "$dict", "$slice", "$dtype", "$type", "$class",
         "$ref"}


def parse_manifest(raw):
    """The manifest as a dict, with its top-level structure and array table checked."""
    try:
        manifest = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ModelFileError(f"the manifest is not valid JSON ({type(error).__name__}: {error})") from None
    _expect(isinstance(manifest, dict), "the manifest is not a JSON object")
    _expect(manifest.get("format") == FORMAT_NAME, "the manifest does not describe a .lucid model")
    version = manifest.get("format_version")
    _expect(type(version) is int and version >= 1, "the manifest has no valid format_version")
    if version > FORMAT_VERSION:
        raise ModelFileError(f"the model file has format version {version}, newer than this lucidml reads "
                             f"(up to {FORMAT_VERSION}); upgrade lucidml to load it")
    _expect(isinstance(manifest.get("lucidml_version"), str), "the manifest has no lucidml_version")
    objects = manifest.get("objects")
    _expect(isinstance(objects, list) and objects, "the manifest has no object table")
    for i, entry in enumerate(objects):
        _expect(isinstance(entry, dict) and isinstance(entry.get("class"), str), f"object {i} has no class")
        _expect(set(entry) <= {"class", "params", "state", "fields"}, f"object {i} has unknown keys")
        for key in ("params", "state"):
            _expect(isinstance(entry.get(key, {}), dict), f"object {i}: {key} is not a JSON object")
        _expect(isinstance(entry.get("fields", []), list), f"object {i}: fields is not a list")
    arrays = manifest.get("arrays")
    _expect(isinstance(arrays, dict), "the manifest has no array table")
    manifest["arrays"] = {name: _array_spec(name, spec, arrays) for name, spec in arrays.items()}
    return manifest


def _unique_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ModelFileError("the manifest repeats a key in one JSON object")
    return dict(pairs)


def _no_constant(name):
    raise ModelFileError(f"the manifest holds the non-standard JSON constant {name}")


def _expect(condition, message):
    if not condition:
        raise ModelFileError(message)


def _array_spec(name, spec, table):
    """An array table entry with its dtype parsed and its shape and view bounds checked."""
    where = f"array {name!r}"
    _expect(isinstance(name, str) and _ARRAY_NAME.fullmatch(name), f"{where}: not a valid array name")
    _expect(isinstance(spec, dict), f"{where}: its entry is not a JSON object")
    _expect(set(spec) <= {"dtype", "shape", "sha256", "view", "object"}, f"{where}: unknown keys")
    dtype = _dtype(spec.get("dtype"), where)
    shape = spec.get("shape")
    _expect(isinstance(shape, list) and len(shape) <= MAX_DIMENSIONS
            and all(type(n) is int and n >= 0 for n in shape), f"{where}: not a valid shape")
    spec = dict(spec, dtype=dtype, shape=tuple(shape))
    _expect(type(spec.get("object", False)) is bool, f"{where}: 'object' must be true or false")
    _expect(not spec.get("object") or dtype.kind == "U", f"{where}: only string arrays may load as objects")
    if "view" not in spec:
        _expect(isinstance(spec.get("sha256"), str) and _SHA256.fullmatch(spec["sha256"]), f"{where}: no valid sha256")
        return spec
    view = spec["view"]
    _expect(isinstance(view, dict) and set(view) == {"of", "offset", "strides"}, f"{where}: not a valid view")
    base = table.get(view["of"]) if isinstance(view["of"], str) else None
    _expect(isinstance(base, dict) and "view" not in base, f"{where}: a view of an array the file does not hold")
    # An array that loads as Python objects holds pointers, not its file's bytes: a view of it would
    # read and write them as numbers (and crash the process, or worse). Only plain arrays have views.
    _expect(not base.get("object") and not spec.get("object"), f"{where}: a view of an array of objects")
    strides = view["strides"]
    _expect(isinstance(strides, list) and len(strides) == len(shape) and all(type(s) is int for s in strides)
            and type(view["offset"]) is int, f"{where}: not a valid view")
    base_dtype = _dtype(base.get("dtype"), where)
    base_shape = base.get("shape")
    _expect(isinstance(base_shape, list) and all(type(n) is int and n >= 0 for n in base_shape), f"{where}: bad base")
    base_bytes = math.prod(base_shape) * base_dtype.itemsize
    # The bytes the view reaches, from its lowest to its highest element, must lie in its base.
    low = high = view["offset"]
    if math.prod(shape) > 0:
        for n, s in zip(shape, strides):
            reach = (n - 1) * s
            low, high = (low + reach, high) if reach < 0 else (low, high + reach)
        _expect(0 <= low and high + dtype.itemsize <= base_bytes, f"{where}: the view reaches outside its base")
    return spec


def _dtype(descr, where):
    if isinstance(descr, str) and descr in _SIMPLE_DTYPES:
        return _SIMPLE_DTYPES[descr]
    try:
        dtype = np.lib.format.descr_to_dtype(_tuples(descr, 0))
    except (TypeError, ValueError, KeyError, IndexError, RecursionError) as error:
        raise ModelFileError(f"{where}: not a valid dtype ({error})") from None
    _expect(dtype_allowed(dtype), f"{where}: dtype {dtype} is not allowed (numbers, booleans and strings only)")
    return dtype


# The dtypes models hold, parsed once (a forest has thousands of arrays).
_SIMPLE_DTYPES = {np.dtype(t).str: np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64)}


def _tuples(descr, depth):
    """A dtype's JSON description back to NumPy's form: a string, or a list of field tuples
    (name, format[, shape]) whose format may again be a list."""
    if isinstance(descr, str):
        return descr
    _expect(isinstance(descr, list) and depth < 4 and len(descr) <= 1024, "not a valid dtype description")
    fields = []
    for field in descr:
        _expect(isinstance(field, list) and len(field) in (2, 3), "not a valid dtype description")
        name = tuple(field[0]) if isinstance(field[0], list) else field[0]
        rest = [_tuples(field[1], depth + 1)] + ([tuple(field[2])] if len(field) == 3 else [])
        _expect(isinstance(field[-1], list) or len(field) == 2, "not a valid dtype description")
        fields.append((name, *rest))
    return fields


class Reader:
    """Builds the objects of a parsed manifest, reading arrays from an ``ArchiveReader``."""

    def __init__(self, manifest, archive):
        self.entries = manifest["objects"]
        self.specs = manifest["arrays"]
        self.archive = archive
        self.made = {}
        self.arrays = {}
        self.building = set()
        unknown = archive.array_names - set(self.specs)
        _expect(not unknown, f"the file holds arrays the manifest does not name: {sorted(unknown)[:5]}")

    def root(self, ref):
        _expect(isinstance(ref, dict) and set(ref) == {"$ref"}, "the manifest's root is not an object")
        # Every stored array is read (and its digest checked) first, on two threads.
        self.stored = self.archive.read_arrays(
            {name: (spec["dtype"], spec["shape"], spec["sha256"]) for name, spec in self.specs.items() if "view" not in spec})
        obj = self.value(ref, "the model", 0)
        unused = set(self.specs) - set(self.arrays)
        _expect(not unused, f"the manifest lists arrays that no object uses: {sorted(unused)[:5]}")
        return obj

    def value(self, v, where, depth):
        _expect(depth <= MAX_DEPTH, f"{where}: values nest too deeply")
        kind = type(v)
        if v is None or kind in (bool, str, int, float):
            return v
        if kind is list:
            return [self.value(x, where, depth + 1) for x in v]
        _expect(kind is dict and len(v) == 1 and next(iter(v)) in _TAGS, f"{where}: not a valid value")
        (tag, body), = v.items()
        if tag == "$float":
            _expect(body in ("nan", "inf", "-inf"), f"{where}: not a valid float")
            return float(body)
        if tag == "$array":
            return self.array(body, where)
        if tag == "$ref":
            return self.object(body, where)
        if tag == "$dtype":
            return np.dtype(object) if body == "|O" else _dtype(body, where)
        if tag == "$type":
            _expect(isinstance(body, str) and body in TYPES, f"{where}: not an allowed type")
            return TYPES[body]
        if tag == "$class":
            _expect(isinstance(body, str) and body in CLASS_VALUES, f"{where}: not an allowed class")
            return resolve(body)
        if tag == "$scalar":
            return self._scalar(body, where, depth)
        _expect(isinstance(body, list), f"{where}: not a valid {tag[1:]}")
        items = [self.value(x, where, depth + 1) for x in body]
        try:
            if tag == "$tuple":
                return tuple(items)
            if tag == "$set":
                return set(items)
            if tag == "$frozenset":
                return frozenset(items)
            if tag == "$slice":
                _expect(len(items) == 3 and all(x is None or type(x) is int for x in items), f"{where}: bad slice")
                return slice(*items)
            _expect(all(isinstance(p, list) and len(p) == 2 for p in items), f"{where}: not a valid dict")
            return dict(items)
        except TypeError as error:  # an unhashable key or member
            raise ModelFileError(f"{where}: {error}") from None

    def _scalar(self, body, where, depth):
        _expect(isinstance(body, list) and len(body) == 2, f"{where}: not a valid scalar")
        dtype = _dtype(body[0], where)
        _expect(dtype.fields is None and dtype.subdtype is None, f"{where}: not a valid scalar")
        item = self.value(body[1], where, depth + 1)
        if dtype.kind == "c":
            _expect(isinstance(item, list) and len(item) == 2, f"{where}: not a valid complex scalar")
            item = complex(*item)
        _expect(isinstance(item, (bool, int, float, complex, str)), f"{where}: not a valid scalar")
        try:
            return np.array(item, dtype=dtype)[()]
        except (TypeError, ValueError, OverflowError) as error:
            raise ModelFileError(f"{where}: {error}") from None

    def array(self, name, where):
        _expect(isinstance(name, str) and name in self.specs, f"{where}: an array the manifest does not list")
        if name in self.arrays:
            return self.arrays[name]
        spec = self.specs[name]
        if "view" in spec:
            base = self.array(spec["view"]["of"], where)
            _expect(base.flags.c_contiguous or base.flags.f_contiguous, f"{where}: a view of a non-contiguous array")
            _expect(not base.dtype.hasobject, f"{where}: a view of an array of objects")
            array = np.ndarray(spec["shape"], dtype=spec["dtype"], buffer=base, offset=spec["view"]["offset"],
                               strides=tuple(spec["view"]["strides"]))
        else:
            array = self.stored[name]
            if spec.get("object"):
                array = array.astype(object)
        self.arrays[name] = array
        return array

    def object(self, index, where):
        _expect(type(index) is int and 0 <= index < len(self.entries), f"{where}: refers to no object")
        if index in self.made:
            return self.made[index]
        entry = self.entries[index]
        path = entry["class"]
        reducer = reducer_for(path)
        _expect(path in ESTIMATORS or path in OBJECTS or reducer is not None,
                f"{where}: class {path!r} is not one a lucidml model file may hold")
        _expect(index not in self.building, f"{where}: object {index} contains itself")
        _expect(len(self.building) < MAX_DEPTH, f"{where}: objects nest too deeply")
        self.building.add(index)
        where = f"{where} ({path.rpartition('.')[2]})"
        cls = resolve(path) if reducer is None else None
        if reducer is not None:
            state = self._state(entry, where)
            try:
                obj = reducer.load(state)
            except (TypeError, ValueError, KeyError, IndexError, OverflowError) as error:
                raise ModelFileError(f"{where}: {error}") from None
        elif path in ESTIMATORS:
            obj = self._estimator(cls, path, entry, where)
        elif issubclass(cls, tuple):
            _expect("fields" in entry and len(entry["fields"]) == len(cls._fields), f"{where}: wrong number of fields")
            obj = cls._make(self.value(x, f"{where}.{f}", 1) for f, x in zip(cls._fields, entry["fields"]))
        else:
            obj = cls.__new__(cls)
            self.made[index] = obj  # cycles through plain objects are fine
            state = self._state(entry, where, cls, path=path)
            if getattr(cls, "__setstate__", None) is not None:
                obj.__setstate__(state)
            else:
                obj.__dict__.update(state)
        self.building.discard(index)
        self.made[index] = obj
        return obj

    def _state(self, entry, where, cls=None, estimator=False, params=(), path=None):
        """The attributes an entry sets, each checked against its class's schema (see _allowlist);
        an earlier release's layout is brought up to date (see _legacy)."""
        state = {}
        old_names = OLD_NAMES.get(path, ())
        for name, value in entry.get("state", {}).items():
            _expect(cls is None or settable(cls, name, estimator, params) or name in old_names,
                    f"{where}: {name!r} is not an attribute a model file may set")
            state[name] = self.value(value, f"{where}.{name}", 1)
        if path is None:
            return state
        try:
            return upgrade(path, state)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
            raise ModelFileError(f"{where}: an earlier layout that cannot be read ({error})") from None

    def _estimator(self, cls, path, entry, where):
        raw = entry.get("params", {})
        known = cls._get_param_names()
        unknown = set(raw) - set(known)
        _expect(not unknown, f"{where}: unknown parameters {sorted(unknown)}")
        params = {name: self.value(value, f"{where}.{name}", 1) for name, value in raw.items()}
        for name, allowed in PARAMETER_VALUES.get(path, {}).items():
            value = params.get(name)
            _expect(value is None or (type(value) is str and value in allowed),
                    f"{where}.{name}: a model file may not set it (allowed: {', '.join(map(repr, allowed))})")
        try:
            estimator = cls(**params)
            if cls.__module__.startswith("lucidml."):
                validate_params(estimator)
            elif hasattr(cls, "_parameter_constraints"):
                estimator._validate_params()  # scikit-learn's own validation
        except (TypeError, ValueError) as error:
            raise ModelFileError(f"{where}: invalid parameters ({error})") from None
        estimator.__dict__.update(self._state(entry, where, cls, estimator=True, params=known, path=path))
        return estimator


def array_paths(objects, root):
    """{array name: where the model holds it, e.g. "estimators_[0].tree_.value"}, from the
    manifest alone (each array under the first path that reaches it)."""
    paths = {}
    seen = set()
    pending = [(root, "")]
    while pending:
        index, prefix = pending.pop(0)
        if type(index) is not int or not 0 <= index < len(objects) or index in seen:
            continue
        seen.add(index)
        entry = objects[index]
        named = list(entry.get("params", {}).items()) + list(entry.get("state", {}).items())
        named += [(f"[{i}]", value) for i, value in enumerate(entry.get("fields", []))]
        stack = [(f"{prefix}.{name}" if prefix and not name.startswith("[") else f"{prefix}{name}", value)
                 for name, value in reversed(named)]  # popped in the manifest's order
        while stack:
            where, value = stack.pop()
            if isinstance(value, list):
                stack.extend(reversed([(f"{where}[{i}]", v) for i, v in enumerate(value)]))
            elif isinstance(value, dict) and len(value) == 1:
                (tag, body), = value.items()
                if tag == "$array" and isinstance(body, str):
                    paths.setdefault(body, where)
                elif tag == "$ref":
                    pending.append((body, where))
                elif tag in ("$tuple", "$set", "$frozenset", "$dict") and isinstance(body, list):
                    stack.extend(reversed([(f"{where}[{i}]", v) for i, v in enumerate(body)]))
    return paths


def refused_names(manifest):
    """The classes and types a manifest names that :func:`load` refuses to build (sorted): an object
    of a class off the allow-list, a ``$class`` or ``$type`` value off its list. Nothing is resolved."""
    refused = set()
    for entry in manifest.get("objects", []):
        path = entry.get("class") if isinstance(entry, dict) else None
        if not (isinstance(path, str) and (path in ESTIMATORS or path in OBJECTS or reducer_for(path) is not None)):
            refused.add(str(path))
    stack = [manifest.get("objects", [])]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if len(item) == 1:
                (tag, body), = item.items()
                if tag in ("$class", "$type") and not (isinstance(body, str)
                                                      and body in (CLASS_VALUES if tag == "$class" else TYPES)):
                    refused.add(str(body)[:80])
            stack.extend(item.values())
    return sorted(refused)


def describe(value, objects, specs, depth=0):
    """A stored value as plain Python for reading (``inspect``): containers as themselves, an
    array as a short text, a nested object as {"class": ..., "params": ...}; nothing is built."""
    if depth > MAX_DEPTH:
        return "…"
    if isinstance(value, list):
        return [describe(v, objects, specs, depth + 1) for v in value]
    if not (isinstance(value, dict) and len(value) == 1):
        return value
    (tag, body), = value.items()
    if tag in ("$tuple", "$set", "$frozenset") and isinstance(body, list):
        items = [describe(v, objects, specs, depth + 1) for v in body]
        try:
            return {"$tuple": tuple, "$set": set, "$frozenset": frozenset}[tag](items)
        except TypeError:
            return items
    if tag == "$dict" and isinstance(body, list):
        pairs = [describe(pair, objects, specs, depth + 1) for pair in body]
        try:
            return dict(pairs)
        except (TypeError, ValueError):
            return pairs
    if tag == "$float" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "$scalar" and isinstance(body, list) and len(body) == 2:
        return describe(body[1], objects, specs, depth + 1)
    if tag == "$array" and body in specs:
        return f"array({specs[body]['dtype']}, shape={specs[body]['shape']})"
    if tag == "$ref" and type(body) is int and 0 <= body < len(objects):
        entry = objects[body]
        nested = {"class": entry["class"]}
        if "params" in entry:
            nested["params"] = {k: describe(v, objects, specs, depth + 1) for k, v in entry["params"].items()}
        return nested
    return body
