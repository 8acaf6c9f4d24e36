"""The ``.lucid`` container: a sealed zip archive of a JSON manifest and ``.npy`` arrays.

Members are *stored* (no compression), so a member's size on disk is its size in memory: a
file cannot expand (no zip bomb), and every array is read straight into its final buffer.

Every byte of the file is checked on loading, by one of two SHA-256 digests:

- each array member (its ``.npy`` header and data) by the digest the manifest records for it;
- everything else (the zip headers and directory, the manifest) by the *seal*: the archive
  comment, ``lucid-sha256:`` and the SHA-256 (hex) of the file's bytes outside the array
  members, up to those 64 hex characters.

So any truncation, bit flip or edit of a written file is refused, and the array data, most of
the file, is hashed once (on two threads when there are several arrays).

Reading trusts nothing in the file: member names, sizes, offsets and the ``.npy`` headers are
checked against each other and against the file's size before a buffer is allocated.
"""

import hashlib
import io
import math
import os
import re
import secrets
import struct
import threading
import zipfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._errors import ModelFileError

__all__ = ["MANIFEST", "ArchiveReader", "array_member", "write_archive"]

MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 64 * 2**20
MAX_HEADER_BYTES = 65_536  # a .npy header (numpy's own limit is 10,000 characters of text)
HASH_THREADS = 2
_SEAL = b"lucid-sha256:"
_HEX = 64
_CHUNK = 1 << 20
_ARRAY_MEMBER = re.compile(r"arrays/([A-Za-z0-9_]{1,64})\.npy")
_EPOCH = (1980, 1, 1, 0, 0, 0)  # every member's timestamp: the same model gives the same bytes
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, …, file name length, extra length
_END_RECORD = struct.Struct("<4s16xH")  # end of central directory: signature, …, comment length


def array_member(name):
    """The archive member that holds array ``name``."""
    return f"arrays/{name}.npy"


def write_archive(path, arrays, make_manifest):
    """Write ``arrays`` (name → ndarray, C- or F-contiguous) then the manifest, and seal the file.

    ``make_manifest(digests)`` gets each array member's SHA-256 (hex) and returns the manifest
    as bytes. The file appears at ``path`` only once complete (written beside it, then renamed).
    """
    path = os.path.abspath(os.fspath(path))
    # Opened like any new file (permissions from the umask), under a name no one else uses.
    temporary = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    members = {name: _npy_parts(array) for name, array in arrays.items()}
    try:
        with open(temporary, "x+b") as fh, ThreadPoolExecutor(HASH_THREADS) as pool:
            # Other threads checksum each member (SHA-256 and the zip's CRC-32) while this one writes.
            sums = {name: pool.submit(_checksums, *parts) for name, parts in members.items()}
            archive = _StoredZip(fh)
            for name, parts in members.items():
                archive.add(array_member(name), parts, *sums[name].result()[1:])
            manifest = make_manifest({name: future.result()[0] for name, future in sums.items()})
            archive.add(MANIFEST, (manifest,), zipfile.crc32(manifest), len(manifest))
            regions = archive.close(_SEAL + b"0" * _HEX)
            size = fh.tell()
            seal = _seal(fh, size, regions)
            fh.seek(size - _HEX)
            fh.write(seal)
        os.replace(temporary, path)
    except BaseException as error:
        if os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(error, OSError) and error.filename == temporary:
            # Named by the file the user asked for, not by the temporary one beside it.
            raise type(error)(error.errno, error.strerror, path) from None
        raise


def _npy_parts(array):
    """(.npy header bytes, the array's bytes as a flat uint8 view): a member without a copy."""
    header = io.BytesIO()
    fields = np.lib.format.header_data_from_array_1_0(array)
    try:
        np.lib.format.write_array_header_1_0(header, fields)
    except ValueError:  # a header over 64 KiB of text: format 2.0
        header = io.BytesIO()
        np.lib.format.write_array_header_2_0(header, fields)
    return header.getvalue(), (array.T if fields["fortran_order"] else array).reshape(-1).view(np.uint8)


def _digest(*parts):
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.hexdigest()


def _checksums(*parts):
    """(SHA-256 hex, CRC-32, size) of a member's parts."""
    crc = 0
    for part in parts:
        crc = zipfile.crc32(part, crc)
    return _digest(*parts), crc, sum(len(part) for part in parts)


ZIP64_LIMIT = 0xFFFFFFFF  # sizes and offsets from which zip64 records are needed (and 0xFFFF members)
# NumPy reads a .npy header with ast.literal_eval, whose AST construction CPython before 3.11.8
# does not keep apart between threads: two headers parsed at once can fail with "SystemError: AST
# constructor recursion depth mismatch" (CPython issue 106905; seen in a CI run reading a model's
# arrays on two threads). Headers are parsed one at a time; the arrays are still read on two threads.
_HEADER_PARSE = threading.Lock()
_DOS_DATE = (1 << 5) | 1  # 1980-01-01, 00:00: the same model gives the same bytes


def _narrow(value):
    return 0xFFFFFFFF if value >= ZIP64_LIMIT else value


class _StoredZip:
    """A writer of stored (uncompressed) zip members whose CRC and size are known beforehand.

    What ``zipfile`` writes, less its CRC pass on the writing thread; zip64 records where sizes,
    offsets or the number of members need them (PKWARE's APPNOTE, sections 4.3 and 4.5).
    """

    def __init__(self, fh):
        self.fh = fh
        self.entries = []  # (name bytes, crc, size, offset of the local header)
        self.regions = {}

    def add(self, name, parts, crc, size):
        offset = self.fh.tell()
        encoded = name.encode("utf-8")
        big = size >= ZIP64_LIMIT
        extra = struct.pack("<HHQQ", 1, 16, size, size) if big else b""
        stated = 0xFFFFFFFF if big else size
        self.fh.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 45 if big else 20, 0, 0, 0, _DOS_DATE, crc,
                                  stated, stated, len(encoded), len(extra)) + encoded + extra)
        if name != MANIFEST:
            self.regions[name] = (self.fh.tell(), size)
        for part in parts:
            for start in range(0, len(part), 16 * _CHUNK):
                self.fh.write(part[start:start + 16 * _CHUNK])
        self.entries.append((encoded, crc, size, offset))

    def close(self, comment):
        """Write the central directory and the end records; returns the array members' regions."""
        directory = self.fh.tell()
        for encoded, crc, size, offset in self.entries:
            # A field too wide for the header reads 0xFFFFFFFF there and sits in the zip64 extra.
            wide = [value for value in (size, size, offset) if value >= ZIP64_LIMIT]
            extra = struct.pack(f"<HH{len(wide)}Q", 1, 8 * len(wide), *wide) if wide else b""
            version = 45 if wide else 20
            self.fh.write(struct.pack(
                "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", (3 << 8) | version, version, 0, 0, 0, _DOS_DATE, crc,
                _narrow(size), _narrow(size), len(encoded), len(extra), 0, 0, 0, 0o644 << 16,
                _narrow(offset)) + encoded + extra)
        end = self.fh.tell()
        count, length = len(self.entries), end - directory
        if count >= 0xFFFF or length >= ZIP64_LIMIT or directory >= ZIP64_LIMIT:
            self.fh.write(struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, length,
                                      directory))
            self.fh.write(struct.pack("<4sIQI", b"PK\x06\x07", 0, end, 1))
            count, length, directory = 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF
        self.fh.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, length, directory, len(comment)))
        self.fh.write(comment)
        return self.regions


def _data_offset(fh, size, info):
    """Where a member's bytes start, from its local header (checked against the directory)."""
    if info.header_offset < 0 or info.header_offset + _LOCAL_HEADER.size > size:
        raise ModelFileError(f"member {info.filename!r} starts outside the file")
    fh.seek(info.header_offset)
    signature, name_length, extra_length = _LOCAL_HEADER.unpack(fh.read(_LOCAL_HEADER.size))
    if signature != b"PK\x03\x04" or fh.read(name_length) != info.filename.encode("utf-8"):
        raise ModelFileError(f"member {info.filename!r} has a damaged local header")
    offset = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
    if offset + info.file_size > size:
        raise ModelFileError(f"member {info.filename!r} runs past the end of the file")
    return offset


def _array_regions(fh, size, infos):
    """{member name: (offset, length)} of the array members' bytes."""
    return {info.filename: (_data_offset(fh, size, info), info.file_size)
            for info in infos if info.filename != MANIFEST}


def _seal(fh, size, regions):
    """The seal (64 hex bytes): SHA-256 of the file before its last 64 bytes, array members left out."""
    digest = hashlib.sha256()
    position = 0
    for offset, length in sorted(regions.values()) + [(size - _HEX, 0)]:
        if offset < position:
            raise ModelFileError("the model file's members overlap")
        fh.seek(position)
        left = offset - position
        while left > 0:
            block = fh.read(min(_CHUNK, left))
            if not block:
                raise ModelFileError("the model file is cut short")
            digest.update(block)
            left -= len(block)
        position = offset + length
    return digest.hexdigest().encode("ascii")


class ArchiveReader:
    """A verified ``.lucid`` archive, open for reading its manifest and arrays.

    Construction checks the zip directory (stored members only; no duplicate, absolute or
    ``..`` names; only the manifest and ``arrays/<name>.npy``; every member inside the file,
    none overlapping) and the seal. Use as a context manager.
    """

    def __init__(self, path):
        self._fh = open(path, "rb")  # a missing or unreadable path raises OSError, as for any file
        self._lock = threading.Lock()
        try:
            self._size = os.fstat(self._fh.fileno()).st_size
            seal = self._read_seal()
            try:
                infos = zipfile.ZipFile(self._fh).infolist()
            except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, struct.error,
                    UnicodeDecodeError, NotImplementedError) as error:
                raise ModelFileError(f"the zip structure of the model file is damaged ({error})") from None
            self._members = self._check_members(infos)
            self._regions = _array_regions(self._fh, self._size, infos)
            if _seal(self._fh, self._size, self._regions) != seal:
                raise ModelFileError("the model file is damaged or was altered: its SHA-256 seal does not match")
        except BaseException:
            self._fh.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        self._fh.close()

    @property
    def array_names(self):
        return {_ARRAY_MEMBER.fullmatch(name).group(1) for name in self._members if name != MANIFEST}

    def _read_seal(self):
        fh, size = self._fh, self._size
        fh.seek(0)
        hint = " (it looks like a pickle; lucidml never loads pickles)" if fh.read(1) == b"\x80" else ""
        tail = _END_RECORD.size + len(_SEAL) + _HEX
        if size < tail:
            raise ModelFileError(f"not a .lucid model file: only {size} bytes{hint}")
        fh.seek(size - tail)
        end = fh.read(tail)
        signature, comment_length = _END_RECORD.unpack(end[:_END_RECORD.size])
        if signature != b"PK\x05\x06" or comment_length != len(_SEAL) + _HEX or not end[_END_RECORD.size:].startswith(_SEAL):
            raise ModelFileError(f"not a .lucid model file: no lucidml seal at its end{hint}")
        return end[-_HEX:]

    def _check_members(self, infos):
        members = {}
        total = 0
        for info in infos:
            name = info.filename
            if name in members:
                raise ModelFileError(f"the model file holds member {name!r} twice")
            if name != MANIFEST and not _ARRAY_MEMBER.fullmatch(name):
                raise ModelFileError(f"unexpected member {name!r} in the model file")
            if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:
                raise ModelFileError(f"member {name!r} is compressed or encrypted; .lucid members are stored")
            if info.compress_size != info.file_size:
                raise ModelFileError(f"member {name!r} declares {info.file_size} bytes but stores {info.compress_size}")
            total += info.file_size
            if total > self._size:
                raise ModelFileError("the model file's members declare more bytes than the file holds")
            members[name] = info
        if MANIFEST not in members:
            raise ModelFileError("the model file has no manifest.json")
        return members

    def _read_at(self, offset, buffer):
        """Fill ``buffer`` from the file at ``offset`` (safe from several threads)."""
        if hasattr(os, "preadv"):
            done = os.preadv(self._fh.fileno(), [buffer], offset)
        else:
            with self._lock:
                self._fh.seek(offset)
                done = self._fh.readinto(buffer)
        return done

    def manifest_bytes(self):
        info = self._members[MANIFEST]
        if info.file_size > MAX_MANIFEST_BYTES:
            raise ModelFileError(f"the manifest is too large ({info.file_size} bytes, at most {MAX_MANIFEST_BYTES})")
        with self._lock:
            offset = _data_offset(self._fh, self._size, info)
        buffer = bytearray(info.file_size)
        if self._read_at(offset, buffer) != info.file_size:
            raise ModelFileError("the manifest is cut short")
        return bytes(buffer)

    def read_arrays(self, specs):
        """{name: array} for ``specs`` (name → (dtype, shape, sha256)), read on two threads.

        Each member's .npy header must agree with the manifest and its size with both before
        the member is read, straight into the array's own (writeable) buffer.
        """
        names = list(specs)
        for name in names:
            if array_member(name) not in self._members:
                raise ModelFileError(f"array {name!r} is named in the manifest but missing from the file")
        if len(names) < 2:
            return {name: self._read_array(name, *specs[name]) for name in names}
        with ThreadPoolExecutor(HASH_THREADS) as pool:
            arrays = list(pool.map(lambda name: self._read_array(name, *specs[name]), names))
        return dict(zip(names, arrays))

    def _read_array(self, name, dtype, shape, sha256):
        member = array_member(name)
        offset, length = self._regions[member]
        nbytes = math.prod(shape) * dtype.itemsize
        header, fortran = self._read_header(member, offset, length, dtype, shape)
        if len(header) + nbytes != length:
            raise ModelFileError(f"array {name!r}: shape {tuple(shape)} of {dtype} needs {nbytes} bytes after "
                                 f"its header, the member holds {length - len(header)}")
        data = np.empty(nbytes, np.uint8)
        if self._read_at(offset + len(header), memoryview(data)) != nbytes:
            raise ModelFileError(f"member {member!r} is cut short")
        if _digest(header, data) != sha256:
            raise ModelFileError(f"array {name!r} does not match its SHA-256 in the manifest")
        values = data.view(dtype)
        return values.reshape(shape[::-1]).T if fortran else values.reshape(shape)

    def _read_header(self, member, offset, length, dtype, shape):
        """(header bytes, Fortran order) of a member's .npy header, read bounded and checked
        against the manifest."""
        head = bytearray(min(length, MAX_HEADER_BYTES))
        head = io.BytesIO(head[:self._read_at(offset, head)])
        try:
            with _HEADER_PARSE:
                version = np.lib.format.read_magic(head)
                if version == (1, 0):
                    header_shape, fortran, header_dtype = np.lib.format.read_array_header_1_0(head)
                elif version == (2, 0):
                    header_shape, fortran, header_dtype = np.lib.format.read_array_header_2_0(head)
                else:
                    raise ValueError(f"unsupported .npy version {version}")
        except Exception as error:  # NumPy's header parser meets bytes it was never meant to see
            raise ModelFileError(f"member {member!r} has no valid .npy header ({type(error).__name__}: {error})") from None
        if header_dtype.hasobject or header_dtype != dtype or tuple(header_shape) != tuple(shape):
            raise ModelFileError(f"member {member!r}: its header says {header_dtype} {tuple(header_shape)}, "
                                 f"the manifest {dtype} {tuple(shape)}")
        return head.getvalue()[:head.tell()], bool(fortran)
