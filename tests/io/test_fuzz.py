"""5,000+ mutated model files, deterministically seeded: loading every one raises ModelFileError,
with bounded memory (measured with tracemalloc, which sees NumPy's allocations too), and
inspecting one raises nothing else."""

import io
import json
import pickle
import random
import tracemalloc
import zipfile

import numpy as np
import pytest

import lucidml
from lucidml.io import ModelFileError, inspect, load
from lucidml.io._decode import _dtype  # a structured dtype is stored as JSON lists

from ._craft import manifest, members, rebuilt, sealed

N_FILES = 5_200
SEED = 20261125
MEMORY_LIMIT = 4_000_000  # bytes allocated at the peak of one load, whatever the file declares

UNKNOWN_CLASSES = ["builtins.eval", "os.system", "subprocess.Popen", "pickle.loads", "numpy.load",
                   "lucidml.io.save", "lucidml.utils._numba.Kernel", "sklearn.utils._testing.SkipTest", "x", ""]
BAD_NAMES = ["../x.npy", "/abs.npy", "arrays/../../x.npy", "arrays/a0.npy/", "ARRAYS/a0.npy", "arrays/.npy",
             "arrays/a b.npy", "manifest.json/", "payload.pkl"]
LYING_DTYPES = ["|O", "<f4", "<f8", "<i8", "|b1", "<U9", "|S4", "<M8[s]", "<c16", [["a", "|O"]], "|V8", "<i4", 7]


def _models():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from lucidml.cluster import KMeans
    from lucidml.linear import LogisticRegression
    from lucidml.naive_bayes import GaussianNB
    from lucidml.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.array(["no", "yes"])[(X[:, 0] > 0).astype(int)]
    return [LogisticRegression().fit(X, y), DecisionTreeClassifier(max_depth=3).fit(X, y),
            make_pipeline(StandardScaler(), GaussianNB()).fit(X, y), KMeans(n_clusters=2, n_init=1, random_state=0).fit(X)]


def _raw_mutation(rng, data):
    """Bytes changed anywhere: the seal or the zip structure must catch it."""
    kind = rng.randrange(6)
    raw = bytearray(data)
    if kind == 0:
        return bytes(raw[: rng.randrange(len(raw))])
    if kind == 1:
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(raw))
            raw[position] ^= 1 << rng.randrange(8)
        return bytes(raw)
    if kind == 2:
        start = rng.randrange(len(raw))
        raw[start:start + rng.randint(1, 64)] = rng.randbytes(rng.randint(1, 64))
        return bytes(raw)
    if kind == 3:
        position = rng.randrange(len(raw))
        return bytes(raw[:position] + rng.randbytes(rng.randint(1, 32)) + raw[position:])
    if kind == 4:
        start = rng.randrange(len(raw))
        del raw[start:start + rng.randint(1, 256)]
        return bytes(raw)
    return bytes(raw) + rng.randbytes(rng.randint(1, 64))


def _arrays(spec):
    return [name for name, entry in spec["arrays"].items() if "view" not in entry]


def _npy_header(shape, descr="<f8"):
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": tuple(shape)})
    return buffer.getvalue()


def _structural_mutation(rng, path):
    """A forged file, sealed again, that lies in one way the loader must detect."""
    spec = manifest(path)
    entries = members(path)
    names = _arrays(spec)
    name = rng.choice(names)
    member = f"arrays/{name}.npy"
    kind = rng.randrange(12)
    if kind == 0:  # swapped members
        pairs = [(a, b) for a in names for b in names if a < b and dict(entries)[f"arrays/{a}.npy"] != dict(entries)[f"arrays/{b}.npy"]]
        a, b = rng.choice(pairs)
        contents = dict(entries)
        return rebuilt(path, replace={f"arrays/{a}.npy": contents[f"arrays/{b}.npy"], f"arrays/{b}.npy": contents[f"arrays/{a}.npy"]})
    if kind == 1:  # a shape that lies, maybe huge, maybe in the header too
        shape = [rng.choice([0, 1, 2, 3, 7, 10**6, 2**40, 2**62]) for _ in range(rng.randint(0, 4))]
        if shape == spec["arrays"][name]["shape"]:
            shape = shape + [2]
        spec["arrays"][name]["shape"] = shape
        replace = {member: _npy_header(shape)} if rng.random() < 0.5 else None
        return rebuilt(path, spec, replace=replace)
    if kind == 2:  # a dtype that lies
        dtype = rng.choice(LYING_DTYPES)
        if _dtype(spec["arrays"][name]["dtype"], name).str == (dtype if isinstance(dtype, str) else None):
            dtype = "|O"
        spec["arrays"][name]["dtype"] = dtype
        return rebuilt(path, spec)
    if kind == 3:  # an unknown class
        rng.choice(spec["objects"])["class"] = rng.choice(UNKNOWN_CLASSES)
        return rebuilt(path, spec)
    if kind == 4:  # an extra member
        return rebuilt(path, extra=[(rng.choice(BAD_NAMES + ["arrays/zz.npy"]), rng.randbytes(rng.randint(0, 200)))])
    if kind == 5:  # a missing member
        return rebuilt(path, drop={rng.choice([member, "manifest.json"])})
    if kind == 6:  # a compressed member
        return rebuilt(path, compress={rng.choice([member, "manifest.json"]): rng.choice([zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2])})
    if kind == 7:  # a pickle payload where the manifest or an array should be
        payload = pickle.dumps(rng.choice([{"a": 1}, [1, 2], np.zeros(3)]))
        return rebuilt(path, replace={rng.choice([member, "manifest.json"]): payload})
    if kind == 8:  # an attribute name outside the schema
        entry = rng.choice([e for e in spec["objects"] if "state" in e])
        names = ["__class__", "__init__", "__dict__", "a.b", "1x", ""]
        if "params" in entry:  # an estimator: methods, class data and unmarked names too
            names += ["predict", "fit", "get_params", "_parameter_constraints", "no_underscore"]
        entry["state"][rng.choice(names)] = 0
        return rebuilt(path, spec)
    if kind == 9:  # a newer format, or none
        spec["format_version"] = rng.choice([2, 99, 0, -1, "1", None, 1.0])
        return rebuilt(path, spec)
    if kind == 10:  # a digest that lies
        spec["arrays"][name]["sha256"] = rng.choice(["0" * 64, "zz", spec["arrays"][name]["sha256"].upper(), None])
        return rebuilt(path, spec)
    # a manifest that is not one
    junk = rng.choice([rng.randbytes(rng.randint(0, 300)), b"[" * 50_000, b"{}", b"null", json.dumps(spec)[:-rng.randint(1, 50)].encode()])
    return rebuilt(path, junk)


@pytest.fixture(scope="module")
def valid_files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("valid")
    return [lucidml.save(model, directory / f"model{i}.lucid") for i, model in enumerate(_models())]


def test_every_mutated_file_raises_model_file_error(valid_files, tmp_path):
    rng = random.Random(SEED)
    originals = [path.read_bytes() for path in valid_files]
    target = tmp_path / "mutated.lucid"
    kinds = {"raw": 0, "structural": 0, "pickle": 0}
    tracemalloc.start()
    try:
        for i in range(N_FILES):
            which = rng.randrange(len(valid_files))
            if i % 100 == 0:
                data, kind = pickle.dumps(_models()[0] if i == 0 else {"x": np.zeros(3)}), "pickle"
            elif rng.random() < 0.5:
                data, kind = _raw_mutation(rng, originals[which]), "raw"
            else:
                data, kind = _structural_mutation(rng, valid_files[which]), "structural"
            if data == originals[which]:
                continue
            target.write_bytes(data)
            tracemalloc.reset_peak()
            with pytest.raises(ModelFileError):
                load(target)
            try:  # inspect reads only the manifest: it may succeed, but raises nothing else
                inspect(target)
            except ModelFileError:
                pass
            _, peak = tracemalloc.get_traced_memory()
            assert peak < MEMORY_LIMIT, f"mutation {i} ({kind}) allocated {peak} bytes"
            kinds[kind] += 1
    finally:
        tracemalloc.stop()
    assert sum(kinds.values()) >= 5_000 and min(kinds.values()) > 0, kinds


def test_the_forging_helper_rebuilds_valid_files(valid_files, tmp_path):
    """So what the fuzz test changes is only what each mutation says."""
    for path in valid_files:
        copy = tmp_path / "copy.lucid"
        copy.write_bytes(sealed(members(path)))
        assert inspect(copy) == inspect(path)
        assert type(load(copy)) is type(load(path))
