"""The project's njit defaults, and the same results with JIT disabled."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from lucidml.datasets import load
from lucidml.naive_bayes import GaussianNB
from lucidml.naive_bayes._gaussian_kernels import class_moments, joint_log_likelihood
from lucidml.utils import njit


def test_kernels_are_declared_with_the_project_defaults():
    for kernel in (class_moments, joint_log_likelihood):
        assert kernel.targetoptions.get("nogil") is True
        assert kernel._cache.__class__.__name__ != "NullCache", "cache=True"


def test_njit_accepts_both_decorator_forms_and_overrides():
    @njit
    def double(x):
        return 2 * x

    @njit(cache=False)
    def triple(x):
        return 3 * x

    assert double(2) == 4 and triple(2) == 6
    assert double.targetoptions["nogil"] and triple.targetoptions["nogil"]


_SCRIPT = """
import json, numpy as np, numba
from lucidml.datasets import load
from lucidml.naive_bayes import GaussianNB
X, y = load("wine")
clf = GaussianNB()
for part in np.array_split(np.arange(len(y)), 3):
    clf.partial_fit(X[part], y[part], classes=np.unique(y))
print(json.dumps({"jit_disabled": bool(numba.config.DISABLE_JIT), "theta": clf.theta_.tolist(),
                  "var": clf.var_.tolist(), "proba": clf.predict_proba(X).tolist()}))
"""


def test_results_are_the_same_without_jit():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True)
    plain = json.loads(out.stdout)
    assert plain["jit_disabled"] is True

    X, y = load("wine")
    clf = GaussianNB()
    for part in np.array_split(np.arange(len(y)), 3):
        clf.partial_fit(X[part], y[part], classes=np.unique(y))
    np.testing.assert_allclose(plain["theta"], clf.theta_, rtol=1e-12)
    np.testing.assert_allclose(plain["var"], clf.var_, rtol=1e-12)
    np.testing.assert_allclose(plain["proba"], clf.predict_proba(X), rtol=1e-9, atol=1e-15)


_TREE_SCRIPT = """
import json, warnings
warnings.simplefilter("error")  # NumPy's overflow warnings of the uint64 hashes, say
from sklearn.datasets import load_diabetes
from lucidml.tree import DecisionTreeRegressor
X, y = load_diabetes(return_X_y=True)
tree = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y).tree_
print(json.dumps({"feature": tree.feature.tolist(), "threshold": tree.threshold.tolist()}))
"""


def test_a_tree_without_jit_is_the_compiled_tree_and_warns_of_nothing():
    """Without JIT the kernels run as plain Python; the tree's seeded hashes wrap around 2^64 as
    machine code does, without a NumPy warning on every node."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", _TREE_SCRIPT], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    plain = json.loads(out.stdout)
    from sklearn.datasets import load_diabetes

    from lucidml.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    tree = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y).tree_
    assert plain["feature"] == tree.feature.tolist()
    np.testing.assert_array_equal(plain["threshold"], tree.threshold)


_CACHE_SCRIPT = """
import warnings
warnings.filterwarnings("error", message="Cannot cache")  # Numba's word for a kernel it compiles anew every time
from sklearn.datasets import load_iris
from lucidml.ensemble import AdaBoostClassifier, GradientBoostingClassifier, RandomForestClassifier
from lucidml.tree import DecisionTreeClassifier
X, y = load_iris(return_X_y=True)
for model in (DecisionTreeClassifier(), DecisionTreeClassifier(max_bins=16), RandomForestClassifier(5),
              AdaBoostClassifier(5), GradientBoostingClassifier(n_estimators=5)):
    model.fit(X, y).predict(X)
"""


def test_tree_kernels_can_be_kept_in_the_on_disk_cache():
    """A kernel that Numba cannot cache (e.g. one that calls numba.get_num_threads()) is compiled
    again in every process: a second of cold start each time, with the cache filled."""
    done = subprocess.run([sys.executable, "-c", _CACHE_SCRIPT], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_unsigned_is_the_index_itself_in_python_and_unsigned_in_compiled_code():
    from lucidml.utils import unsigned

    assert unsigned(3) == 3 and type(unsigned(3)) is int  # interpreted: no conversion, no cost

    @njit(cache=False)
    def load(a, i):
        j = unsigned(i)
        return a[j], j

    value, j = load(np.arange(5.0), np.int32(3))
    assert value == 3.0 and j == 3
    assert str(load.nopython_signatures[0].return_type) == "Tuple(float64, uint64)"


def test_ctrl_c_during_a_compile_arrives_when_the_compile_has_ended(monkeypatch):
    # An interrupt raised inside Numba's compiler could leave an LLVM object freed but still owned,
    # and the process crashed later (a CI run of the Ctrl-C tests): the compile holds it.
    import _thread
    import signal
    import time

    from numba.core.registry import CPUDispatcher

    from lucidml.utils._numba import kernel_tier, njit

    real = CPUDispatcher.compile

    def interrupted_compile(self, sig):
        _thread.interrupt_main()
        time.sleep(0.05)  # Python runs the SIGINT handler here, in the middle of the compile
        return real(self, sig)

    @njit(cache=False)
    def add_one(x):
        return x + 1.0

    monkeypatch.setattr(CPUDispatcher, "compile", interrupted_compile)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with kernel_tier("compiled"), pytest.raises(KeyboardInterrupt):
            add_one(1.0)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert add_one.signatures  # compiled in full before the interrupt was delivered
    assert signal.getsignal(signal.SIGINT) is previous
