"""What ``lucidml fit`` adds to a model's own fit: the command beside a plain script, each in a
fresh process on the same numeric CSV, with a warm Numba cache.

``python -m benchmarks.cli_fit [--rows 20000] [--features 20] [--model RandomForestClassifier]``.
The script reads the CSV with NumPy and fits the same model with the same seed; the command
also reads the table with pandas, builds its preprocessing, fits (``--test-size 0``) and saves
the ``.lucid`` file. Median of 3 runs each, taking turns; the first run of each warms the cache
and is not counted.
"""

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ._report import table_main

SCRIPT = """
import sys
import numpy as np
from lucidml.registry import get_entry
data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
cls = get_entry(sys.argv[2]).load()
model = cls(random_state=0) if "random_state" in cls().get_params() else cls()
model.fit(data[:, :-1], data[:, -1].astype(int))
"""


def _seconds(command, cwd):
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def table(rows, features, model, repeats=3):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, features))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "numbers.csv"
        header = ",".join([f"x{j}" for j in range(features)] + ["label"])
        np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.6g")
        script = [sys.executable, "-c", SCRIPT, str(path), model]
        command = [sys.executable, "-m", "lucidml", "fit", str(path), "--target", "label", "--model", model,
                   "--test-size", "0", "-o", str(Path(directory) / "model.lucid"), "--quiet"]
        times = {"script": [], "command": []}
        for run in range(repeats + 1):
            for name, argv in (("script", script), ("command", command)):
                seconds = _seconds(argv, directory)
                if run:
                    times[name].append(seconds)
    script_s, command_s = (statistics.median(times[k]) for k in ("script", "command"))
    return "\n".join([
        f"{model} on a numeric CSV of {rows:,} × {features}, fresh processes, warm cache, median of {repeats}:",
        "",
        "| | seconds |",
        "|---|---|",
        f"| a script: np.loadtxt + fit | {script_s:.2f} |",
        f"| lucidml fit --test-size 0 (read, prepare, fit, save) | {command_s:.2f} |",
        f"| added by the command | {command_s - script_s:.2f} |",
    ])


def main(argv=None):
    arguments = [(["--rows"], {"type": int, "default": 20_000}), (["--features"], {"type": int, "default": 20}),
                 (["--model"], {"default": "RandomForestClassifier"})]
    return table_main(argv, "python -m benchmarks.cli_fit", __doc__, "cli-fit-table", arguments,
                      lambda args: table(args.rows, args.features, args.model))


if __name__ == "__main__":
    raise SystemExit(main())
