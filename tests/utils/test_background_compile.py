"""Kernels compiled by a child process while the caller runs them interpreted (utils._background_compile),
and a kernel's modes: compiled for one, still interpreted for another (utils._numba)."""

import json
import os
import subprocess
import sys

import numpy as np

import lucidml.utils._background_compile as background
import lucidml.utils._interpret_budget as budgets
import lucidml.utils._numba as tiers
from lucidml.utils import njit

from ..compile_log import COMPILE_LOG

_CHILD_SCRIPT = COMPILE_LOG + """
import glob, os
import numpy as np
import lucidml.utils._interpret_budget as budgets
import lucidml.utils._numba as tiers
from lucidml.svm._cache import row_norms
tiers.BACKGROUND_MIN_S = 0.0  # every kernel qualifies,
tiers.BACKGROUND_FROM = 0.0  # from its first call
X = np.arange(12.0).reshape(4, 3)
first = row_norms(X)  # interpreted, and a child is started to compile it
job = row_norms._jobs[0]
started_child = job.process is not None and not row_norms.overloads
job.process.wait(timeout=120)
second = row_norms(X)  # the child is done: loaded from the cache
cache = os.environ["NUMBA_CACHE_DIR"]
print(json.dumps({
    "started_child": started_child, "child_rc": job.process.returncode, "loaded": bool(row_norms.overloads),
    "compiled_here": compiled, "same": bool(np.array_equal(first, second)),
    "left": [os.path.basename(p) for p in glob.glob(cache + "/**/*.job", recursive=True)
             + glob.glob(cache + "/**/*.compiling", recursive=True)],
}))
"""


def _run(script, cache_dir, **env):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "LUCIDML_KERNEL_TIER": "auto",
           "LUCIDML_BACKGROUND_COMPILE": "1", **env}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_child_process_compiles_while_the_caller_interprets(tmp_path):
    out = _run(_CHILD_SCRIPT, tmp_path)
    assert out["started_child"] and out["child_rc"] == 0
    assert out["loaded"] and out["same"]
    assert "row_norms" not in out["compiled_here"]  # the caller never compiled it: the child did
    assert out["left"] == []  # the child removed its job file and its lock


def test_background_compiles_can_be_turned_off(tmp_path):
    script = _CHILD_SCRIPT.replace("job = row_norms._jobs[0]", "assert not row_norms._jobs; raise SystemExit(0)")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "LUCIDML_KERNEL_TIER": "auto",
           "LUCIDML_BACKGROUND_COMPILE": "0"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert not list(tmp_path.rglob("*.compiling"))


def test_a_lock_held_by_a_live_process_is_waited_for_and_a_dead_ones_is_taken_over(tmp_path, monkeypatch):
    monkeypatch.setattr(background, "ENABLED", True)
    ledger = str(tmp_path / "kernel.interpreted")
    lock = background.lock_path(ledger)
    with open(lock, "w") as handle:
        handle.write(str(os.getpid()))  # alive: this process
    job = background.start(None, (), ledger)
    assert job.process is None and not job.done()  # another process's child: waited for
    os.utime(lock, (0, 0))
    assert job.done()  # ... but not for ever: an old lock is stale whatever its id (ids are reused)

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with open(lock, "w") as handle:
        handle.write(str(dead.pid))
    assert job.done()  # its holder is gone
    assert background.start(None, (), ledger) is None and not os.path.exists(lock)  # stale: removed

    with open(lock, "w"):
        pass  # empty: being written by the process that took it this moment
    assert background._holder(lock) == -1
    os.utime(lock, (0, 0))  # ... or long ago, by one that died before writing
    assert background._holder(lock) is None


def test_start_gives_up_quietly_where_the_cache_cannot_be_written(tmp_path, monkeypatch):
    monkeypatch.setattr(background, "ENABLED", True)
    target = tmp_path / "a_file"
    target.write_text("")
    assert background.start(None, (), str(target / "kernel.interpreted")) is None  # its folder is a file
    assert background.start(None, (), None) is None  # no on-disk cache at all


def test_the_modes_of_a_kernel_are_which_arguments_are_none():
    a = np.ones(3)
    assert tiers._mode((a, 1.0)) == 0
    assert tiers._mode((None, a, None)) == 0b101


def test_a_kernel_compiled_for_one_mode_still_interprets_another(monkeypatch):
    """The tree builder compiled for boosting's histogram search must not compile the exact search
    on the next small call: that mode has not earned its compile yet."""
    monkeypatch.setattr(tiers, "_TIER", "auto")

    @njit(cache=False, interpret_small=True)
    def scaled_sum(a, factor):
        total = a.sum()
        if factor is None:
            return total
        return total * factor

    big = np.ones(tiers.SMALL_CALL + 1)
    assert scaled_sum(big, 2.0) == 2.0 * big.size  # too big to interpret: compiled, for mode 0
    assert len(scaled_sum.overloads) == 1
    assert scaled_sum(np.ones(4), None) == 4.0  # mode 0b10: interpreted
    assert len(scaled_sum.overloads) == 1 and scaled_sum._interpreted_here[0b10] > 0
    assert scaled_sum(np.ones(4), 3.0) == 12.0  # mode 0's machine code
    assert 0 not in scaled_sum._interpreted_here
    assert scaled_sum(big, None) == big.size  # now big: compiled for that mode too
    assert len(scaled_sum.overloads) == 2


def test_each_mode_keeps_its_own_ledger(monkeypatch, tmp_path):
    monkeypatch.setattr(tiers, "_TIER", "auto")
    monkeypatch.setattr(budgets, "ledger_path", lambda kernel, mode=0: str(tmp_path / f"k.{mode}.interpreted"))
    monkeypatch.setattr(budgets, "INTERPRETED_KERNELS", set())  # only this test's kernel
    monkeypatch.setattr(tiers, "INTERPRETED_KERNELS", budgets.INTERPRETED_KERNELS)

    @njit(cache=False, interpret_small=True)
    def pick(a, b):
        return a.sum() if b is None else b.sum()

    pick(np.ones(3), None)
    budgets.write_ledgers()
    assert (tmp_path / "k.2.interpreted").exists() and not (tmp_path / "k.0.interpreted").exists()


_LOAD_THEN_COMPILE = COMPILE_LOG + """
import math
import numpy as np
from numba.core.registry import cpu_target
from sklearn.datasets import load_iris
from lucidml.naive_bayes import GaussianNB
from lucidml.naive_bayes._gaussian_kernels import class_moments, joint_log_likelihood
from lucidml.utils import njit
X, y = load_iris(return_X_y=True)
proba = GaussianNB().fit(X, y).predict_proba(X)
installed = len(cpu_target.target_context._registries)  # what Numba's refresh would have installed
kernels = list(compiled)

@njit(cache=False)
def uses_the_registries(a):
    return np.linalg.norm(a) + math.sqrt(4.0) + np.sort(a)[0]

print(json.dumps({"proba": proba.tolist(), "installed_before": installed, "compiled_by_fit": kernels,
                  "loaded": bool(class_moments.overloads and joint_log_likelihood.overloads),
                  "compiled": uses_the_registries(np.array([3.0, 4.0]))}))
"""


def test_cached_kernels_load_without_numba_s_registries_and_a_compile_after_still_works(tmp_path):
    """Loading cached machine code skips Numba's registry refresh (utils._numba_cache); a compile
    in the same process afterwards refreshes them itself."""
    filled = _run(_LOAD_THEN_COMPILE, tmp_path, LUCIDML_KERNEL_TIER="compiled")
    assert "joint_log_likelihood" in filled["compiled_by_fit"]
    out = _run(_LOAD_THEN_COMPILE, tmp_path)
    assert out["loaded"] and out["compiled_by_fit"] == []  # machine code, from the cache
    np.testing.assert_array_equal(out["proba"], filled["proba"])
    assert out["compiled"] == 10.0
    assert out["installed_before"] < filled["installed_before"]


class _FakeJob:
    """A child that never finishes (``finished=False``) or finished without compiling anything."""

    def __init__(self, finished):
        self.finished, self.argtypes, self.process = finished, None, None

    def done(self):
        return self.finished


def _background_rules(monkeypatch, finished):
    monkeypatch.setattr(tiers, "_TIER", "auto")
    monkeypatch.setattr(tiers, "BACKGROUND_MIN_S", 0.0)
    monkeypatch.setattr(tiers, "BACKGROUND_FROM", 0.0)
    monkeypatch.setattr(background, "ENABLED", True)
    monkeypatch.setattr(tiers, "ledger_path", lambda kernel, mode=0: "unused")
    starts = []
    monkeypatch.setattr(background, "start", lambda kernel, argtypes, ledger: starts.append(argtypes)
                        or _FakeJob(finished))

    @njit(cache=False, interpret_small=True)
    def total(a):
        return a.sum()

    return total, starts


def test_the_caller_waits_for_a_slow_child_up_to_twice_the_budget(monkeypatch):
    total, starts = _background_rules(monkeypatch, finished=False)
    budget = tiers.interpret_budget(total)
    assert total(np.ones(3)) == 3.0 and len(starts) == 1 and not total.overloads  # a child, and interpreted
    total._interpreted_here[0] = 1.5 * budget  # past the budget, the child still at it: go on renting
    assert total(np.ones(3)) == 3.0 and not total.overloads and len(starts) == 1
    total._interpreted_here[0] = 2.0 * budget  # twice: compile here after all
    assert total(np.ones(3)) == 3.0 and total.overloads


def test_a_child_that_compiled_nothing_is_tried_again_then_the_caller_compiles(monkeypatch):
    total, starts = _background_rules(monkeypatch, finished=True)
    for _ in range(tiers.MAX_JOBS):
        assert total(np.ones(3)) == 3.0 and not total.overloads  # each child "finished", nothing on disk
    assert len(starts) == tiers.MAX_JOBS
    total._interpreted_here[0] = tiers.interpret_budget(total)  # the budget spent, no child left to try
    assert total(np.ones(3)) == 3.0 and total.overloads and len(starts) == tiers.MAX_JOBS


def test_one_child_at_a_time_per_process(monkeypatch):
    monkeypatch.setattr(background, "_STARTED", [])
    assert background.idle()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    background._STARTED.append(sleeper)
    assert not background.idle()
    background.stop_children()
    assert sleeper.poll() is not None and background.idle()


def test_a_cache_save_holds_a_lock_across_processes(tmp_path, monkeypatch):
    """Numba picks a cache entry's data-file name from the index it has read: two processes saving
    one function at once could pair one signature with the other's code. Saves take turns."""
    import fcntl

    from numba.core import config
    from numba.core.caching import FunctionCache

    from lucidml.utils._numba_cache import NumbaCache

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))  # the cache, and its lock, in tmp_path
    cache = NumbaCache(test_a_cache_save_holds_a_lock_across_processes)
    lock = cache._cache_file._index_path + ".lock"
    assert lock.startswith(str(tmp_path))
    held = []

    def numba_save(self, sig, data):
        with open(lock, "a") as other:  # another open file, as another process's would be
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held.append(False)
            except BlockingIOError:
                held.append(True)

    monkeypatch.setattr(FunctionCache, "save_overload", numba_save)
    cache.save_overload((), None)
    assert held == [True]
    with open(lock, "a") as after:
        fcntl.flock(after, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released once the save is done
