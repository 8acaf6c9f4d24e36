"""lucidml installed where nothing can be written (a system site-packages, a read-only image):
its kernels are cached in the user's cache directory instead, with no warning, and a later
process loads them from there."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..compile_log import COMPILE_LOG

SOURCE = Path(__file__).resolve().parents[2] / "src" / "lucidml"

FIT = COMPILE_LOG + """
import warnings
warnings.simplefilter("error")  # any warning fails the run
from lucidml.datasets import load
from lucidml.naive_bayes import GaussianNB
X, y = load("wine")
GaussianNB().fit(X, y).predict(X)
print(json.dumps({"compiled": compiled}))
"""


def _freeze(directory):
    """Make every directory under ``directory`` unwritable, even for root; returns the undo."""
    folders = [directory] + [p for p in directory.rglob("*") if p.is_dir()]
    if os.geteuid() == 0:
        chattr = shutil.which("chattr")
        done = subprocess.run([chattr, "+i", *map(str, folders)], capture_output=True) if chattr else None
        if done is None or done.returncode != 0:
            pytest.skip("running as root without immutable directories (chattr): nothing is unwritable to root")
        return lambda: subprocess.run([chattr, "-i", *map(str, folders)], capture_output=True)
    for folder in folders:
        folder.chmod(0o555)
    return lambda: [folder.chmod(0o755) for folder in folders]


def test_an_unwritable_install_caches_in_the_users_cache(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(SOURCE, site / "lucidml", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    cache = tmp_path / "user-cache"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(cache), PYTHONDONTWRITEBYTECODE="1",
               LUCIDML_KERNEL_TIER="compiled")
    thaw = _freeze(site)
    try:
        assert not os.access(site / "lucidml", os.W_OK) or os.geteuid() == 0
        runs = [subprocess.run([sys.executable, "-c", FIT], env=env, capture_output=True, text=True, cwd=tmp_path)
                for _ in range(2)]
    finally:
        thaw()
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
        assert "Warning" not in run.stderr, run.stderr[-2000:]
    first, second = (json.loads(run.stdout.strip().splitlines()[-1])["compiled"] for run in runs)
    assert first, "the first process compiles the kernels"
    assert second == [], "the second process loads them from the user's cache"
    assert list((cache / "numba").rglob("*.nbi")), "the cache index is in the user's cache directory"
    assert not list(site.rglob("*.nbi"))
