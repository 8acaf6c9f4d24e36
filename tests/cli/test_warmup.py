"""``lucidml warmup``: the real command fills Numba's on-disk cache, so a later process compiles nothing."""

import json
import os
import subprocess
import sys

import pytest

from lucidml import warmup

from ..compile_log import COMPILE_LOG

_LATER_PROCESS = COMPILE_LOG + """
from lucidml.datasets import load
from lucidml.naive_bayes import GaussianNB
from lucidml.naive_bayes import _gaussian_kernels as kernels
X, y = load("digits")  # not the warm-up's data: the same kernels, other sizes
GaussianNB().fit(X, y).predict(X)
print(json.dumps({"compiled": compiled, "loaded": bool(kernels.class_moments.overloads)}))
"""


def test_warmup_command_fills_the_cache_for_later_processes(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "LUCIDML_KERNEL_TIER": "auto"}
    done = subprocess.run([sys.executable, "-m", "lucidml", "warmup", "--models", "GaussianNB"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 model(s)" in done.stdout
    assert "[" not in done.stderr  # no progress bar when standard error is not a terminal

    later = subprocess.run([sys.executable, "-c", _LATER_PROCESS], env=env, capture_output=True, text=True)
    assert later.returncode == 0, later.stderr[-2000:]
    report = json.loads(later.stdout.strip().splitlines()[-1])
    assert report == {"compiled": [], "loaded": True}


def test_warmup_reports_progress_and_rejects_unknown_models():
    calls = []
    assert warmup(["GaussianNB", "kmeans"], progress=lambda *a: calls.append(a)) == ["GaussianNB", "KMeans"]
    assert calls == [(0, 2, "GaussianNB"), (1, 2, "KMeans"), (2, 2, "")]
    with pytest.raises(ValueError, match="no lucidml estimator named 'nosuch'"):
        warmup(["nosuch"])


def test_warmup_command_names_an_unknown_model():
    done = subprocess.run([sys.executable, "-m", "lucidml", "warmup", "--models", "nosuch"], capture_output=True,
                          text=True)
    assert done.returncode == 2
    assert "no lucidml estimator named 'nosuch'" in done.stderr


def test_warmup_of_every_model_runs_through():
    """Every registered model fits and predicts on the warm-up data (a raw wine overflowed Adaline)."""
    from lucidml.registry import REGISTRY

    assert sorted(warmup()) == sorted(entry.name for entry in REGISTRY)


def test_warmup_compiles_both_exact_searches_of_a_tree():
    """A presorted fit and a node-sorted one compile apart (tree/__init__): the warm-up makes both."""
    code = """
import json
from numba import types
from lucidml import warmup
from lucidml.tree._builder import grow_tree
warmup(["DecisionTreeClassifier"])
exact = [signature[0] for signature in grow_tree.signatures if not isinstance(signature[0], types.NoneType)]
print(json.dumps(sorted({isinstance(e[e.fields.index("values")], types.NoneType) for e in exact})))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [False, True]  # node-sorted and presorted
