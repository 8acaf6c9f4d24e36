"""``lucidml compare``: the table, the JSON, the notes' protocol, and bad usage."""

import json
import os
import subprocess
import sys

import pytest

from lucidml import all_estimators
from lucidml.cli import main
from lucidml.cli.compare import compare, select_models
from lucidml.datasets import load_dataset
from lucidml.registry import EstimatorEntry


def test_compare_iris_prints_both_libraries(capsys, tmp_path):
    out_json = tmp_path / "result.json"
    assert main(["compare", "--runs", "3", "--json", str(out_json)]) == 0
    captured = capsys.readouterr()
    table = captured.out
    assert "iris: 150 samples, 4 features, classification; 3 splits" in table
    row = next(line for line in table.splitlines() if line.startswith("| GaussianNB"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cells) == 6 and cells[1].count("±") == 1 and cells[3].count("±") == 1
    assert float(cells[5]) > 0  # the time ratio is filled in
    assert captured.err == ""  # the progress bar shows on a terminal only
    result = json.loads(out_json.read_text())
    assert result["metric"] == "accuracy" and result["runs"] == 3
    models = {m["model"]: m for m in result["models"]}
    assert set(models) == {name for name, _ in all_estimators("classifier")}
    model = models["GaussianNB"]
    assert model["sklearn_result"]["mean"] == pytest.approx(model["mean"])


def test_fifty_runs_reproduce_the_notes_naive_bayes_row():
    # Seed 002 §1.4 prints "iris.csv: Naive-Bayes: Acc.(mean,std) = (95.11,3.20)%" for this protocol.
    result = compare(load_dataset("iris"), select_models("classification", ["GaussianNB"]), runs=50)
    (row,) = result["models"]
    assert round(row["mean"], 2) == 95.11 and round(row["std"], 2) == 3.20
    assert row["sklearn_result"]["mean"] == pytest.approx(row["mean"])


def test_regression_data_set_compares_regressors(capsys):
    assert main(["compare", "diabetes", "--runs", "2", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "R² (mean ± std)" in out and "R² %" not in out and "| LinearRegression" in out and "GaussianNB" not in out
    row = next(line for line in out.splitlines() if line.startswith("| LinearRegression"))
    assert 0.2 < float(row.split("|")[2].split("±")[0]) < 0.7  # R² as itself, not in percent


def test_csv_file_with_target_column(capsys, tmp_path):
    path = tmp_path / "points.csv"
    rows = [f"{i % 7},{(i * 3) % 11},{'a' if i % 2 else 'b'}" for i in range(40)]
    path.write_text("u,v,kind\n" + "\n".join(rows) + "\n")
    assert main(["compare", str(path), "--target", "kind", "--runs", "2"]) == 0
    assert "| GaussianNB" in capsys.readouterr().out


def test_a_failing_model_is_reported_in_its_row():
    broken = EstimatorEntry("sklearn.dummy.DummyClassifier", kind="classifier", params={"strategy": "nonsense"})
    good = select_models("classification", ["GaussianNB"])[0]
    result = compare(load_dataset("iris"), [broken, good], runs=2)
    failed, fine = result["models"]
    assert "InvalidParameterError" in failed["error"] and failed["ratio"] is None
    assert fine["error"] is None and fine["mean"] > 80


@pytest.mark.parametrize(
    "argv, message",
    [
        (["compare", "nosuch"], "unknown data set 'nosuch'"),
        (["compare", "iris", "--models", "LinearRegression"], "is a regressor"),
        (["compare", "iris", "--models", "NoSuchModel"], "no lucidml estimator named"),
        (["compare", "missing.csv", "--target", "y"], "no such file"),
    ],
)
def test_bad_usage_prints_one_line_and_exits_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("option", [["--runs", "0"], ["--train-size", "1.5"], ["--task", "clustering"]])
def test_bad_options_exit_2(option):
    with pytest.raises(SystemExit) as info:
        main(["compare", *option])
    assert info.value.code == 2


def test_console_script_runs_in_a_fresh_process():
    done = subprocess.run([sys.executable, "-m", "lucidml", "compare", "nosuch"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "lucidml compare: error: unknown data set 'nosuch': use one of breast_cancer, diabetes, digits, iris, "
        "wine, blobs, circles, classification, counts, documents, images, moons, multiclass, regression, "
        "word_counts, or the path of a CSV file"
    ]
    listing = subprocess.run([sys.executable, "-m", "lucidml", "list"], capture_output=True, text=True, check=True)
    line = next(line for line in listing.stdout.splitlines() if line.startswith("GaussianNB "))
    assert line.split()[:3] == ["GaussianNB", "classifier", "GaussianNB"]


def test_rows_timed_before_compilation_are_marked(tmp_path):
    """A fresh machine runs a tree's small first fits interpreted; compare says so instead of
    presenting those times as the compiled code's."""
    command = [sys.executable, "-m", "lucidml", "compare", "--models", "DecisionTreeClassifier", "--runs", "2"]
    fresh = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "LUCIDML_KERNEL_TIER": "auto"}
    table = subprocess.run(command, env=fresh, capture_output=True, text=True, check=True).stdout
    row = next(line for line in table.splitlines() if line.startswith("| DecisionTreeClassifier"))
    assert "†" in row and "lucidml warmup" in table
    compiled = {**fresh, "LUCIDML_KERNEL_TIER": "compiled"}
    table = subprocess.run(command, env=compiled, capture_output=True, text=True, check=True).stdout
    assert "†" not in table


def _table_file(path, n=120, seed=0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n) * 1000,
                          "colour": rng.choice(["red", "green", "blue"], n)})
    frame.loc[::9, "a"] = np.nan
    frame.loc[::11, "colour"] = np.nan
    frame["label"] = np.where(frame["b"] / 1000 + (frame["colour"] == "red") > 0.3, "yes", "no")
    frame.to_csv(path, index=False)
    return path


def test_compare_prepares_a_table_with_gaps_and_text_for_both_sides(tmp_path):
    path = _table_file(tmp_path / "t.csv")
    done = subprocess.run([sys.executable, "-m", "lucidml", "compare", str(path), "--target", "label", "--runs", "2",
                           "--models", "SVC,GaussianNB,Adaline", "--format", "json", "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    for row in result["models"]:
        assert row["error"] is None and row["mean"] > 70, row  # scaled features: SVC and Adaline learn
        assert row["sklearn_result"]["mean"] == pytest.approx(row["mean"])


def test_cross_validation_and_a_plain_table(capsys):
    assert main(["compare", "iris", "--cv", "5", "--models", "GaussianNB", "--format", "table", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "5-fold cross-validation" in out and "|" not in out
    assert out.splitlines()[3].startswith("GaussianNB")


def test_a_failing_model_keeps_the_table_well_formed():
    from lucidml.cli import format_table

    result = compare(load_dataset("iris"), [EstimatorEntry("sklearn.dummy.DummyClassifier", kind="classifier",
                                                           params={"strategy": "nonsense"})], runs=2)
    result["models"][0]["error"] = "ValueError: first line | with a pipe\nsecond line\n" + "x" * 500
    lines = format_table(result).splitlines()
    row = next(line for line in lines if line.startswith("| DummyClassifier"))
    assert row.count("|") == 7 and len(row) < 200 and "second line" not in row


def test_models_that_cannot_take_so_many_features_are_skipped_at_once():
    import numpy as np

    from lucidml.datasets import Dataset

    rng = np.random.default_rng(0)
    data = Dataset("wide", rng.normal(size=(30, 5000)), np.arange(30) % 2, "classification")
    result = compare(data, select_models("classification", ["CNNClassifier"]), runs=1)
    assert result["models"][0]["error"].startswith("skipped: 5,000 features")


def test_report_is_one_html_file_with_its_charts(tmp_path):
    report = tmp_path / "report.html"
    assert main(["compare", "iris", "--runs", "2", "--models", "GaussianNB,SVC", "--report", str(report), "--quiet"]) == 0
    page = report.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("data:image/png;base64,") == 2
    assert "confusion matrix" in page and "GaussianNB" in page


def test_the_progress_bar_draws_on_a_terminal_only():
    import io

    from lucidml.cli._progress import progress_bar as _progress_bar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen, pipe = Terminal(), io.StringIO()
    for stream in (screen, pipe):
        show = _progress_bar(stream)
        show(0, 2, "GaussianNB")
        show(2, 2, "done")
    assert "GaussianNB" in screen.getvalue() and screen.getvalue().endswith("\n") and pipe.getvalue() == ""
    quiet = Terminal()
    _progress_bar(quiet, quiet=True)(0, 1, "x")
    assert quiet.getvalue() == ""


def test_a_long_step_ticks_on_a_terminal_and_clears_its_line():
    import io
    import time

    from lucidml.cli._progress import working

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    with working(screen, "fitting SVC", delay=0.0):
        time.sleep(1.2)
    text = screen.getvalue()
    assert "fitting SVC … " in text and text.endswith("\r")
    pipe = io.StringIO()
    with working(pipe, "fitting SVC", delay=0.0):
        time.sleep(0.6)
    assert pipe.getvalue() == ""


def test_a_sparse_data_set_stays_sparse_and_dense_only_models_are_skipped(capsys):
    """The bundled ``documents`` set is a CSR matrix: the sparse-capable models run on it as it is,
    the dense-only ones are listed as skipped."""
    assert main(["compare", "documents", "--runs", "2", "--models", "LogisticRegression,MultinomialNB,GaussianNB",
                 "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    models = {m["model"]: m for m in result["models"]}
    assert result["n_samples"] == 1000 and result["n_features"] == 1000
    for name in ("LogisticRegression", "MultinomialNB"):
        assert models[name]["error"] is None and models[name]["mean"] > 90
        assert models[name]["sklearn_result"]["mean"] == pytest.approx(models[name]["mean"], abs=0.5)
    assert models["GaussianNB"]["error"] == "skipped: it takes dense data only, and this data set is sparse"


def test_the_hard_vote_row_is_the_engines_vote(capsys, monkeypatch):
    """compare runs lucidml.model_selection.compare_models (one engine, not a copy of its loop); its
    vote row is the majority of the lucidml models, beside the vote of their counterparts."""
    import numpy as np

    import lucidml.cli.compare
    from lucidml.model_selection import compare_models
    from lucidml.naive_bayes import GaussianNB

    calls = []

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return compare_models(*args, **kwargs)

    monkeypatch.setattr(lucidml.cli.compare, "compare_models", spy)
    assert main(["compare", "wine", "--runs", "4", "--models", "GaussianNB,DecisionTreeClassifier", "--format", "json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(calls) == 1 and calls[0]["warm_up"] and calls[0]["scoring"] == "accuracy"
    vote = result["hard_vote"]
    assert vote["members"] == ["GaussianNB", "DecisionTreeClassifier"]
    assert vote["sklearn_result"]["members"] == ["GaussianNB", "DecisionTreeClassifier"]
    # both models are scale-free: the same vote on the raw wine table, by the engine directly
    data = load_dataset("wine")
    direct = compare_models({"nb": GaussianNB(), "tree": select_models("classification",
                                                                       ["DecisionTreeClassifier"])[0].make()},
                            np.asarray(data.X), data.y, n_splits=4, train_size=0.7)
    assert vote["mean"] == pytest.approx(100 * direct.mean["hard vote"])
    assert vote["std"] == pytest.approx(100 * direct.std["hard vote"])
    assert result["models"][0]["mean"] == pytest.approx(100 * direct.mean["nb"])


def test_the_table_ends_with_the_vote_for_classification_only(capsys):
    assert main(["compare", "iris", "--runs", "2", "--models", "GaussianNB,KNeighborsClassifier", "--quiet"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    cells = [c.strip() for c in last.strip("|").split("|")]
    assert cells[0] == "hard vote of 2" and cells[1].count("±") == 1 and cells[3].count("±") == 1
    assert float(cells[5]) > 0
    assert main(["compare", "diabetes", "--runs", "2", "--models", "LinearRegression,Ridge", "--format", "json",
                 "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["hard_vote"] is None
    assert main(["compare", "iris", "--runs", "2", "--models", "GaussianNB", "--format", "json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["hard_vote"] is None
