"""A busy machine: how much slower each library fits when another process keeps one core busy.

``python -m benchmarks.contention [--cases kmeans:125000,svc,...] [--repeats 5] [--write]``. For
every case (at the size after its colon, else its first size or ``--sizes``) both libraries fit the same arrays in this process, taking
turns, once on a quiet machine and once beside a busy process (``while True: pass`` in a child
Python, started before and stopped after each measurement), alternating quiet and busy rounds so
that drift of the machine falls on both. The table gives the median fit time (plus prediction)
of each library in each condition and its slowdown, busy / quiet; issue 17 asks that
lucidml's slowdown be no worse than scikit-learn's.

Both libraries run with their default threads here (lucidml: all cores; ``n_jobs=-1`` is set
for the cases whose scikit-learn counterpart would otherwise use one core only), since the point
is how parallel work copes when a core is taken away.
"""

import statistics
import subprocess
import sys
import time

from lucidml.registry import get_entry

from ._report import table_main
from .cases import CASES
from .runner import _counterpart, _data, _Side

# name or name:sample count (KMeans at 125,000 = 100,000 × 20 training rows, the example)
DEFAULT_CASES = "kmeans:125000,logistic_binary,svc,random_forest_2_jobs,gradient_boosting_vs_hist"
BUSY = "while True: pass"


class _BusyProcess:
    """One core kept busy by a child process for the duration of a ``with`` block."""

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", BUSY])
        time.sleep(0.2)  # let the scheduler see it
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()


def _seconds(side):
    """One fit (plus one prediction) of a side, in seconds."""
    side.measure()
    return side.fit_times[-1] + (side.predict_times[-1] if side.predict_times else 0.0)


def measure(case, n_samples, repeats):
    entry = get_entry(case.estimator)
    X_train, X_test, y_train, y_test = _data(case, n_samples)
    sides = {
        "lucidml": _Side(entry.make(**case.params), X_train, y_train, X_test, y_test),
        "sklearn": _Side(_counterpart(entry, case), X_train, y_train, X_test, y_test),
    }
    times = {(name, busy): [] for name in sides for busy in (False, True)}
    for run in range(repeats):
        for busy in (False, True) if run % 2 == 0 else (True, False):
            for name in ("lucidml", "sklearn") if run % 2 == 0 else ("sklearn", "lucidml"):
                if busy:
                    with _BusyProcess():
                        times[name, busy].append(_seconds(sides[name]))
                else:
                    times[name, busy].append(_seconds(sides[name]))
    medians = {key: statistics.median(values) for key, values in times.items()}
    return {
        "case": case.name,
        "shape": f"{len(y_train)} × {X_train.shape[1]}",
        "versus": (case.versus or entry.sklearn).rpartition(".")[2],
        **{f"{name}_{'busy' if busy else 'quiet'}": value for (name, busy), value in medians.items()},
    }


def table(case_names, sizes, repeats):
    by_name = {case.name: case for case in CASES}
    unknown = [name for name in case_names if name.partition(":")[0] not in by_name]
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(unknown)}")
    rows = []
    for spec in case_names:
        name, _, size = spec.partition(":")
        case = by_name[name]
        for n_samples in [int(size)] if size else sizes or case.sizes[:1]:
            rows.append(measure(case, n_samples, repeats))
            print(f"done: {name}", file=sys.stderr)
    lines = [
        f"One busy process beside the fit (2-core machine); median of {repeats} alternated rounds; "
        "seconds of one fit + prediction; slowdown = busy / quiet.",
        "",
        "| case | n_train × d | scikit-learn side | lucidml quiet | lucidml busy | lucidml slowdown | "
        "scikit-learn quiet | scikit-learn busy | scikit-learn slowdown |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ours = r["lucidml_busy"] / r["lucidml_quiet"]
        theirs = r["sklearn_busy"] / r["sklearn_quiet"]
        lines.append(
            f"| {r['case']} | {r['shape']} | {r['versus']} | {r['lucidml_quiet']:.3f} | {r['lucidml_busy']:.3f} | "
            f"{ours:.2f}{' (more)' if ours > theirs else ''} | {r['sklearn_quiet']:.3f} | {r['sklearn_busy']:.3f} | "
            f"{theirs:.2f} |"
        )
    return "\n".join(lines)


def main(argv=None):
    arguments = [
        (["--cases"], {"default": DEFAULT_CASES, "help": "comma-separated case names of benchmarks.cases"}),
        (["--sizes"], {"default": None, "help": "comma-separated sample counts (default: each case's first)"}),
        (["--repeats"], {"type": int, "default": 5}),
    ]
    return table_main(
        argv, "python -m benchmarks.contention", __doc__, "contention-table", arguments,
        lambda args: table(args.cases.split(","), [int(s) for s in args.sizes.split(",")] if args.sizes else None,
                           args.repeats),
    )


if __name__ == "__main__":
    raise SystemExit(main())
