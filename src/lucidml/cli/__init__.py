"""The ``lucidml`` command: train, keep and use models on your own tables, and compare them.

Subcommands: ``models``, ``fit``, ``predict``, ``evaluate``, ``inspect``, ``compare``,
``warmup`` (``list`` is the old name of ``models``). Errors are one line on standard error,
without a traceback (``--debug`` shows it): exit status 2 for a usage error (an unknown option,
model or data set name), 1 for data or a model file that cannot serve the request.
"""

import argparse
import json
import sys
import textwrap

from .. import __version__
from ._progress import progress_bar as _progress_bar

__all__ = ["main", "console_main"]

EXAMPLES = {
    "models": "lucidml models --task classification",
    "fit": "lucidml fit patients.csv --target outcome --model SVC --param C=10 -o svc.lucid",
    "predict": "lucidml predict svc.lucid new_patients.csv -o predictions.csv --proba",
    "evaluate": "lucidml evaluate svc.lucid held_out.csv --target outcome",
    "inspect": "lucidml inspect svc.lucid",
    "compare": "lucidml compare wine --runs 20\n  lucidml compare patients.csv --target outcome --models SVC,GaussianNB",
    "warmup": "lucidml warmup --models SVC,KMeans",
}


def _fraction(low_open=True):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not (0.0 <= value < 1.0 if not low_open else 0.0 < value < 1.0):
            raise argparse.ArgumentTypeError(f"must be in {'(0, 1)' if low_open else '[0, 1)'}, got {text}")
        return value

    return parse


def _count(limit):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not 1 <= value <= limit:
            raise argparse.ArgumentTypeError(f"must be between 1 and {limit:,}, got {text}")
        return value

    return parse


def _seed(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2³²−1, got {text}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors in one line that points to --help."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--threads", type=_count(1024), metavar="N", help="threads lucidml may use (default: all cores)")
    common.add_argument("--seed", type=_seed, default=0,
                        help="seed of every random choice, 0 to 2³²−1 (default: 0)")
    common.add_argument("--quiet", action="store_true", help="no progress bar and no notes on standard error")
    common.add_argument("--debug", action="store_true", help="show the traceback of an error")
    table = argparse.ArgumentParser(add_help=False)
    table.add_argument("--sep", help="the delimiter of a text table (default: detected among , ; tab |)")
    table.add_argument("--decimal", default=".", choices=[".", ","], metavar="MARK",
                       help="the decimal mark of numbers: . or , (default: .)")
    table.add_argument("--encoding", default="utf-8", help="the text encoding of the table (default: utf-8)")
    table.add_argument("--na-values", metavar="TEXT", action="append", help="a cell text that means a missing "
                       "value, besides empty cells, NA, NaN, null… (repeatable)")
    table.add_argument("--thousands", metavar="MARK", help="the thousands separator of numbers (default: none)")
    categories = argparse.ArgumentParser(add_help=False)  # what fit and compare read
    categories.add_argument("--categorical", metavar="COLUMN", action="append",
                            help="a column of categories that look like numbers (codes, ids; repeatable)")

    saved = argparse.ArgumentParser(add_help=False)  # what predict and evaluate read
    saved.add_argument("model", help="the .lucid file saved by 'lucidml fit'")
    saved.add_argument("data", help="the table: a file path, or - for standard input")

    parser = _Parser(prog="lucidml", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Run 'lucidml COMMAND --help' for a command's options and an example.")
    parser.add_argument("--version", action="version", version=f"lucidml {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, help, description, parents=(common,)):
        return commands.add_parser(
            name, help=help, parents=list(parents), formatter_class=argparse.RawDescriptionHelpFormatter,
            description=textwrap.fill(description, 90), epilog=f"example:\n  {EXAMPLES[name]}" if name in EXAMPLES else None)

    models = command("models", "the available models, with their task", "The models lucidml offers: name, "
                     "task, the scikit-learn model it is compared with, and what it is, in one line.")
    models.add_argument("--task", choices=["classification", "regression", "clustering", "transformer", "density"])
    command("list", "the old name of 'models'", "The models lucidml offers (see 'lucidml models').")

    fit = command("fit", "train a model on a table and save it",
                  "Read a table (CSV, TSV or Parquet; '-' for standard input), infer each column's type, and fit "
                  "a pipeline of preprocessing (missing values filled, categories one-hot encoded, features "
                  "standardized where the model needs it) and the model, on all rows but a held-out part whose "
                  "metrics are printed. The fitted pipeline is saved as a .lucid file. Without --target, the "
                  "rows are clustered.", parents=(common, table, categories))
    fit.add_argument("data", help="the table: a file path, or - for standard input")
    fit.add_argument("--target", help="the column to predict (none: cluster the rows)")
    fit.add_argument("--task", choices=["classification", "regression"], help="override the inferred task")
    fit.add_argument("--model", help="the model's name (see 'lucidml models'; default: a random forest, or "
                                     "k-means for clustering)")
    fit.add_argument("--param", action="append", metavar="KEY=VALUE", help="a parameter of the model (repeatable)")
    fit.add_argument("--test-size", type=_fraction(low_open=False), default=0.2,
                     help="the fraction of rows held out for the printed metrics (default: 0.2; 0: none)")
    fit.add_argument("-o", "--output", help="where to save the model (default: the table's name with .lucid)")

    predict = command("predict", "predict with a saved model",
                      "Load a model saved by 'lucidml fit', check the table's columns against the ones it was "
                      "fitted on, and write one prediction per row as CSV (to standard output by default).",
                      parents=(common, table, saved))
    predict.add_argument("-o", "--output", help="the CSV file to write (default: standard output)")
    predict.add_argument("--proba", action="store_true", help="add one probability column per class")

    evaluate = command("evaluate", "measure a saved model on a labelled table",
                       "Metrics of a saved model on a table with the true values: accuracy, balanced accuracy, "
                       "macro F1, ROC AUC, log loss and the confusion matrix for a classifier; R², RMSE and MAE "
                       "for a regressor; the silhouette and, given true groups, the adjusted Rand index for "
                       "clustering.", parents=(common, table, saved))
    evaluate.add_argument("--target", help="the column of true values (true groups, for clustering)")

    inspect = command("inspect", "what a saved model file holds",
                      "The manifest of a .lucid file: the model's class and parameters, the lucidml version that "
                      "saved it, and its arrays. Nothing in the file is built or run.")
    inspect.add_argument("model", help="the .lucid file")
    inspect.add_argument("--json", action="store_true", help="print the whole description as JSON")

    cmp = command("compare", "every model on a data set, beside scikit-learn",
                  "Repeated random train/test splits (stratified by class), or K-fold cross-validation: the mean "
                  "and spread of each model's accuracy (R² for regression) and its time per split, beside its "
                  "scikit-learn counterpart on the very same splits and the same prepared data (missing values "
                  "filled, categories one-hot encoded, features standardized where the model needs it); for classification, the last row is the "
                  "models' majority vote (the notes' hard-voting ensemble). With no data set, iris.",
                  parents=(common, table, categories))
    cmp.add_argument("dataset", nargs="?", default="iris",
                     help="a bundled data set's name, or a table (CSV, TSV, Parquet) with --target (default: iris)")
    cmp.add_argument("--target", help="target column of a CSV file")
    cmp.add_argument("--task", choices=["classification", "regression"], help="override the inferred task")
    cmp.add_argument("--models", help="comma-separated model names (default: all of the task's kind)")
    cmp.add_argument("--runs", type=_count(10_000), default=10, help="number of random splits (default: 10)")
    cmp.add_argument("--cv", type=_count(100), metavar="K", help="K-fold cross-validation instead of random splits")
    cmp.add_argument("--train-size", type=_fraction(), default=0.7, help="training fraction (default: 0.7)")
    cmp.add_argument("--format", choices=["markdown", "table", "json"], default="markdown",
                     help="how to print the results (default: markdown)")
    cmp.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")
    cmp.add_argument("--report", metavar="FILE", help="also write an HTML report with charts to FILE (needs matplotlib)")

    warm = command("warmup", "compile and cache every model's kernels now (for images and CI)",
                   "Fit every model (or those named) once on small data with all kernels compiled, so that "
                   "Numba's on-disk cache holds them: later processes start without compiling.")
    warm.add_argument("--models", help="comma-separated model names (default: all)")
    return parser


def format_table(result, markdown=True):
    """The comparison as a Markdown table (or plain aligned text); a failed model's cell is one short line."""
    metric = "accuracy %" if result["metric"] == "accuracy" else "R²"
    protocol = (f"{result['cv']}-fold cross-validation" if result.get("cv") else
                f"{result['runs']} splits, train size {result['train_size']}")
    digits = 2 if result["metric"] == "accuracy" else 4
    header = ["model", f"{metric} (mean ± std)", "s / run", f"scikit-learn {metric}", "scikit-learn s / run",
              "time ratio"]
    rows = []
    vote = result.get("hard_vote")
    for row in result["models"] + ([{**vote, "model": f"hard vote of {len(vote['members'])}"}] if vote else []):
        if row["error"]:
            ours = [_cell(f"error: {row['error']}" if not row["error"].startswith("skipped") else row["error"]), ""]
        else:
            mark = " †" if row.get("interpreted") else ""
            ours = [f"{row['mean']:.{digits}f} ± {row['std']:.{digits}f}", f"{row['seconds_per_run']:.5f}{mark}"]
        theirs = row["sklearn_result"]
        if theirs is None:
            sk = ["(no counterpart)" if row.get("sklearn", "") is None else "", ""]
        elif theirs["error"]:
            sk = [_cell(f"error: {theirs['error']}"), ""]
        else:
            sk = [f"{theirs['mean']:.{digits}f} ± {theirs['std']:.{digits}f}", f"{theirs['seconds_per_run']:.5f}"]
        ratio = f"{row['ratio']:.2f}" if row["ratio"] is not None else ""
        rows.append([row["model"], *ours, *sk, ratio])
    title = (f"{result['dataset']}: {result['n_samples']} samples, {result['n_features']} features, "
             f"{result['task']}; {protocol}, seed {result['seed']}")
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    else:
        widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
        lines = ["  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in [header] + rows]
    lines = [title, ""] + lines
    if any(row.get("interpreted") for row in result["models"]):
        lines += ["", "† timed (partly) as interpreted Python: this machine has not compiled the model's kernels "
                  "yet (small data runs before it pays to compile); after `lucidml warmup`, the rows time the "
                  "compiled code."]
    return "\n".join(lines)


def _cell(text, limit=80):
    """One table cell: the first line, no pipes, at most ``limit`` characters."""
    first = (text.strip().splitlines() or [""])[0].replace("|", "/")
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _run_compare(args, note):
    from ..datasets import Dataset
    from ._output import check_output
    from ._pipeline import CliUsageError, task_of
    from ._table import booleans_as_numbers, column_list, read_table, table_options
    from .compare import compare, select_models
    from .fit import split_target, target_for

    check_output(args.json, "--json", args.dataset)
    check_output(args.report, "--report", args.dataset)
    if _names_a_table(args, note):
        if args.target is None:
            raise CliUsageError(f"{args.dataset}: name the target column with --target")
        frame = read_table(args.dataset, **table_options(args, args.categorical or [], categorical_option=True))
        X, y = split_target(frame, args.target, args.dataset, note)
        X = booleans_as_numbers(X)
        task = task_of(y, args.task)
        data = Dataset(args.dataset, X, target_for(task, y, args.target, args.dataset), task, list(X.columns))
    else:
        from ..datasets import load_dataset

        data = load_dataset(args.dataset, task=args.task)  # names, or says what is wrong
    names = column_list(args.models)
    if names == []:
        raise CliUsageError(f"--models {args.models!r} names no model")
    models = select_models(data.task, names)
    if not models:
        raise CliUsageError(f"no registered model for {data.task}")
    result = compare(data, models, args.runs, args.train_size, args.seed,
                     progress=_progress_bar(sys.stderr, args.quiet), cv=args.cv)
    print(json.dumps(result, indent=2) if args.format == "json" else format_table(result, args.format == "markdown"))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)
    if args.report:
        from .report import write_report

        write_report(args.report, result, data, models, args.seed)


def _names_a_table(args, note):
    """Whether compare's data set is a table file (else a bundled or synthetic set's name). A file
    wins with --target; a name that is also a file here is the bundled set, with a note."""
    import os

    from ..datasets import list_datasets
    from ._pipeline import CliUsageError

    bundled = args.dataset.lower() in list_datasets()
    if os.path.isdir(args.dataset) and not bundled:
        raise CliUsageError(f"{args.dataset}: a folder, not a table file")
    if os.path.isfile(args.dataset) and (args.target is not None or not bundled):
        return True
    if bundled and (args.target is not None or args.categorical is not None):
        option = "--target" if args.target is not None else "--categorical"
        raise CliUsageError(f"{option} is for a table file; the data set {args.dataset!r} has its own target "
                            f"(for a file of that name, pass ./{args.dataset})")
    if bundled and os.path.exists(args.dataset):
        note(f"comparing on the bundled data set {args.dataset!r}; for the file of that name, pass "
             f"./{args.dataset} --target COLUMN")
    return not bundled and os.path.exists(args.dataset)


def _run_models(args):
    from ..registry import entries
    from ._pipeline import KINDS

    chosen = entries(KINDS.get(args.task, args.task)) if getattr(args, "task", None) else entries()
    for entry in chosen:
        summary = (entry.load().__doc__ or "").strip().splitlines()[0].rstrip(".")
        counterpart = entry.sklearn.rpartition(".")[2] if entry.sklearn else "-"
        print(f"{entry.name:<30} {entry.kind:<11} {counterpart:<30} {summary}")


def _run_inspect(args):
    from ..io import inspect

    info = inspect(args.model)
    if info["refused"]:
        print(f"lucidml inspect: warning: lucidml refuses to load this file: it names "
              f"{', '.join(info['refused'][:5])}, which a model file may not hold", file=sys.stderr)
    if args.json:
        print(json.dumps(info, indent=2, default=repr))
        return
    print(f"{info['class']}  (saved by lucidml {info['lucidml_version']}, format {info['format_version']})")
    print(f"{len(info['objects'])} object(s), {len(info['arrays'])} array(s)")
    for name, value in info["params"].items():
        if name == "steps" and isinstance(value, list):  # a pipeline: one line per step
            print("  steps:")
            for step in value:
                print(f"    {step[0]}: {textwrap.shorten(_short(step[1]), 100, placeholder=' …')}")
        else:
            print(f"  {name} = {textwrap.shorten(_short(value), 100, placeholder=' …')}")
    for where, (dtype, shape) in list(info["arrays"].items())[:20]:
        print(f"  {where}: {dtype} {tuple(shape)}")
    if len(info["arrays"]) > 20:
        print(f"  … and {len(info['arrays']) - 20} more arrays (--json lists them all)")


def _short(value, depth=0):
    """A described parameter in brief: a nested estimator as ClassName(its parameters, in brief)."""
    if isinstance(value, dict) and "class" in value:
        name = value["class"].rpartition(".")[2]
        if depth >= 2:
            return f"{name}(…)"
        inner = ", ".join(f"{k}={_short(v, depth + 1)}" for k, v in value.get("params", {}).items()
                          if k in ("steps", "transformers", "estimator") or depth == 0)
        return f"{name}({inner})"
    if isinstance(value, (list, tuple)):
        items = ", ".join(_short(v, depth) for v in value)
        return f"[{items}]" if isinstance(value, list) else f"({items})"
    return repr(value)


def _run_warmup(args):
    from .._warmup import warmup
    from ..registry import get_entry

    names = [n.strip() for n in args.models.split(",") if n.strip()] if args.models else None
    for name in names or ():
        get_entry(name)  # an unknown name is a usage error (KeyError: exit 2), before any work
    done = warmup(names, progress=_progress_bar(sys.stderr, args.quiet))
    print(f"compiled and cached the kernels of {len(done)} model(s)")


def _run(args, note):
    from .fit import run_fit
    from .predict import run_evaluate, run_predict

    runners = {"compare": lambda a: _run_compare(a, note), "models": _run_models, "list": _run_models,
               "inspect": _run_inspect, "warmup": _run_warmup, "fit": lambda a: run_fit(a, note),
               "predict": lambda a: run_predict(a, note),
               "evaluate": lambda a: run_evaluate(a, note)}
    runners[args.command](args)


def main(argv=None):
    """Entry point of the ``lucidml`` console script; returns the exit status."""
    args = _parser().parse_args(argv)  # exits 2 on bad usage
    from .._config import config_context
    from ..datasets import DatasetError
    from ..io import ModelFileError
    from ._pipeline import CliUsageError
    from ._table import TableError
    from .fit import DataError

    def note(message):
        if not args.quiet:
            print(f"lucidml {args.command}: note: {message}", file=sys.stderr)

    try:
        with config_context(n_threads=args.threads):
            _run(args, note)
    except BrokenPipeError:  # the reader of our output left (``| head``): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (CliUsageError, DatasetError, KeyError) as error:
        return _fail(args, error, 2)
    except (TableError, DataError, ModelFileError, ValueError, TypeError, OSError) as error:
        return _fail(args, error, 1)
    except KeyboardInterrupt:
        print(f"lucidml {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - still one line for a person; the traceback with --debug
        if args.debug:
            raise
        print(f"lucidml {args.command}: error: {type(error).__name__}: {_first_line(error)} "
              "(unexpected: --debug shows where)", file=sys.stderr)
        return 1
    return 0


def _first_line(error):
    message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    return (str(message).strip().splitlines() or [type(error).__name__])[0]


def _fail(args, error, status):
    if args.debug:
        raise error
    first = _first_line(error)
    if isinstance(error, OSError) and error.filename:
        first = f"{error.filename}: {error.strerror or first}"
    print(f"lucidml {args.command}: error: {first}", file=sys.stderr)
    return status


def console_main():
    """The console script: exit with :func:`main`'s status."""
    sys.exit(main())
