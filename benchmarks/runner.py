"""Run the benchmark cases and print lucidml beside scikit-learn.

Protocol, per case and size: both estimators are built from the registry, warmed up with one
fit + predict each (not timed), then timed in at least ``--repeats`` alternated rounds on the
same arrays, the order of the two flipped every round. A call that takes less than
``MIN_MEASURE_S`` is repeated in an inner loop (like ``timeit``) and the time per call kept.
Reported: the median fit and predict times, the ratios lucidml / scikit-learn, and both test
scores (accuracy or R²; for a clusterer, the adjusted Rand index of its training labels against
the generating classes; for a density estimator, the mean log-likelihood of the test samples;
for a transformer, whose ``transform`` is timed in the predict column, the fraction of the test
set's variance its reconstruction keeps, when it has ``inverse_transform``). Both libraries run under the same thread settings, which are printed
(by default, what a user gets; ``--threads N`` limits BLAS, OpenMP and Numba to N).

Cold start (import + first fit in a fresh Python process, on 200 samples) is measured
separately for the estimators the registry marks as compiled: with Numba's on-disk cache warm
(what every run after the first on a machine pays), with an empty cache (the one-time compile),
and for scikit-learn.
"""

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numba
import numpy as np
import scipy.sparse
from sklearn.base import clone, is_classifier, is_clusterer
from sklearn.exceptions import NotFittedError
from sklearn.metrics import accuracy_score, adjusted_rand_score, r2_score
from sklearn.model_selection import train_test_split
from sklearn.utils import get_tags
from threadpoolctl import threadpool_info, threadpool_limits

from lucidml.datasets import load_dataset
from lucidml.registry import get_entry

from ._report import write_section
from .cases import CASES

SCHEMA_VERSION = 1
MIN_MEASURE_S = 0.05
COLD_START_SAMPLES = 200


def _data(case, n_samples, seed=0):
    data = load_dataset(case.dataset, n_samples=n_samples, n_features=case.n_features, noise=case.noise,
                        random_state=seed)
    stratify = data.y if data.task == "classification" else None
    X = data.X if case.dtype is None else data.X.astype(case.dtype)
    X_train, X_test, y_train, y_test = train_test_split(X, data.y, test_size=0.2, random_state=seed,
                                                        stratify=stratify)
    if case.max_test is not None:
        X_test, y_test = X_test[:case.max_test], y_test[:case.max_test]
    return X_train, X_test, y_train, y_test


def _time_per_call(func, number):
    start = time.perf_counter()
    for _ in range(number):
        func()
    return (time.perf_counter() - start) / number


def _calibrate(func):
    """How many calls make one measurement of at least MIN_MEASURE_S."""
    once = _time_per_call(func, 1)
    return max(1, min(1000, int(np.ceil(MIN_MEASURE_S / max(once, 1e-9)))))


def _is_transformer(estimator):
    return not hasattr(estimator, "predict") and hasattr(estimator, "transform")


class _Side:
    """One library's estimator on one data set: fit and predict timings, test score.

    A clusterer is scored by the adjusted Rand index of its training labels against the labels
    that generated the data; one without ``predict`` (e.g. DBSCAN) has no predict timing. A
    transformer's ``transform`` takes the place of ``predict``.
    """

    def __init__(self, estimator, X_train, y_train, X_test, y_test):
        self.estimator, self.X_train, self.y_train, self.X_test, self.y_test = (
            estimator, X_train, y_train, X_test, y_test
        )
        self.method = "transform" if _is_transformer(estimator) else "predict"
        self.predicts = hasattr(estimator, self.method)
        self.fit_times, self.predict_times = [], []
        self.fitted = clone(estimator).fit(X_train, y_train)  # warm-up
        self.fit_number = _calibrate(lambda: clone(estimator).fit(X_train, y_train))
        if self.predicts:
            self._predict()
            self.predict_number = _calibrate(self._predict)

    def _predict(self):
        return getattr(self.fitted, self.method)(self.X_test)

    def measure(self):
        fresh = [clone(self.estimator) for _ in range(self.fit_number)]
        start = time.perf_counter()
        for estimator in fresh:
            estimator.fit(self.X_train, self.y_train)
        self.fit_times.append((time.perf_counter() - start) / self.fit_number)
        self.fitted = fresh[-1]
        if self.predicts:
            self.predict_times.append(_time_per_call(self._predict, self.predict_number))

    def score(self):
        kind = _metric_name(self.estimator)
        if kind == "adjusted_rand":
            return float(adjusted_rand_score(self.y_train, self.fitted.labels_))
        if kind == "mean_log_likelihood":
            return float(self.fitted.score(self.X_test))
        if kind == "variance_kept":
            try:  # scikit-learn's KernelPCA has the method but refuses without fit_inverse_transform
                return _variance_kept(self.X_test, self._predict(), self.fitted.inverse_transform)
            except (AttributeError, NotFittedError):
                return None
        metric = accuracy_score if kind == "accuracy" else r2_score
        return float(metric(self.y_test, self.fitted.predict(self.X_test)))


def _variance_kept(X, Z, inverse_transform, block_bytes=2**26):
    """1 − ‖X − X̂‖² / ‖X − mean‖², X̂ = inverse_transform(Z): how much of the test set's variance a
    reconstruction keeps. Summed over blocks of rows, so that a wide sparse X (25,000 × 50,000 documents)
    is never made dense whole."""
    rows = max(1, block_bytes // (8 * X.shape[1]))
    mean = np.asarray(X.mean(axis=0)).ravel()
    residual = total = 0.0
    for start in range(0, X.shape[0], rows):
        block = X[start:start + rows]
        block = block.toarray() if scipy.sparse.issparse(block) else np.asarray(block)
        residual += float(((block - inverse_transform(Z[start:start + rows])) ** 2).sum())
        total += float(((block - mean) ** 2).sum())
    return 1.0 - residual / total


def _make_expression(case, library):
    """Python source that builds the case's estimator of ``library`` in a fresh process (``entry`` in scope)."""
    if library == "lucidml":
        return f"entry.make(**{case.params!r})"
    if case.versus is None:
        return f"entry.make_sklearn(**{case.params!r})"
    module, _, name = case.versus.rpartition(".")
    return f"__import__('importlib').import_module({module!r}).{name}(**{case.versus_params!r})"


def _cold_start(entry, case, cache_dir=None, library="lucidml", env=None):
    """Seconds for import + first fit in a fresh interpreter."""
    make = _make_expression(case, library)
    script = (
        "import time; t = time.perf_counter()\n"
        f"from lucidml.registry import get_entry; entry = get_entry({entry.name!r})\n"
        f"from lucidml.datasets import load\n"
        f"X, y = load({case.dataset!r}, n_samples={COLD_START_SAMPLES}, n_features={case.n_features!r}, "
        f"noise={case.noise!r})\n"
        f"{make}.fit(X, y)\n"
        "print(time.perf_counter() - t)\n"
        + STOP_CHILDREN
    )
    return run_python(script, cache_dir=cache_dir, env=env)


# A process in this tier compiles every kernel it runs (and so fills Numba's on-disk cache); in
# the default tier, small first calls of some kernels run interpreted (lucidml.utils._numba).
COMPILE_ALL = {"LUCIDML_KERNEL_TIER": "compiled"}
AS_INSTALLED = {"LUCIDML_KERNEL_TIER": "auto"}
# The last line of a script timed with a throw-away cache: a kernel's compile that the fit handed to a
# child process (lucidml.utils._background_compile) would only fill that cache, and take a core
# from the next measurement.
STOP_CHILDREN = "from lucidml.utils._background_compile import stop_children; stop_children()\n"


def run_python(script, cache_dir=None, env=None, parse=float):
    """Run ``script`` in a fresh interpreter from the repository root; ``parse`` of its last line.

    ``cache_dir``: the ``NUMBA_CACHE_DIR`` it runs with (default: the usual cache); ``env``: more
    environment variables.
    """
    env = {**os.environ, **(env or {})}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed:\n{out.stderr[-2000:]}")
    return parse(out.stdout.strip().splitlines()[-1])


def _fit_peak_rss(entry, case, n_samples, library):
    """MiB of peak resident memory that one fit adds in a fresh process, above the loaded data.

    Resident memory sees every allocation (NumPy's, Numba's, the C libraries'), which tracemalloc
    does not. Linux only: after the data are loaded and a fit on 200 rows has loaded the compiled
    kernels, the peak (VmHWM) is reset (``clear_refs``), so neither the data generator's
    temporaries nor code loading hide or inflate the fit's own working memory.
    """
    make = _make_expression(case, library)
    script = (
        "from benchmarks.runner import _data\n"
        "from benchmarks.cases import CASES\n"
        f"from lucidml.registry import get_entry; entry = get_entry({entry.name!r})\n"
        f"case = [c for c in CASES if c.name == {case.name!r}][0]\n"
        f"X_train, X_test, y_train, y_test = _data(case, {n_samples!r})\n"
        f"estimator = {make}\n"
        "from sklearn.base import clone\n"
        "clone(estimator).fit(X_train[:200], y_train[:200])  # load compiled kernels, libraries\n"
        "def status(key):\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith(key): return int(line.split()[1]) / 1024\n"
        "open('/proc/self/clear_refs', 'w').write('5')\n"
        "before = status('VmRSS')\n"
        "estimator.fit(X_train, y_train)\n"
        "print(status('VmHWM') - before)\n"
    )
    return run_python(script)


def _cold_starts(entry, case):
    if not entry.compiled:
        return None
    with tempfile.TemporaryDirectory() as empty_cache:
        compile_s = _cold_start(entry, case, cache_dir=empty_cache, env=AS_INSTALLED)
    _cold_start(entry, case, env=COMPILE_ALL)  # make sure the default cache is filled
    return {
        "lucidml": _cold_start(entry, case, env=AS_INSTALLED),
        "lucidml_empty_cache": compile_s,
        "sklearn": _cold_start(entry, case, library="sklearn"),
    }


def run_case(case, n_samples, repeats, threads):
    entry = get_entry(case.estimator)
    X_train, X_test, y_train, y_test = _data(case, n_samples)
    sides = {
        "lucidml": _Side(entry.make(**case.params), X_train, y_train, X_test, y_test),
        "sklearn": _Side(_counterpart(entry, case), X_train, y_train, X_test, y_test),
    }
    order = ["lucidml", "sklearn"]
    for _ in range(repeats):
        for name in order:
            sides[name].measure()
        order.reverse()
    medians = {
        name: {"fit": statistics.median(side.fit_times),
               "predict": statistics.median(side.predict_times) if side.predict_times else None}
        for name, side in sides.items()
    }
    return {
        "case": case.name,
        "estimator": entry.name,
        "sklearn": case.versus or entry.sklearn,
        "dataset": case.dataset,
        "sizes": {"n_train": len(y_train), "n_test": len(y_test), "n_features": int(X_train.shape[1])},
        "threads": threads,
        "repeats": repeats,
        "medians": medians,
        "ratio": {
            stage: medians["lucidml"][stage] / medians["sklearn"][stage]
            if medians["lucidml"][stage] is not None and medians["sklearn"][stage] is not None else None
            for stage in ("fit", "predict")
        },
        "scores": {name: side.score() for name, side in sides.items()},
        "metric": _metric_name(sides["lucidml"].estimator),
        "target": case.target,
        "stage": case.stage,
        "cold_start_s": None,
        "peak_memory_mib": _peak_memory(sides["lucidml"].fitted, case) if case.memory_queries else None,
        "fit_peak_rss_mib": {library: _fit_peak_rss(entry, case, n_samples, library) for library in ("lucidml", "sklearn")}
        if case.fit_memory else None,
    }


def _counterpart(entry, case):
    """The scikit-learn estimator a case compares with: the registry's, or the case's ``versus``."""
    if case.versus is None:
        return entry.make_sklearn(**case.params)
    module, _, name = case.versus.rpartition(".")
    return getattr(importlib.import_module(module), name)(**case.versus_params)


def _metric_name(estimator):
    if is_clusterer(estimator):
        return "adjusted_rand"
    if get_tags(estimator).estimator_type == "density_estimator":
        return "mean_log_likelihood"
    if _is_transformer(estimator):
        return "variance_kept"
    return "accuracy" if is_classifier(estimator) else "r2"


def _peak_memory(fitted, case):
    """Peak MiB allocated by one neighbour search over ``case.memory_queries`` queries."""
    queries = np.random.default_rng(0).normal(size=(case.memory_queries, fitted.n_features_in_))
    tracemalloc.start()
    fitted.kneighbors(queries)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"queries": case.memory_queries, "n_train": int(fitted.n_samples_fit_), "peak": peak / 2**20,
            "result": queries.shape[0] * fitted.n_neighbors * 16 / 2**20}


def _thread_settings(limit):
    pools = {}
    for pool in threadpool_info():
        pools.setdefault(pool["user_api"], pool["num_threads"])
    return {"limit": limit, "blas": pools.get("blas"), "openmp": pools.get("openmp"), "numba": numba.get_num_threads()}


def _format_ms(seconds):
    return "—" if seconds is None else f"{seconds * 1e3:.3g}"


def _markdown(header, rows):
    """A Markdown table: a header row, the separator, one line per row of cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def _speed_row(r):
    m, ratio = r["medians"], r["ratio"]

    def ratio_cell(stage):
        if ratio[stage] is None:
            return "—"
        if stage != r["stage"]:
            return f"{ratio[stage]:.2f}"
        return f"{ratio[stage]:.2f}*" + (" (slower)" if ratio[stage] > r["target"] else "")

    return [
        r["case"], f"{r['sizes']['n_train']} × {r['sizes']['n_features']}",
        _format_ms(m["lucidml"]["fit"]), _format_ms(m["sklearn"]["fit"]), ratio_cell("fit"),
        _format_ms(m["lucidml"]["predict"]), _format_ms(m["sklearn"]["predict"]), ratio_cell("predict"),
        _format_score(r["scores"]["lucidml"]), _format_score(r["scores"]["sklearn"]),
    ]


def _format_score(score):
    return "—" if score is None else f"{score:.4f}"


def format_table(results):
    header = ["case", "n_train × d", "fit ms lucidml", "fit ms sklearn", "fit ratio", "predict ms lucidml",
              "predict ms sklearn", "predict ratio", "score lucidml", "score sklearn"]
    if any(r["metric"] == "variance_kept" for r in results):
        header[5:8] = ["predict (transform) ms lucidml", "predict (transform) ms sklearn", "predict ratio"]
    lines = _markdown(header, [_speed_row(r) for r in results])
    cold = [(r["case"], r["estimator"], r["cold_start_s"]) for r in results if r["cold_start_s"]]
    if cold:
        header = ["cold start (import + first fit, fresh process)", "lucidml", "lucidml, empty Numba cache", "sklearn"]
        rows = [[f"{case} ({name})", f"{c['lucidml']:.2f} s", f"{c['lucidml_empty_cache']:.2f} s", f"{c['sklearn']:.2f} s"]
                for case, name, c in cold]
        lines += [""] + _markdown(header, rows)
    fit_memory = [r for r in results if r.get("fit_peak_rss_mib")]
    if fit_memory:
        header = ["peak memory of one fit (fresh process, resident MiB above the data)", "n_train × d", "lucidml",
                  "sklearn", "ratio"]
        rows = [[r["case"], f"{r['sizes']['n_train']} × {r['sizes']['n_features']}",
                 f"{r['fit_peak_rss_mib']['lucidml']:.1f}", f"{r['fit_peak_rss_mib']['sklearn']:.1f}",
                 _memory_ratio(r["fit_peak_rss_mib"])]
                for r in fit_memory]
        lines += [""] + _markdown(header, rows)
    memory = [(r["case"], r["peak_memory_mib"]) for r in results if r["peak_memory_mib"]]
    if memory:
        header = ["peak memory, brute-force k-NN search (tracemalloc)", "queries", "n_train", "peak MiB", "result MiB"]
        rows = [[case, p["queries"], p["n_train"], f"{p['peak']:.1f}", f"{p['result']:.1f}"] for case, p in memory]
        lines += [""] + _markdown(header, rows)
    return "\n".join(lines)


def _memory_ratio(peaks):
    # A fit that adds next to nothing (a k-NN fit stores a reference) has no meaningful ratio.
    return f"{peaks['lucidml'] / peaks['sklearn']:.2f}" if peaks["sklearn"] >= 1.0 else "—"


def _parser():
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="first size of each case only (default)")
    mode.add_argument("--full", action="store_true", help="every size of every case")
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--sizes", help="comma-separated sample counts, overriding the cases' sizes")
    parser.add_argument("--repeats", type=int, default=7, help="alternated timing rounds (at least 5)")
    parser.add_argument("--threads", type=int, help="limit BLAS/OpenMP/Numba threads (default: no limit)")
    parser.add_argument("--no-cold-start", action="store_true", help="skip the fresh-process cold start")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--write", metavar="SECTION",
                        help="also write the table into docs/benchmarks.md, between <!-- SECTION --> markers")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.repeats < 5:
        print("benchmarks: --repeats must be at least 5", file=sys.stderr)
        return 2
    cases = CASES
    if args.cases:
        wanted = {c.strip() for c in args.cases.split(",")}
        unknown = wanted - {c.name for c in CASES}
        if unknown:
            print(f"benchmarks: unknown case(s) {sorted(unknown)}; known: {[c.name for c in CASES]}", file=sys.stderr)
            return 2
        cases = [c for c in CASES if c.name in wanted]
    override = [int(s) for s in args.sizes.split(",")] if args.sizes else None

    limiter = threadpool_limits(args.threads) if args.threads else None
    if args.threads:
        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    threads = _thread_settings(args.threads)
    results = []
    try:
        for case in cases:
            if case.sizes is None:
                sizes = [None]  # a bundled data set has its own size
            else:
                sizes = override or (case.sizes if args.full else case.sizes[:1])
            rows = [run_case(case, n, args.repeats, threads) for n in sizes]
            if not args.no_cold_start:
                rows[0]["cold_start_s"] = _cold_starts(get_entry(case.estimator), case)
            results += rows
            print(f"done: {case.name}", file=sys.stderr)
    finally:
        if limiter is not None:
            limiter.restore_original_limits()

    met = sum(r["ratio"][r["stage"]] <= r["target"] for r in results)
    report = (f"threads: {threads}; {args.repeats} alternated repeats, medians; ratio = lucidml / scikit-learn\n"
              f"{format_table(results)}\n\n"
              f"* = the stage with a speed target (ratio ≤ {CASES[0].target:g}): met by {met} of {len(results)} rows")
    print(report)
    if args.write:
        write_section(args.write, f"`python -m benchmarks {' '.join(argv if argv is not None else sys.argv[1:])}`:\n\n"
                      + report)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"schema": SCHEMA_VERSION, "mode": "full" if args.full else "quick", "results": results},
                      handle, indent=2)
    return 0
