"""Ctrl-C as a user sends it: a real SIGINT to a separate process in the middle of a long fit (issue 20).

tests/utils/test_interrupt_iterative.py and tests/ensemble/test_interrupt.py interrupt a fit in
the test's own process with ``_thread.interrupt_main``, which sets Python's pending-signal flag
without a signal ever being delivered. Here every long fit runs in a fresh interpreter with
Python's default SIGINT handler; the parent waits until the child says it is fitting, sends
``os.kill(pid, SIGINT)``, and requires that the child exits within 3 s, that its traceback shows a
KeyboardInterrupt (never a SystemError from a compiled kernel), and that the estimator is left
unfitted. The fits and sizes are those of the in-process tests, each many seconds of work; a small
fit first loads the compiled kernels (from the shared Numba cache) before the child reports.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import lucidml

SRC = str(Path(lucidml.__file__).resolve().parent.parent)

# name: (import, constructor, rows, warm-up parameters of the small fit)
CASES = {
    "SVC": ("from lucidml.svm import SVC", "SVC(C=100.0, tol=1e-12, max_iter=-1)", 30_000, {"max_iter": 5}),
    "KMeans": ("from lucidml.cluster import KMeans", "KMeans(200, n_init=50, max_iter=1000, tol=0.0, random_state=0)",
               100_000, {"n_clusters": 3, "n_init": 1, "max_iter": 5}),
    "GaussianMixture": ("from lucidml.mixture import GaussianMixture",
                        "GaussianMixture(30, n_init=20, max_iter=1000, tol=0.0, random_state=0)", 100_000,
                        {"n_components": 2, "n_init": 1, "max_iter": 5}),
    "MLPClassifier": ("from lucidml.neural import MLPClassifier",
                      "MLPClassifier((256, 256), max_iter=1000, tol=0.0, n_iter_no_change=10_000, random_state=0)",
                      50_000, {"max_iter": 5}),
    "RandomForestClassifier": ("from lucidml.ensemble import RandomForestClassifier",
                               "RandomForestClassifier(2000, random_state=0)", 20_000, {"n_estimators": 2}),
    "GradientBoostingClassifier": ("from lucidml.ensemble import GradientBoostingClassifier",
                                   "GradientBoostingClassifier(n_estimators=20_000, random_state=0)", 20_000,
                                   {"n_estimators": 2}),
}

CHILD = """\
import signal, sys, time, traceback, warnings
signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever disposition the parent passed on
warnings.simplefilter("ignore")
import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted
{import_line}

def data(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(size=n) > 0).astype(int)

X, y = data({rows})
{constructor}.set_params(**{warm!r}).fit(*data(300, seed=1))  # load the compiled kernels
est = {constructor}
print("started", flush=True)
start = time.perf_counter()
try:
    est.fit(X, y)
except KeyboardInterrupt:
    traceback.print_exc()
    print(f"interrupted after {{time.perf_counter() - start:.2f}} s", flush=True)
    try:
        check_is_fitted(est)
    except NotFittedError:
        print("unfitted", flush=True)
    else:
        print("still fitted", flush=True)
    sys.exit(0)
print(f"finished after {{time.perf_counter() - start:.2f}} s", flush=True)
sys.exit(1)
"""

# The parent signals this long after the child's "started": well inside the fit.
INTO_THE_FIT = 0.5
# The child must be gone this soon after the signal.
EXIT_WITHIN = 3.0


@pytest.mark.parametrize("name", sorted(CASES))
def test_sigint_stops_a_long_fit_in_a_fresh_process(name):
    import_line, constructor, rows, warm = CASES[name]
    script = textwrap.dedent(CHILD).format(import_line=import_line, constructor=constructor, rows=rows, warm=warm)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([SRC] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTHONUNBUFFERED"] = "1"
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
    try:
        first = child.stdout.readline()  # blocks until the child has its data and kernels ready
        assert first.strip() == "started", (first, child.stderr.read() if child.poll() is not None else "")
        time.sleep(INTO_THE_FIT)
        assert child.poll() is None, "the fit ended before the signal; give it more work"
        os.kill(child.pid, signal.SIGINT)
        sent = time.perf_counter()
        try:
            out, err = child.communicate(timeout=EXIT_WITHIN)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{name}: the child was still running {EXIT_WITHIN} s after SIGINT")
        elapsed = time.perf_counter() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert "KeyboardInterrupt" in err, err
    assert "SystemError" not in err, err
    assert "unfitted" in out.splitlines(), out
    assert child.returncode == 0, (out, err)
    assert elapsed < EXIT_WITHIN
