"""Building .lucid files by hand, valid or forged, for the tests of what loading refuses."""

import hashlib
import io
import json
import zipfile

from lucidml.io import ModelFileError
from lucidml.io._archive import _data_offset

SEAL = b"lucid-sha256:"
EPOCH = (1980, 1, 1, 0, 0, 0)


def members(path):
    """[(name, bytes)] of a .lucid file, in order."""
    with zipfile.ZipFile(path) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def manifest(path):
    return json.loads(dict(members(path))["manifest.json"])


def sealed(entries, compress=None):
    """A sealed archive (bytes) of ``entries`` [(name, bytes)], in that order (duplicates kept)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.compress_type = compress.get(name, zipfile.ZIP_STORED) if compress else zipfile.ZIP_STORED
            archive.writestr(info, data)
        archive.comment = SEAL + b"0" * 64
    # The seal covers every byte outside the array members (which their own digests cover).
    size = len(buffer.getvalue())
    with zipfile.ZipFile(buffer) as archive:
        infos = archive.infolist()
    raw = bytearray(buffer.getvalue())
    digest = hashlib.sha256()
    position = 0
    arrays = [region for name, region in _regions(buffer, size, infos).items() if name.startswith("arrays/")]
    for offset, length in sorted(arrays) + [(size - 64, 0)]:
        digest.update(raw[position:max(position, offset)])
        position = max(position, offset + length)
    raw[-64:] = digest.hexdigest().encode("ascii")
    return bytes(raw)


def _regions(fh, size, infos):
    """{member: (offset, length)} of every member whose local header can be read (forged ones too)."""
    regions = {}
    for info in infos:
        try:
            regions.setdefault(info.filename, (_data_offset(fh, size, info), info.file_size))
        except ModelFileError:
            pass
    return regions


def rebuilt(path, new_manifest=None, replace=None, drop=(), extra=(), compress=None):
    """The file at ``path`` with its manifest and members changed, sealed again."""
    entries = []
    for name, data in members(path):
        if name in drop:
            continue
        if name == "manifest.json" and new_manifest is not None:
            data = json.dumps(new_manifest).encode() if not isinstance(new_manifest, bytes) else new_manifest
        entries.append((name, (replace or {}).get(name, data)))
    return sealed(entries + list(extra), compress)
