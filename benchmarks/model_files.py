"""Model files: ``lucidml.save`` / ``lucidml.load`` beside ``joblib.dump`` / ``joblib.load``.

``python -m benchmarks.model_files [--rows 37500] [--trees 100] [--write]``. A random forest
(100 trees, the default depth) is fitted on a regression problem of ``rows`` × 20, then saved
and loaded seven times each way, taking turns; the table gives the median times, the file sizes, and the raw
bytes of the model's arrays (each byte of memory counted once: the trees' node arrays are views
of the forest's table). ``--write`` puts the table into docs/benchmarks.md.
"""

import statistics
import tempfile
import time
from pathlib import Path

import joblib
import numpy as np

import lucidml
from lucidml.ensemble import RandomForestRegressor

from ._report import table_main


def raw_array_bytes(forest):
    """Bytes of memory the forest's arrays cover, each byte once."""
    spans = []
    owners = [forest, forest._flat] + forest.estimators_ + [tree.tree_ for tree in forest.estimators_]
    for owner in owners:
        for value in vars(owner).values():
            for array in value if isinstance(value, list) else [value]:
                if isinstance(array, np.ndarray) and array.size:
                    start = array.__array_interface__["data"][0]
                    spans.append((start, start + array.nbytes))
    total, reach = 0, 0
    for start, stop in sorted(spans):
        total += max(0, stop - max(start, reach))
        reach = max(reach, stop)
    return total


def _medians(pairs, repeats=7):
    """Median seconds of each function; the functions take turns, so they share the machine's moods."""
    times = [[] for _ in pairs]
    for _ in range(repeats):
        for func, spent in zip(pairs, times):
            start = time.perf_counter()
            func()
            spent.append(time.perf_counter() - start)
    return [statistics.median(spent) for spent in times]


def table(rows, trees):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 20))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.1 * rng.normal(size=rows)
    forest = RandomForestRegressor(n_estimators=trees, random_state=0, n_jobs=-1).fit(X, y)
    with tempfile.TemporaryDirectory() as directory:
        ours, theirs = Path(directory) / "forest.lucid", Path(directory) / "forest.joblib"
        save_ours, save_theirs = _medians([lambda: lucidml.save(forest, ours), lambda: joblib.dump(forest, theirs)])
        load_ours, load_theirs = _medians([lambda: lucidml.load(ours), lambda: joblib.load(theirs)])
        assert np.array_equal(lucidml.load(ours).predict(X[:1000]), forest.predict(X[:1000]))
        size_ours, size_theirs = ours.stat().st_size, theirs.stat().st_size
    raw = raw_array_bytes(forest)
    mib = 2**20
    return "\n".join([
        f"RandomForestRegressor({trees} trees) fitted on {rows:,} × 20; median of 7, taking turns; "
        f"raw bytes of its arrays: {raw / mib:.1f} MiB.",
        "",
        "| | lucidml .lucid | joblib | ratio |",
        "|---|---|---|---|",
        f"| save s | {save_ours:.3f} | {save_theirs:.3f} | {save_ours / save_theirs:.2f} |",
        f"| load s | {load_ours:.3f} | {load_theirs:.3f} | {load_ours / load_theirs:.2f} |",
        f"| file MiB | {size_ours / mib:.2f} | {size_theirs / mib:.2f} | {size_ours / size_theirs:.2f} |",
        f"| file ÷ raw array bytes | {size_ours / raw:.3f} | {size_theirs / raw:.3f} | |",
    ])


def main(argv=None):
    arguments = [(["--rows"], {"type": int, "default": 37_500}), (["--trees"], {"type": int, "default": 100})]
    return table_main(argv, "python -m benchmarks.model_files", __doc__, "model-files-table", arguments,
                      lambda args: table(args.rows, args.trees))


if __name__ == "__main__":
    raise SystemExit(main())
