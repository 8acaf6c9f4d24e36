"""The ``lucidml`` command.

``lucidml compare [DATASET]`` trains and evaluates every registered model on a data set beside
its scikit-learn counterpart; ``lucidml list`` names the models and data sets; ``lucidml
warmup`` compiles and caches the models' kernels ahead of use. Bad usage (an unknown data set
or model, a bad option) prints one line and exits with status 2.
"""

import argparse
import json
import sys

from .. import __version__
from ..datasets import DatasetError, list_datasets, load_dataset
from ..registry import entries
from .compare import compare, select_models

__all__ = ["main", "console_main"]


def _train_size(text):
    value = float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text}")
    return value


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def _parser():
    parser = argparse.ArgumentParser(prog="lucidml", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"lucidml {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    cmp = commands.add_parser(
        "compare",
        help="every model on a data set, beside scikit-learn",
        description="Repeated random train/test splits (seed 002 §1.4; --runs 50 reproduces it): "
        "mean and std of accuracy (R² for regression) and time per run, lucidml beside scikit-learn.",
    )
    cmp.add_argument("dataset", nargs="?", default="iris", help="a data set name or a CSV file (default: iris)")
    cmp.add_argument("--target", help="target column of a CSV file")
    cmp.add_argument("--task", choices=["classification", "regression"], help="override the inferred task")
    cmp.add_argument("--models", help="comma-separated model names (default: all of the task's kind)")
    cmp.add_argument("--runs", type=_positive_int, default=10, help="number of random splits (default: 10)")
    cmp.add_argument("--train-size", type=_train_size, default=0.7, help="training fraction (default: 0.7)")
    cmp.add_argument("--seed", type=int, default=0, help="split i uses random_state seed+i (default: 0)")
    cmp.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")

    commands.add_parser("list", help="the registered models and the data sets")

    warm = commands.add_parser(
        "warmup",
        help="compile and cache every model's kernels now (for images and CI)",
        description="Fit every model (or those named) once on small data with all kernels compiled, so that "
        "Numba's on-disk cache holds them: later processes start without compiling.",
    )
    warm.add_argument("--models", help="comma-separated model names (default: all)")
    return parser


def _progress_bar(stream):
    """A one-line progress bar on a terminal; one line per model otherwise."""
    interactive = stream.isatty()

    def show(done, total, label):
        if interactive:
            width = 30
            filled = width * done // max(total, 1)
            stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label:<30}")
            if done == total:
                stream.write("\n")
        elif done < total:
            stream.write(f"[{done + 1}/{total}] {label}\n")
        stream.flush()

    return show


def format_table(result):
    """The comparison as a Markdown table."""
    metric = "accuracy %" if result["metric"] == "accuracy" else "R² %"
    lines = [
        f"{result['dataset']}: {result['n_samples']} samples, {result['n_features']} features, {result['task']}; "
        f"{result['runs']} splits, train size {result['train_size']}, seed {result['seed']}",
        "",
        f"| model | {metric} (mean ± std) | s / run | scikit-learn {metric} | scikit-learn s / run | time ratio |",
        "|---|---|---|---|---|---|",
    ]
    for row in result["models"]:
        if row["error"]:
            ours = [f"error: {row['error']}", "", ""]
        else:
            mark = " †" if row.get("interpreted") else ""
            ours = [f"{row['mean']:.2f} ± {row['std']:.2f}", f"{row['seconds_per_run']:.5f}{mark}"]
        theirs = row["sklearn_result"]
        if theirs is None:
            sk = ["(no counterpart)", ""]
        elif theirs["error"]:
            sk = [f"error: {theirs['error']}", ""]
        else:
            sk = [f"{theirs['mean']:.2f} ± {theirs['std']:.2f}", f"{theirs['seconds_per_run']:.5f}"]
        ratio = f"{row['ratio']:.2f}" if row["ratio"] is not None else ""
        lines.append("| " + " | ".join([row["model"], *ours[:2], *sk, ratio]) + " |")
    if any(row.get("interpreted") for row in result["models"]):
        lines += ["", "† timed (partly) as interpreted Python: this machine has not compiled the model's kernels "
                  "yet (small data runs before it pays to compile); after `lucidml warmup`, the rows time the "
                  "compiled code."]
    return "\n".join(lines)


def _run_compare(args):
    data = load_dataset(args.dataset, target=args.target, task=args.task)
    names = [n.strip() for n in args.models.split(",") if n.strip()] if args.models else None
    models = select_models(data.task, names)
    if not models:
        raise ValueError(f"no registered model for {data.task}")
    result = compare(data, models, args.runs, args.train_size, args.seed, progress=_progress_bar(sys.stderr))
    print(format_table(result))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)


def _run_list():
    for entry in entries():
        counterpart = entry.sklearn or "(no scikit-learn counterpart)"
        print(f"{entry.kind:<12} {entry.name:<28} {counterpart}")
    print("data sets:", ", ".join(list_datasets()), "or a CSV file (--target COLUMN)")


def _run_warmup(args):
    from .._warmup import warmup

    names = [n.strip() for n in args.models.split(",") if n.strip()] if args.models else None
    done = warmup(names, progress=_progress_bar(sys.stderr))
    print(f"compiled and cached the kernels of {len(done)} model(s)")


def main(argv=None):
    """Entry point of the ``lucidml`` console script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)  # exits 2 on bad usage
    try:
        if args.command == "compare":
            _run_compare(args)
        elif args.command == "warmup":
            _run_warmup(args)
        else:
            _run_list()
    except (DatasetError, ValueError, OSError) as error:
        print(f"lucidml {args.command}: error: {error}", file=sys.stderr)
        return 2
    return 0


def console_main():
    """The console script: exit with :func:`main`'s status."""
    sys.exit(main())
