"""Tree models: cold start from an empty Numba cache, and the peak memory of one fit (issue 16).

Cold start. For every model that grows trees, a fresh Python process imports lucidml, loads
iris (classifiers) or diabetes (regressors), fits the model with its default parameters and
predicts the training set; the time from before the import to after the prediction is
reported four ways, each in its own process:

- lucidml with an empty ``NUMBA_CACHE_DIR``, as installed: what a newcomer waits. Small first
  calls of the tree kernels run interpreted (``lucidml.utils._numba``), nothing is compiled;
- lucidml with an empty cache in the ``compiled`` kernel tier: the one-time compile that the
  first fit on data too big to interpret pays (and which fills the cache);
- lucidml with the cache that run filled: every later process;
- scikit-learn's counterpart.

Python's own start-up is not counted.

Memory. Resident-set growth of one fit in a fresh process, on 200,000 × 20 synthetic
classification data (``lucidml.datasets.load("classification")``), for lucidml and scikit-learn:
after the data are made and a fit on 200 rows has loaded the compiled code, the peak (VmHWM)
is reset and the fit's peak above the resident size before it is read. Linux only. glibc's
malloc is told to map every block of 128 KiB or more afresh (``MALLOC_MMAP_THRESHOLD_``):
otherwise it keeps the memory the data generator freed and hands it out again unseen, and a
fit's working arrays would not all show (scikit-learn's float32 copy of X, 15 MiB here, showed
as a 9.9 MiB growth).

``python -m benchmarks.trees [--no-cold-start] [--no-memory] [--write]`` prints both tables;
``--write`` also puts them into docs/benchmarks.md.
"""

import argparse
import sys
import tempfile

from ._report import write_section
from .runner import AS_INSTALLED, COMPILE_ALL, STOP_CHILDREN, run_python

# (lucidml class, scikit-learn class, data set); default parameters on both sides.
MODELS = [
    ("lucidml.tree.DecisionTreeClassifier", "sklearn.tree.DecisionTreeClassifier", "iris"),
    ("lucidml.tree.DecisionTreeRegressor", "sklearn.tree.DecisionTreeRegressor", "diabetes"),
    ("lucidml.ensemble.RandomForestClassifier", "sklearn.ensemble.RandomForestClassifier", "iris"),
    ("lucidml.ensemble.RandomForestRegressor", "sklearn.ensemble.RandomForestRegressor", "diabetes"),
    ("lucidml.ensemble.BaggingClassifier", "sklearn.ensemble.BaggingClassifier", "iris"),
    ("lucidml.ensemble.BaggingRegressor", "sklearn.ensemble.BaggingRegressor", "diabetes"),
    ("lucidml.ensemble.AdaBoostClassifier", "sklearn.ensemble.AdaBoostClassifier", "iris"),
    ("lucidml.ensemble.GradientBoostingClassifier", "sklearn.ensemble.GradientBoostingClassifier", "iris"),
    ("lucidml.ensemble.GradientBoostingRegressor", "sklearn.ensemble.GradientBoostingRegressor", "diabetes"),
]
MEMORY_MODELS = [
    ("DecisionTreeClassifier()", "lucidml.tree", "sklearn.tree"),
    ("RandomForestClassifier(n_estimators=100)", "lucidml.ensemble", "sklearn.ensemble"),
]
MEMORY_SHAPE = (200_000, 20)


def first_fit_seconds(class_path, dataset, cache_dir=None, env=None):
    """Seconds for import + load + fit + predict of ``class_path`` in a fresh process."""
    module, _, name = class_path.rpartition(".")
    script = (
        "import time; start = time.perf_counter()\n"
        f"from {module} import {name}\n"
        "from sklearn.datasets import load_iris, load_diabetes\n"
        f"X, y = load_{dataset}(return_X_y=True)\n"
        f"{name}().fit(X, y).predict(X)\n"
        "print(time.perf_counter() - start)\n"
        + STOP_CHILDREN
    )
    return run_python(script, cache_dir=cache_dir, env=env)


def fit_peak_rss_mib(expression, module, shape=MEMORY_SHAPE):
    """MiB of resident memory one fit of ``module.expression`` adds at its peak (fresh process)."""
    script = (
        "from lucidml.datasets import load\n"
        f"from {module} import *\n"
        f"X, y = load('classification', n_samples={shape[0]}, n_features={shape[1]}, random_state=0)\n"
        f"{expression}.fit(X[:200], y[:200])  # load the compiled code and the libraries\n"
        "def status(key):\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith(key):\n"
        "            return int(line.split()[1]) / 1024\n"
        "open('/proc/self/clear_refs', 'w').write('5')\n"
        "before = status('VmRSS')\n"
        f"{expression}.fit(X, y)\n"
        "print(status('VmHWM') - before)\n"
    )
    return run_python(script, env={"MALLOC_MMAP_THRESHOLD_": "131072", **COMPILE_ALL})


def cold_start_table():
    rows = ["| model (first fit + predict, fresh process) | data | lucidml, empty Numba cache "
            "| lucidml, empty cache, all compiled | lucidml, cache filled | scikit-learn |", "|---|---|---|---|---|---|"]
    for lucid, reference, dataset in MODELS:
        with tempfile.TemporaryDirectory() as fresh, tempfile.TemporaryDirectory() as cache:
            empty = first_fit_seconds(lucid, dataset, cache_dir=fresh, env=AS_INSTALLED)
            compiling = first_fit_seconds(lucid, dataset, cache_dir=cache, env=COMPILE_ALL)
            warm = first_fit_seconds(lucid, dataset, cache_dir=cache, env=AS_INSTALLED)
        sklearn = first_fit_seconds(reference, dataset)
        rows.append(f"| {lucid.rpartition('.')[2]} | {dataset} | {empty:.2f} s | {compiling:.2f} s | {warm:.2f} s "
                    f"| {sklearn:.2f} s |")
        print(rows[-1], file=sys.stderr)
    return "\n".join(rows)


def memory_table():
    n, d = MEMORY_SHAPE
    rows = [f"| fit at {n:,} × {d} (resident MiB above the data, fresh process) | lucidml | scikit-learn | ratio |",
            "|---|---|---|---|"]
    for expression, lucid_module, reference_module in MEMORY_MODELS:
        lucid = fit_peak_rss_mib(expression, lucid_module)
        reference = fit_peak_rss_mib(expression, reference_module)
        rows.append(f"| {expression} | {lucid:.1f} | {reference:.1f} | {lucid / reference:.2f} |")
        print(rows[-1], file=sys.stderr)
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trees", description=__doc__.splitlines()[0])
    parser.add_argument("--no-cold-start", action="store_true", help="skip the cold-start table")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory table")
    parser.add_argument("--write", action="store_true", help="write the tables into docs/benchmarks.md")
    args = parser.parse_args(argv)
    if not args.no_cold_start:
        table = cold_start_table()
        print(table + "\n")
        if args.write:
            write_section("tree-cold-start-table", table)
    if not args.no_memory:
        table = memory_table()
        print(table)
        if args.write:
            write_section("tree-memory-table", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
