"""``lucidml fit / predict / evaluate / inspect / models``, run as a user runs them: the real
command in a subprocess, on real-looking files."""

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import lucidml
from lucidml.datasets import load as load_data

MODEL = "DecisionTreeClassifier"  # quick to fit: the tests are about the command, not the model


def lucid(*args, stdin=None, cwd=None):
    """Run ``lucidml ARGS`` (as ``python -m lucidml``) and return the finished process."""
    return subprocess.run([sys.executable, "-m", "lucidml", *map(str, args)], capture_output=True, text=stdin is None
                          or isinstance(stdin, str), input=stdin, cwd=cwd, timeout=600)


def _one_line_error(done, status, *fragments):
    assert done.returncode == status, (done.returncode, done.stderr)
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    """Wine with missing values, a text category and text labels; its last rows held apart."""
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame
    rng = np.random.default_rng(0)
    frame["region"] = rng.choice(["north", "south", "east"], len(frame))
    for column in ("alcohol", "magnesium", "region"):
        frame.loc[rng.random(len(frame)) < 0.05, column] = np.nan
    frame["cultivar"] = np.array(["barolo", "grignolino", "barbera"])[frame.pop("target")]
    frame = frame.sample(frac=1.0, random_state=0)
    directory = tmp_path_factory.mktemp("wine")
    frame.iloc[:150].to_csv(directory / "train.csv", index=False)
    frame.iloc[150:].to_csv(directory / "new.csv", index=False)
    return directory


def test_fit_predict_evaluate_on_a_table_with_gaps_and_text(wine):
    model = wine / "wine.lucid"
    done = lucid("fit", wine / "train.csv", "--target", "cultivar", "--model", MODEL, "-o", model)
    assert done.returncode == 0, done.stderr
    assert "accuracy" in done.stdout and "confusion matrix" in done.stdout and f"saved to {model}" in done.stdout
    done = lucid("predict", model, wine / "new.csv", "--proba")
    assert done.returncode == 0, done.stderr
    out = pd.read_csv(io.StringIO(done.stdout))
    assert list(out.columns) == ["prediction"] + [f"probability of {c}" for c in ("barbera", "barolo", "grignolino")]
    assert set(out["prediction"]) <= {"barolo", "grignolino", "barbera"} and len(out) == 28
    assert "ignoring column(s) the model was not fitted on: cultivar" in done.stderr
    # The same predictions as the model loaded in this process.
    from lucidml.cli.predict import features_for

    loaded = lucidml.load(model)
    new = pd.read_csv(wine / "new.csv")
    np.testing.assert_array_equal(out["prediction"], loaded.predict(features_for(loaded, new, "new", print)))
    done = lucid("evaluate", model, wine / "new.csv", "--target", "cultivar")
    assert done.returncode == 0, done.stderr
    for metric in ("accuracy", "balanced accuracy", "macro F1", "ROC AUC", "log loss", "confusion matrix"):
        assert metric in done.stdout
    done = lucid("inspect", model)
    assert done.returncode == 0 and "sklearn.pipeline.Pipeline" in done.stdout and "DecisionTreeClassifier" in done.stdout


def test_integer_labels_come_back_as_integers(tmp_path):
    X, y = load_data("iris")
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(species=y + 1)
    frame.to_csv(tmp_path / "iris.csv", index=False)
    assert lucid("fit", tmp_path / "iris.csv", "--target", "species", "--model", MODEL, "-o", tmp_path / "m.lucid",
                 "--quiet").returncode == 0
    done = lucid("predict", tmp_path / "m.lucid", tmp_path / "iris.csv")
    assert done.stdout.splitlines()[1] in {"1", "2", "3"}


def test_a_regression_target_reports_r2_rmse_mae(tmp_path):
    X, y = load_data("diabetes")
    pd.DataFrame(X).add_prefix("x").assign(progression=y).to_csv(tmp_path / "d.csv", index=False)
    done = lucid("fit", tmp_path / "d.csv", "--target", "progression", "--model", "Ridge", "--param", "alpha=0.5",
                 "-o", tmp_path / "r.lucid")
    assert done.returncode == 0, done.stderr
    assert "R²" in done.stdout and "RMSE" in done.stdout and "MAE" in done.stdout and "%" not in done.stdout
    assert lucidml.load(tmp_path / "r.lucid")[-1].alpha == 0.5


def test_without_a_target_the_rows_are_clustered(tmp_path):
    X, y = load_data("blobs", n_samples=90, noise=0.3, random_state=0)
    pd.DataFrame(X, columns=["u", "v"]).assign(group=y).to_csv(tmp_path / "b.csv", index=False)
    pd.DataFrame(X, columns=["u", "v"]).to_csv(tmp_path / "points.csv", index=False)
    done = lucid("fit", tmp_path / "points.csv", "--param", "n_clusters=3", "-o", tmp_path / "k.lucid")
    assert done.returncode == 0 and "clustering" in done.stdout and "silhouette" in done.stdout, done.stderr
    done = lucid("evaluate", tmp_path / "k.lucid", tmp_path / "b.csv", "--target", "group")
    assert "adjusted Rand index" in done.stdout and float(done.stdout.split("adjusted Rand index")[1].split()[0]) > 0.9


def test_tsv_standard_input_and_parquet(tmp_path, wine):
    frame = pd.read_csv(wine / "train.csv")
    frame.to_csv(tmp_path / "w.tsv", sep="\t", index=False)
    assert lucid("fit", tmp_path / "w.tsv", "--target", "cultivar", "--model", MODEL, "-o", tmp_path / "a.lucid",
                 "--quiet").returncode == 0
    done = lucid("predict", tmp_path / "a.lucid", "-", stdin=(wine / "new.csv").read_text())
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 29, done.stderr
    frame.to_parquet(tmp_path / "w.parquet")
    done = lucid("predict", tmp_path / "a.lucid", tmp_path / "w.parquet", "-o", tmp_path / "p.csv")
    assert done.returncode == 0 and len(pd.read_csv(tmp_path / "p.csv")) == 150, done.stderr


def test_decimal_commas_are_not_guessed(tmp_path):
    rows = [f"{i % 5},{i % 3}5;{'a' if i % 2 else 'b'}" for i in range(30)]
    (tmp_path / "eu.csv").write_text("x;label\n" + "\n".join(rows) + "\n")
    _one_line_error(lucid("fit", tmp_path / "eu.csv", "--target", "label", "-o", tmp_path / "eu.lucid"), 1,
                    "decimal comma", "--decimal ,")
    done = lucid("fit", tmp_path / "eu.csv", "--target", "label", "--decimal", ",", "--model", MODEL,
                 "-o", tmp_path / "eu.lucid")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("content, fragments", [
    (b"", ["the file is empty"]),
    (b"a,b,label\n", ["only a header"]),
    (b"a,b,label\n1,2,x\n1,2,3,4\n3,4,y\n", ["ragged row"]),
    (b"a,b,label\n1,2,\xff\xfe\n", ["not utf-8 text", "--encoding"]),
    (b"a,b,other\n1,2,x\n3,4,y\n", ["no column named 'label'", "a, b, other"]),
    (b"a,b,label\n" + b"1,2,x\n" * 20, ["single class"]),
])
def test_bad_tables_exit_1_with_one_line(tmp_path, content, fragments):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    _one_line_error(lucid("fit", path, "--target", "label", cwd=tmp_path), 1, *fragments)


def test_a_wrong_delimiter_names_the_columns_it_saw(tmp_path, wine):
    _one_line_error(lucid("fit", wine / "train.csv", "--target", "cultivar", "--sep", ";", cwd=tmp_path), 1,
                    "no column named")


def test_ten_thousand_columns(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 10_000))).add_prefix("f").assign(label=rng.integers(0, 2, 40))
    frame.to_csv(tmp_path / "wide.csv", index=False)
    done = lucid("fit", tmp_path / "wide.csv", "--target", "label", "--model", MODEL, "-o", tmp_path / "w.lucid")
    assert done.returncode == 0, done.stderr


def test_predict_names_a_missing_column(tmp_path, wine):
    assert lucid("fit", wine / "train.csv", "--target", "cultivar", "--model", MODEL, "-o", tmp_path / "m.lucid",
                 "--quiet").returncode == 0
    pd.read_csv(wine / "new.csv").drop(columns=["hue"]).to_csv(tmp_path / "no_hue.csv", index=False)
    _one_line_error(lucid("predict", tmp_path / "m.lucid", tmp_path / "no_hue.csv"), 1, "missing column(s)", "hue")
    (tmp_path / "fake.lucid").write_bytes(b"\x80\x04not a model")
    _one_line_error(lucid("predict", tmp_path / "fake.lucid", wine / "new.csv"), 1, "looks like a pickle")


@pytest.mark.parametrize("args, status, fragment", [
    (["--model", "NoSuchModel"], 2, "unknown model 'NoSuchModel'"),
    (["--model", "Ridge"], 2, "Ridge is a regressor"),
    (["--param", "depth=3"], 2, "has no parameter 'depth'"),
    (["--param", "max_depth=-3"], 1, "max_depth"),
    (["--param", "nonsense"], 2, "KEY=VALUE"),
    (["--test-size", "1.5"], 2, "--test-size"),
])
def test_usage_errors_exit_2_and_model_errors_1(wine, tmp_path, args, status, fragment):
    done = lucid("fit", wine / "train.csv", "--target", "cultivar", "--model", MODEL, *args, cwd=tmp_path)
    _one_line_error(done, status, fragment)


def test_debug_shows_the_traceback(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    done = lucid("fit", tmp_path / "empty.csv", "--target", "y", "--debug", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" in done.stderr


@pytest.mark.parametrize("command", ["models", "fit", "predict", "evaluate", "inspect", "compare", "warmup"])
def test_help_is_plain_text_with_an_example(command):
    done = lucid(command, "--help")
    assert done.returncode == 0 and "example:" in done.stdout
    assert "``" not in done.stdout and "§" not in done.stdout and ":func:" not in done.stdout


def test_models_lists_every_model_with_its_task():
    done = lucid("models")
    lines = done.stdout.splitlines()
    assert len(lines) == len(lucidml.all_estimators())
    svc = next(line for line in lines if line.startswith("SVC "))
    assert "classifier" in svc and "SVC" in svc
    assert all(len(line.split()) >= 4 for line in lines)


def test_a_model_is_refused_more_columns_than_it_can_take(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(20, 600))).add_prefix("f").assign(label=rng.integers(0, 2, 20))
    frame.to_csv(tmp_path / "wide.csv", index=False)
    _one_line_error(lucid("fit", tmp_path / "wide.csv", "--target", "label", "--model", "GAMClassifier", cwd=tmp_path),
                    1, "GAMClassifier takes at most 500 feature columns")


def test_a_clusterer_without_predict_is_fitted_on_every_row(tmp_path):
    X, _ = load_data("blobs", n_samples=60, noise=0.3, random_state=0)
    pd.DataFrame(X, columns=["u", "v"]).to_csv(tmp_path / "p.csv", index=False)
    done = lucid("fit", tmp_path / "p.csv", "--model", "DBSCAN", "-o", tmp_path / "d.lucid")
    assert done.returncode == 0 and "silhouette" in done.stdout and "cannot label new rows" in done.stderr
    _one_line_error(lucid("predict", tmp_path / "d.lucid", tmp_path / "p.csv"), 1, "DBSCAN cannot label new rows")


def test_an_unexpected_error_is_still_one_line(monkeypatch, capsys, tmp_path):
    import lucidml.cli.fit as fit
    from lucidml.cli import main

    def broken(args, note):
        raise RuntimeError("something inside\nwith a second line")

    monkeypatch.setattr(fit, "run_fit", broken)
    assert main(["fit", str(tmp_path / "x.csv")]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "lucidml fit: error: RuntimeError: something inside (unexpected: --debug shows where)"
    with pytest.raises(RuntimeError):
        main(["fit", str(tmp_path / "x.csv"), "--debug"])


def test_fit_saves_the_model_before_a_closed_output_can_stop_it(wine, tmp_path):
    """`lucidml fit … | head -1` closes the command's output after one line: the model is saved
    before anything is printed, so the file exists and the command succeeds."""
    model = tmp_path / "piped.lucid"
    done = subprocess.run(f'"{sys.executable}" -m lucidml fit "{wine / "train.csv"}" --target cultivar --model {MODEL} '
                          f'-o "{model}" --quiet | head -1', shell=True, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and model.exists(), done.stderr
    assert lucidml.load(model).predict(pd.read_csv(wine / "new.csv").drop(columns="cultivar")).size > 0


def test_an_id_column_is_left_out_and_a_column_of_many_categories_is_capped(tmp_path):
    """An id column (every value different) was one-hot encoded into as many dense columns as rows
    (8,000 rows: 912 MB): it is left out with a note. A column of 300 categories keeps its 100 most
    common (the rest share one column), and an unseen category counts with the rare ones."""
    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame({"id": [f"cust{i:06d}" for i in range(n)],
                          "city": [f"city{j}" for j in rng.integers(0, 300, n)], "a": rng.normal(size=n)})
    frame["y"] = np.where(frame["a"] + 0.5 * rng.normal(size=n) > 0, "yes", "no")
    frame.to_csv(tmp_path / "ids.csv", index=False)
    frame.drop(columns="y").iloc[:20].assign(city="nowhere").to_csv(tmp_path / "new.csv", index=False)
    done = lucid("fit", tmp_path / "ids.csv", "--target", "y", "--model", MODEL, "-o", tmp_path / "ids.lucid")
    assert done.returncode == 0, done.stderr
    assert "left out 1 text column(s)" in done.stderr and ": id" in done.stderr
    model = lucidml.load(tmp_path / "ids.lucid")
    assert model[0].transform(frame.drop(columns="y").iloc[:5]).shape[1] == 1 + 100
    done = lucid("predict", tmp_path / "ids.lucid", tmp_path / "new.csv")
    assert done.returncode == 0, done.stderr
    assert "count with the rare categories" in done.stderr and len(done.stdout.splitlines()) == 21


def test_an_output_folder_that_cannot_be_written_is_refused_before_the_fit(wine, tmp_path):
    """The check made a file there, where os.access said yes to root on a read-only file system
    (/proc): the fit ran, then failed naming a temporary file. A model whose target has one class
    names it as the user wrote it (not np.str_('…'))."""
    done = lucid("fit", wine / "train.csv", "--target", "cultivar", "--model", MODEL, "-o", "/proc/model.lucid")
    _one_line_error(done, 2, "-o /proc/model.lucid: cannot write in /proc")
    one = pd.read_csv(wine / "train.csv")
    one.assign(cultivar="barolo").to_csv(tmp_path / "one.csv", index=False)
    done = lucid("fit", tmp_path / "one.csv", "--target", "cultivar", "-o", tmp_path / "one.lucid")
    assert done.returncode != 0 and "('barolo')" in done.stderr and "np.str_" not in done.stderr


def test_a_table_without_a_header_row_is_noted(tmp_path):
    """A file of numbers only has its first row read as the column names: said, not silent."""
    rng = np.random.default_rng(0)
    np.savetxt(tmp_path / "numbers.csv", rng.normal(size=(30, 3)), delimiter=",")
    done = lucid("fit", tmp_path / "numbers.csv", "--model", "KMeans", "-o", tmp_path / "k.lucid")
    assert done.returncode == 0, done.stderr
    assert "every column name of" in done.stderr and "give the table a header" in done.stderr
