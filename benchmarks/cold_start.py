"""Cold start of every registered estimator: import, first fit and first predict in a fresh process (issue 17).

For every estimator of ``lucidml.registry.REGISTRY``, with its comparison parameters, on small
real data scaled to [0, 1] (wine, 178 × 13, for classifiers, clusterers, transformers and density
models; diabetes, 442 × 10, for regressors), three fresh Python processes run one after the
other:

1. **as installed**: an empty ``NUMBA_CACHE_DIR`` and the default kernel tier, what a newcomer
   waits for (small first calls of some kernels run interpreted, ``lucidml.utils._numba``);
2. **all compiled**: an empty cache in the ``compiled`` tier, the one-time compile of every
   kernel the fit and predict touch (what a first fit on data too big to interpret pays);
3. **cache filled**: the cache that process 2 filled, what every later process pays.

Each process reports the seconds of ``import lucidml`` alone, of importing it with the
estimator's module (and so scikit-learn, SciPy and Numba), of the first ``fit`` and of the
first ``predict`` (or ``transform`` / ``score_samples``; clusterers
without ``predict``: nothing). Python's own start-up is not counted.

``python -m benchmarks.cold_start [--models A,B] [--write]``; ``--write`` puts the table into
docs/benchmarks.md.
"""

import argparse
import json
import statistics
import sys
import tempfile

from lucidml.registry import REGISTRY

from ._report import write_section
from .runner import AS_INSTALLED, COMPILE_ALL, STOP_CHILDREN, run_python

_SCRIPT = """
import json, time
start = time.perf_counter()
import lucidml
package = time.perf_counter()
from lucidml.registry import get_entry
entry = get_entry({name!r})
cls = entry.load()
imported = time.perf_counter()
from sklearn.datasets import load_diabetes, load_wine
X, y = (load_diabetes if entry.kind == "regressor" else load_wine)(return_X_y=True)
X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))  # in [0, 1]: the online learners, the counts models
model = entry.make()
t = time.perf_counter()
model.fit(X, y)
fitted = time.perf_counter()
method = next((m for m in ("predict", "transform", "score_samples") if hasattr(model, m)), None)
if method is not None:
    getattr(model, method)(X)
predicted = time.perf_counter()
print(json.dumps([imported - start, fitted - t, predicted - fitted, package - start]))
""" + STOP_CHILDREN


def _run(name, cache_dir, env):
    return run_python(_SCRIPT.format(name=name), cache_dir=cache_dir, env=env, parse=json.loads)


def cold_start_rows(names):
    """[(name, as installed (import, fit, predict), all compiled, cache filled)] for each estimator."""
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory() as fresh, tempfile.TemporaryDirectory() as cache:
            installed = _run(name, fresh, AS_INSTALLED)
            compiled = _run(name, cache, COMPILE_ALL)
            filled = _run(name, cache, AS_INSTALLED)
        rows.append((name, installed, compiled, filled))
        print(f"{name}: {installed} {compiled} {filled}", file=sys.stderr)
    return rows


def table(rows):
    def s(t):
        return f"{t:.2f}"

    lines = ["| estimator | import with its module | first fit, as installed | first predict | first fit + predict, all compiled "
             "| first fit, cache filled | first predict, cache filled |", "|---|---|---|---|---|---|---|"]
    for name, installed, compiled, filled in rows:
        lines.append(f"| {name} | {s(installed[0])} | {s(installed[1])} | {s(installed[2])} "
                     f"| {s(compiled[1] + compiled[2])} | {s(filled[1])} | {s(filled[2])} |")
    fits = [installed[1] for _, installed, _, _ in rows]
    slow = [name for name, installed, _, _ in rows if installed[1] > 5.0]
    lines.append("")
    lines.append(f"Seconds. First fit as installed: median {statistics.median(fits):.2f} s, largest "
                 f"{max(fits):.2f} s; above 5 s: {', '.join(slow) if slow else 'none'}. `import lucidml` alone: at "
                 f"most {max(installed[3] for _, installed, _, _ in rows) * 1e3:.0f} ms (the estimators load on "
                 "first use).")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cold_start", description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated estimator names (default: every registered one)")
    parser.add_argument("--write", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args(argv)
    names = [entry.name for entry in REGISTRY]
    if args.models:
        wanted = [m.strip() for m in args.models.split(",")]
        unknown = set(wanted) - set(names)
        if unknown:
            parser.error(f"unknown estimator(s) {sorted(unknown)}")
        names = wanted
    text = table(cold_start_rows(names))
    print(text)
    if args.write:
        write_section("cold-start-table", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
