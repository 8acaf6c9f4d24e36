"""Safe model files: :func:`save`, :func:`load` and :func:`inspect` of ``.lucid`` files.

>>> import os, tempfile
>>> import lucidml
>>> from lucidml.linear import LogisticRegression
>>> model = LogisticRegression().fit([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1])
>>> path = lucidml.save(model, os.path.join(tempfile.mkdtemp(), "model.lucid"))
>>> lucidml.load(path).predict([[0.5], [2.5]])
array([0, 1])
>>> lucidml.io.inspect(path)["class"]
'lucidml.linear.logistic.LogisticRegression'

The format
----------
A ``.lucid`` file is a zip archive of stored (uncompressed) members:

- ``manifest.json``: the format version, the lucidml version that wrote it, and a table of
  objects: for each, its class, its constructor parameters (estimators) and its fitted
  attributes, as JSON values; arrays by name, nested objects by their index in the table;
- ``arrays/<name>.npy``: one NumPy ``.npy`` file per array, whose dtype, shape and SHA-256
  the manifest records (a view into another array is recorded as that view);
- the archive comment: the SHA-256 of the rest of the file, which seals it.

What it holds: every estimator of ``lucidml.all_estimators()``, fitted or not; scikit-learn's
``Pipeline``, ``ColumnTransformer``, ``StandardScaler``, ``MinMaxScaler``, ``OneHotEncoder``,
``OrdinalEncoder``, ``SimpleImputer``, ``LabelEncoder`` and ``FunctionTransformer`` (without a
function) around them; the results users keep (``PlanningResult``, ``MDP``, the Q-learning
agents, ``PageRankResult``, ``QPResult``, ``OptimizeResult``). Values are numbers, strings,
booleans, None, lists, tuples, dicts, sets, arrays of numbers, booleans or strings, NumPy
random states, and SciPy's B-splines, k-d trees and CSR/CSC matrices. Anything else (a
callable parameter, an object array of anything but strings, a class not listed) makes
:func:`save` raise ``TypeError`` naming it.

The security promise
--------------------
Loading a file from a stranger runs no code from it:

- nothing is unpickled; arrays are read with ``allow_pickle=False`` semantics (no object
  dtypes) from their raw bytes;
- only classes on lucidml's allow-list (``lucidml.io._allowlist``) are constructed, and no
  module the file names is imported unless the allow-list lists it. Estimators are built by
  their constructor from parameters that then pass their parameter validation; other objects
  are created empty and given their attributes (through their class's own ``__setstate__``
  where it has one); attributes are set only if their names fit the class's schema (never a
  method, property or descriptor). NumPy random states, SciPy splines, k-d trees and sparse
  matrices are rebuilt through their own constructors, after checks of what those trust;
- reading is bounded: the seal, every member's name, size and offset, and every array's
  dtype, shape and digest are checked before anything is allocated, so memory stays within
  the file's size; a member cannot be compressed (no zip bombs), and nesting is limited.

Every malformed file raises :class:`ModelFileError` (a ``ValueError``) with a message that
says what is wrong. Files of a newer format version are refused; older ones keep loading.

The limits of the promise: the file's *numbers* are trusted. A forged file that passes every
check, but whose arrays disagree with each other (a tree whose child index points past its
node table), can make the loaded model predict nonsense or fail when used; load files whose
origin you trust to be a real lucidml model when the predictions matter. ``pickle`` and
``joblib`` still work for every estimator (scikit-learn's convention), but never load a pickle
from someone else: use ``.lucid`` files to share models.
"""

from ._errors import ModelFileError

__all__ = ["ModelFileError", "inspect", "load", "save"]


def save(model, path):
    """Save ``model`` (an estimator, pipeline or result object) to the ``.lucid`` file ``path``.

    The file is written beside ``path`` and renamed into place once complete. Returns the
    path as a :class:`pathlib.Path`. Raises ``TypeError`` if the model holds something a model
    file cannot (a callable parameter, an object of a class not on the allow-list).
    """
    import pathlib

    from .. import __version__
    from ._archive import write_archive
    from ._encode import encode

    make_manifest, arrays = encode(model, __version__)
    write_archive(path, arrays, make_manifest)
    return pathlib.Path(path)


def load(path):
    """The model saved in the ``.lucid`` file ``path``.

    Raises :class:`ModelFileError` for any file that is not a valid model file, and ``OSError``
    when the path cannot be read.
    """
    from ._archive import ArchiveReader
    from ._decode import Reader, parse_manifest

    with ArchiveReader(path) as archive:
        manifest = parse_manifest(archive.manifest_bytes())
        try:
            return Reader(manifest, archive).root(manifest.get("root"))
        except ModelFileError:
            raise
        except Exception as error:  # our own code refused the data some other way: still a bad file
            raise ModelFileError(f"the model file's content is inconsistent ({type(error).__name__}: {error})") from error


def inspect(path):
    """What the ``.lucid`` file ``path`` holds, without constructing anything.

    Returns a dict: ``format_version``, ``lucidml_version``, ``class`` (the model's class path),
    ``params`` (its constructor parameters as plain values; a nested estimator as
    ``{"class": ..., "params": ...}``), ``objects`` (the class of every
    object in the file) and ``arrays``: for each array, where the model holds it (such as
    ``coef_`` or ``estimators_[0].tree_.threshold``) → ``(dtype, shape)``; ``refused``: the classes
    and types the file names that :func:`load` would refuse to build (empty for a file it loads).
    Raises :class:`ModelFileError` like :func:`load`.
    """
    from ._archive import ArchiveReader
    from ._decode import array_paths, describe, parse_manifest, refused_names

    with ArchiveReader(path) as archive:
        manifest = parse_manifest(archive.manifest_bytes())
    objects = manifest["objects"]
    root = manifest.get("root")
    if not (isinstance(root, dict) and set(root) == {"$ref"} and type(root["$ref"]) is int
            and 0 <= root["$ref"] < len(objects)):
        raise ModelFileError("the manifest's root is not an object of its table")
    top = objects[root["$ref"]]
    specs = manifest["arrays"]
    return {
        "format_version": manifest["format_version"],
        "lucidml_version": manifest["lucidml_version"],
        "class": top["class"],
        "params": {name: describe(value, objects, specs) for name, value in top.get("params", {}).items()},
        "objects": [entry["class"] for entry in objects],
        "arrays": {where: ("object" if specs[name].get("object") else str(specs[name]["dtype"]), specs[name]["shape"])
                   for name, where in array_paths(objects, root["$ref"]).items() if name in specs},
        "refused": refused_names(manifest),
    }
