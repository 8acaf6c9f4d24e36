"""The on-disk cache of the kernels is stamped with every source of the package (utils._numba_cache)."""

import os

from lucidml.utils._numba_cache import package_stamp
from lucidml.utils.sparse import row_sq_norms


def test_the_stamp_follows_every_python_source_under_the_package(tmp_path):
    (tmp_path / "tree").mkdir()
    callee = tmp_path / "tree" / "callee.py"
    callee.write_text("x = 1\n")
    (tmp_path / "caller.py").write_text("y = 2\n")
    stamp = package_stamp.__wrapped__(str(tmp_path))
    (tmp_path / "notes.txt").write_text("not a source")
    assert package_stamp.__wrapped__(str(tmp_path)) == stamp
    os.utime(callee, ns=(callee.stat().st_atime_ns, callee.stat().st_mtime_ns + 1_000_000))  # an edit
    edited = package_stamp.__wrapped__(str(tmp_path))
    assert edited != stamp
    (tmp_path / "tree" / "new.py").write_text("")
    assert package_stamp.__wrapped__(str(tmp_path)) not in (stamp, edited)


def test_a_kernels_cache_carries_the_package_stamp():
    """Numba stamps a kernel's cache with its own file only, while its machine code holds the kernels
    it calls from other files: an edit of a callee left the caller's stale code in use."""
    cache_file = row_sq_norms._cache._cache_file
    assert cache_file._source_stamp[1] == package_stamp()
