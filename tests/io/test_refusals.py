"""What loading refuses: each malformed or forged file raises ModelFileError, saying what is wrong."""

import copy
import hashlib
import io
import json
import pickle
import sys
import tracemalloc
import zipfile

import numpy as np
import pytest

import lucidml
from lucidml.io import ModelFileError, inspect, load

from ._craft import manifest, members, rebuilt, sealed


@pytest.fixture(scope="module")
def ridge_file(tmp_path_factory):
    from lucidml.linear import Ridge

    X = np.arange(40.0).reshape(20, 2) % 7
    path = tmp_path_factory.mktemp("ridge") / "ridge.lucid"
    lucidml.save(Ridge(alpha=0.5).fit(X, X[:, 0] - X[:, 1]), path)
    return path


@pytest.fixture(scope="module")
def pipeline_file(tmp_path_factory):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from lucidml.naive_bayes import GaussianNB

    X = np.arange(60.0).reshape(20, 3) % 5
    y = np.array(["a", "b"] * 10)
    path = tmp_path_factory.mktemp("pipe") / "pipeline.lucid"
    lucidml.save(make_pipeline(StandardScaler(), GaussianNB()).fit(X, y), path)
    return path


def _refused(tmp_path, data, match):
    path = tmp_path / "forged.lucid"
    path.write_bytes(data)
    with pytest.raises(ModelFileError, match=match):
        load(path)
    return path


def _estimator_entry(spec, cls_suffix):
    return next(e for e in spec["objects"] if e["class"].endswith(cls_suffix))


def test_the_valid_files_load(ridge_file, pipeline_file):
    assert type(load(ridge_file)).__name__ == "Ridge"
    assert type(load(pipeline_file)).__name__ == "Pipeline"


def test_a_pickle_is_refused_and_named(tmp_path):
    from lucidml.linear import Ridge

    _refused(tmp_path, pickle.dumps(Ridge()), "looks like a pickle")


def test_any_change_to_the_bytes_breaks_the_seal(tmp_path, ridge_file):
    data = ridge_file.read_bytes()
    _refused(tmp_path, data[: len(data) // 2], "not a .lucid model file|seal")
    # A flip in an array member breaks its digest (or its header); anywhere else, the seal.
    manifest_at = data.index(b'{"format"')
    for position, match in ((manifest_at + 20, "SHA-256 seal does not match"), (5, "SHA-256 seal does not match"),
                            (len(data) - 100, "seal does not match|unexpected member"),
                            (data.index(b"\x93NUMPY") + 20, "SHA-256 in the manifest|header")):
        flipped = bytearray(data)
        flipped[position] ^= 0x04
        _refused(tmp_path, bytes(flipped), match)
    _refused(tmp_path, data + b"\0", "no lucidml seal")
    _refused(tmp_path, b"", "only 0 bytes")


def test_an_unknown_class_is_refused_without_importing_its_module(tmp_path, ridge_file, monkeypatch):
    probe = tmp_path / "lucid_probe_module.py"
    marker = tmp_path / "imported"
    probe.write_text(f"open({str(marker)!r}, 'w').close()\nclass Evil:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for path in ("lucid_probe_module.Evil", "builtins.eval", "os.system", "subprocess.Popen", "lucidml.io.save"):
        spec = manifest(ridge_file)
        spec["objects"][0]["class"] = path
        forged = _refused(tmp_path, rebuilt(ridge_file, spec), "is not one a lucidml model file may hold")
        assert inspect(forged)["refused"] == [path]  # inspect names what load refuses, building nothing
    assert not marker.exists() and "lucid_probe_module" not in sys.modules
    assert inspect(ridge_file)["refused"] == []


def test_inspect_names_a_class_value_that_load_refuses(tmp_path, ridge_file):
    spec = manifest(ridge_file)
    spec["objects"][0]["params"]["solver"] = {"$class": "os.system"}
    forged = _refused(tmp_path, rebuilt(ridge_file, spec), "not an allowed class")
    assert inspect(forged)["refused"] == ["os.system"]
    spec["objects"][0]["params"]["solver"] = {"$type": ["a list", "not a name"]}  # unhashable: no TypeError
    forged = _refused(tmp_path, rebuilt(ridge_file, spec), "not an allowed type")
    assert inspect(forged)["refused"] == ["['a list', 'not a name']"]


@pytest.mark.parametrize("name", ["predict", "fit", "__class__", "__dict__", "coef", "_parameter_constraints",
                                  "__sklearn_tags__", "n_features_in_.x", ""])
def test_attributes_outside_the_schema_are_refused(tmp_path, ridge_file, name):
    spec = manifest(ridge_file)
    spec["objects"][0]["state"][name] = 1
    _refused(tmp_path, rebuilt(ridge_file, spec), "not an attribute a model file may set")


def test_a_parameter_goes_through_the_constructor_and_its_validation(tmp_path, ridge_file):
    spec = manifest(ridge_file)
    spec["objects"][0]["params"]["alpha"] = "-1; rm -rf /"
    _refused(tmp_path, rebuilt(ridge_file, spec), "invalid parameters.*alpha")
    spec = manifest(ridge_file)
    spec["objects"][0]["params"]["shell"] = True
    _refused(tmp_path, rebuilt(ridge_file, spec), r"unknown parameters \['shell'\]")
    spec = manifest(ridge_file)
    spec["objects"][0]["state"]["alpha"] = 3.0  # a parameter set as state, past its validation
    _refused(tmp_path, rebuilt(ridge_file, spec), "'alpha' is not an attribute")


def test_a_newer_format_is_refused_with_advice(tmp_path, ridge_file):
    spec = manifest(ridge_file)
    spec["format_version"] = 2
    path = _refused(tmp_path, rebuilt(ridge_file, spec), "format version 2, newer than this lucidml reads")
    with pytest.raises(ModelFileError, match="upgrade lucidml"):
        inspect(path)


@pytest.mark.parametrize("name", ["../evil.npy", "/etc/passwd", "arrays/../../x.npy", "arrays/a0.npy/x", "notes.txt"])
def test_members_with_other_names_are_refused(tmp_path, ridge_file, name):
    _refused(tmp_path, rebuilt(ridge_file, extra=[(name, b"x")]), "unexpected member")


def test_duplicate_extra_missing_and_compressed_members_are_refused(tmp_path, ridge_file):
    entries = members(ridge_file)
    array = next(n for n, _ in entries if n.startswith("arrays/"))
    with pytest.warns(UserWarning, match="Duplicate name"):
        duplicated = sealed(entries + [entries[0]])
    _refused(tmp_path, duplicated, "twice")
    _refused(tmp_path, rebuilt(ridge_file, extra=[("arrays/zz.npy", entries[0][1])]), "does not name")
    _refused(tmp_path, rebuilt(ridge_file, drop={array}), "missing from the file")
    _refused(tmp_path, rebuilt(ridge_file, compress={array: zipfile.ZIP_DEFLATED}), "compressed")
    _refused(tmp_path, rebuilt(ridge_file, drop={"manifest.json"}), "no manifest")


def test_swapped_or_altered_arrays_fail_their_digest(tmp_path, pipeline_file):
    entries = dict(members(pipeline_file))
    names = sorted(n for n, data in entries.items() if n.startswith("arrays/") and len(data) == len(entries["arrays/a0.npy"]))
    first, second = names[0], next(n for n in names[1:] if entries[n] != entries[names[0]])
    swapped = rebuilt(pipeline_file, replace={first: entries[second], second: entries[first]})
    _refused(tmp_path, swapped, "does not match its SHA-256")


def _npy(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _first_array(spec):
    return next(name for name, entry in spec["arrays"].items() if "view" not in entry)


def _header(shape, descr="<f8"):
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def test_huge_declared_shapes_are_refused_before_anything_is_allocated(tmp_path, ridge_file):
    spec = manifest(ridge_file)
    name = _first_array(spec)
    spec["arrays"][name]["shape"] = [10**6, 10**6]
    lying_manifest = rebuilt(ridge_file, spec)
    # The member's .npy header tells the same lie, with no data behind it.
    both_lie = rebuilt(ridge_file, spec, replace={f"arrays/{name}.npy": _header((10**6, 10**6))})
    for forged, match in ((lying_manifest, "header says"), (both_lie, "needs 8000000000000 bytes")):
        tracemalloc.start()
        try:
            _refused(tmp_path, forged, match)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 2_000_000


@pytest.mark.parametrize("dtype", ["|O", "<M8[s]", "|V8", "object", 3, ["not", "a", "dtype"]])
def test_dtypes_other_than_numbers_and_strings_are_refused(tmp_path, ridge_file, dtype):
    spec = manifest(ridge_file)
    spec["arrays"][_first_array(spec)]["dtype"] = dtype
    _refused(tmp_path, rebuilt(ridge_file, spec), "dtype")


def test_an_object_array_in_a_member_is_refused(tmp_path, ridge_file):
    spec = manifest(ridge_file)
    name = _first_array(spec)
    buffer = io.BytesIO()
    np.save(buffer, np.array([1, "x"], dtype=object), allow_pickle=True)
    _refused(tmp_path, rebuilt(ridge_file, replace={f"arrays/{name}.npy": buffer.getvalue()}), "header says")


def test_views_that_reach_outside_their_base_are_refused(tmp_path, ridge_file):
    spec = manifest(ridge_file)
    base = _first_array(spec)
    for offset, strides in ((10**9, [8]), (-8, [8]), (0, [10**9])):
        forged = copy.deepcopy(spec)
        forged["arrays"]["v"] = {"dtype": "<f8", "shape": [2], "view": {"of": base, "offset": offset, "strides": strides}}
        forged["objects"][0]["state"]["extra_"] = {"$array": "v"}
        _refused(tmp_path, rebuilt(ridge_file, forged), "reaches outside its base")


def test_a_view_of_an_array_of_objects_is_refused(tmp_path):
    """A string array may load as Python objects; a numeric view of it would read and write the
    objects' pointers (a forged Perceptron's _steps over its classes_: training then crashed the
    process). Such a view is refused, as is a view that would itself load as objects."""
    from lucidml.linear import Perceptron

    path = tmp_path / "perceptron.lucid"
    lucidml.save(Perceptron(random_state=0).fit([[0.0], [1.0], [2.0], [3.0]], ["no", "no", "yes", "yes"]), path)
    spec = manifest(path)
    state = spec["objects"][0]["state"]
    classes, steps = state["classes_"]["$array"], state["_steps"]["$array"]
    for view_spec in ({"dtype": "<i8", "shape": [1]}, {"dtype": "<U3", "shape": [1], "object": True}):
        forged = copy.deepcopy(spec)
        forged["arrays"][classes]["object"] = True
        forged["arrays"][steps] = dict(view_spec, view={"of": classes, "offset": 0, "strides": [8]})
        _refused(tmp_path, rebuilt(path, forged, drop=(f"arrays/{steps}.npy",)), "a view of an array of objects")


def test_a_function_transformer_with_a_function_is_refused(tmp_path):
    """FunctionTransformer loads only as it is saved, without a function (a ColumnTransformer's
    "passthrough"): a file that names one, even a harmless type, would have it called on the data."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from lucidml.naive_bayes import GaussianNB

    path = tmp_path / "function.lucid"
    lucidml.save(make_pipeline(FunctionTransformer(feature_names_out="one-to-one"), GaussianNB())
                 .fit([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]), path)
    spec = manifest(path)
    (index,) = [i for i, entry in enumerate(spec["objects"]) if entry["class"].endswith("FunctionTransformer")]
    for name, value in (("func", {"$type": "builtins.str"}), ("inverse_func", {"$type": "builtins.str"}),
                        ("feature_names_out", {"$type": "builtins.object"}), ("func", "print")):
        forged = copy.deepcopy(spec)
        forged["objects"][index]["params"][name] = value
        _refused(tmp_path, rebuilt(path, forged), f"{name}: a model file may not set it|not allowed|refer")
    assert isinstance(load(path).steps[0][1], FunctionTransformer)


def test_an_old_boosting_file_with_forged_tree_roots_is_refused_before_allocating(tmp_path):
    """Old gradient boosting files are upgraded by expanding tree_roots_ over nodes_; roots that are
    not the trees' increasing first node ids are refused before that (a 7 KB file asked for 2.3 GB)."""
    from pathlib import Path

    path = Path(__file__).parent / "fixtures" / "format_1" / "gradient_boosting.lucid"
    spec = manifest(path)
    roots_name = spec["objects"][0]["state"]["tree_roots_"]["$array"]
    roots = np.load(io.BytesIO(dict(members(path))[f"arrays/{roots_name}.npy"]))
    for bad in (-300_000_000, 10**9):
        forged_roots = roots.copy()
        forged_roots.flat[0 if bad < 0 else -1] = bad
        forged = copy.deepcopy(spec)
        forged["arrays"][roots_name]["sha256"] = hashlib.sha256(_npy(forged_roots)).hexdigest()
        data = rebuilt(path, forged, replace={f"arrays/{roots_name}.npy": _npy(forged_roots)})
        tracemalloc.start()
        try:
            _refused(tmp_path, data, "tree_roots_")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 50_000_000


def test_malformed_manifests_are_refused(tmp_path, ridge_file):
    _refused(tmp_path, rebuilt(ridge_file, b"\x80\x04not json"), "not valid JSON")
    _refused(tmp_path, rebuilt(ridge_file, b"[" * 100_000 + b"]" * 100_000), "not valid JSON|not a JSON object")
    _refused(tmp_path, rebuilt(ridge_file, b'{"format": "lucid", "format": "x"}'), "repeats a key")
    spec = manifest(ridge_file)
    spec["objects"][0]["state"]["deep_"] = json.loads("[" * 200 + "]" * 200)
    _refused(tmp_path, rebuilt(ridge_file, spec), "nest too deeply")
    spec = manifest(ridge_file)
    spec["objects"][0]["state"]["loop_"] = {"$float": "1e999"}
    _refused(tmp_path, rebuilt(ridge_file, spec), "not a valid float")
    spec = manifest(ridge_file)
    spec["root"] = [1, 2]
    _refused(tmp_path, rebuilt(ridge_file, spec), "root is not an object")
    raw = rebuilt(ridge_file, b'{"format": "lucid", "format_version": 1, "x": NaN}')
    _refused(tmp_path, raw, "non-standard JSON constant NaN")


def test_an_estimator_that_contains_itself_is_refused(tmp_path, pipeline_file):
    spec = manifest(pipeline_file)
    pipeline = spec["objects"][0]
    pipeline["params"]["steps"] = [{"$tuple": ["me", {"$ref": 0}]}]
    _refused(tmp_path, rebuilt(pipeline_file, spec), "contains itself")


def test_a_missing_path_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "nowhere.lucid")


def test_a_random_state_cannot_point_outside_its_key_table(tmp_path):
    """skops once read a random state's position unchecked: NumPy then reads past its 624 keys."""
    from lucidml.cluster import KMeans

    path = lucidml.save(KMeans(random_state=np.random.RandomState(0)), tmp_path / "kmeans.lucid")
    for pos, has_gauss in ((625, 0), (10**6, 0), (-1, 0), (3, 2)):
        spec = manifest(path)
        state = next(e for e in spec["objects"] if e["class"].endswith("RandomState"))["state"]
        state["pos"], state["has_gauss"] = pos, has_gauss
        _refused(tmp_path, rebuilt(path, spec), "position must be in")
    path = lucidml.save(KMeans(random_state=np.random.default_rng(0)), tmp_path / "kmeans.lucid")
    spec = manifest(path)
    next(e for e in spec["objects"] if e["class"].endswith("Generator"))["state"]["has_uint32"] = 7
    _refused(tmp_path, rebuilt(path, spec), "PCG64 state")


def test_a_save_that_cannot_write_names_the_file_asked_for(tmp_path, ridge_file):
    """The model is written to a temporary file beside the target and moved there; an error used to
    name the temporary file (/proc/.x.lucid.9f7f03aa4179.tmp), which the user never asked for."""
    model = load(ridge_file)
    for path in (tmp_path / "no such folder" / "model.lucid", "/proc/model.lucid"):
        with pytest.raises(OSError) as raised:
            lucidml.save(model, path)
        assert raised.value.filename == str(path) and ".tmp" not in str(raised.value)
