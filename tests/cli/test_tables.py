"""How the ``lucidml`` command reads a user's table, and what it refuses: the ways a file can
be misread silently (a trailing delimiter, a stray "?" in a column of numbers, the other decimal
mark, a repeated column name, a short row) each give one clear line or the right table.

The reader is tested in-process (``read_table``); the commands that depend on it, as a user runs
them, in a subprocess."""

import gzip

import numpy as np
import pandas as pd
import pytest

from lucidml.cli._table import TableError, booleans_as_numbers, read_table

from .test_model_commands import MODEL, _one_line_error, lucid


def _table(tmp_path, text, name="t.csv", **options):
    path = tmp_path / name
    path.write_text(text)
    return read_table(path, **options)


def _numbers(n=30):
    return "".join(f"{i},{i % 2}\n" for i in range(n))


def test_a_trailing_delimiter_on_every_row_shifts_nothing(tmp_path):
    for text in ("a,b,c\n1,2,3,\n4,5,6,\n", "a;b;c\n1;2;3;\n4;5;6;\n", "a,b,c,\n1,2,3,\n4,5,6,\n"):
        frame = _table(tmp_path, text)
        assert list(frame.columns) == ["a", "b", "c"]
        np.testing.assert_array_equal(frame.to_numpy(), [[1, 2, 3], [4, 5, 6]])


@pytest.mark.parametrize("text, fragment", [
    ("a,b,c\n1,2,3\n4,5\n", "line 3 has 2 field(s), the header 3"),
    ("a,b,c\n1,2,3\n4,5,6,7\n", "ragged row"),
    ("a,a,b\n1,2,3\n", "column names appear twice: a"),
    ("a,b\n" + _numbers() + "?,1\n", "column 'a' holds numbers but also 1 cell(s) that are not (like '?'); "
                                     "pass --na-values '?' if they mean missing"),
    ("x1,x2\n" + "".join(f'"{i}",{i / 7:.3f},{i % 3}\n' for i in range(1, 20)),  # R's write.table: row names
     "line 2 has 3 fields, the header 2: a column without a name"),
    ("a;b\n" + "".join(f"{i};{i % 3},5\n" if i % 5 else f"{i};{i}\n" for i in range(30)),
     "column 'b' holds numbers with a decimal comma (like '1,5'"),  # whole numbers without a comma, as Excel writes
    ('a,b\n"1,060",1\n' + _numbers(), "pass --decimal , to read them as numbers (or --thousands , if"),
    ('a,b\n"1,060,000",1\n' + _numbers(), "column 'a' holds numbers with thousands separators"),
])
def test_tables_that_would_be_misread_are_refused(tmp_path, text, fragment):
    with pytest.raises(TableError, match=None) as error:
        _table(tmp_path, text)
    assert fragment in str(error.value)


def test_stray_cells_are_found_whatever_the_marks_the_table_is_read_with(tmp_path):
    decimal_commas = "a;b\n" + "".join(f"{i},5;{i % 2}\n" for i in range(30)) + "?;1\n"
    with pytest.raises(TableError, match="column 'a' holds numbers but also 1 cell.*'\\?'"):
        _table(tmp_path, decimal_commas, decimal=",")
    grouped = 'a,b\n' + "".join(f'"{i},001,000",{i % 2}\n' for i in range(1, 30)) + "?,1\n"
    with pytest.raises(TableError, match="column 'a' holds numbers but also 1 cell.*'\\?'"):
        _table(tmp_path, grouped, thousands=",")
    with pytest.raises(TableError, match="or --categorical a if the column holds categories"):
        _table(tmp_path, "a,b\n" + _numbers() + "?,1\n", categorical_option=True)
    # The cell as the message shows it is the cell --na-values matches, spaces around it or not.
    frame = _table(tmp_path, "a,b\n" + _numbers() + " ? ,1\n", na_values=["?"])
    assert np.isnan(frame["a"].iloc[-1])


@pytest.mark.parametrize("text", [
    "a,b,c,\n1,2,3\n4,5,6\n",  # a trailing delimiter on the header only
    "\ufeffa,b,c\n1,2,3\n4,5,6\n",  # Excel's byte-order mark
    "\na,b,c\n1,2,3\n4,5,6\n",  # a blank first line
    'a, b, c\n1, "x\ny", 3\n4, "z",\n',  # spaces after the delimiters, a quoted line break, an empty last cell
])
def test_tables_read_as_pandas_reads_them(tmp_path, text):
    frame = _table(tmp_path, text)
    assert list(frame.columns) == ["a", "b", "c"] and len(frame) == 2


def test_the_header_pandas_reads_is_the_one_checked(tmp_path):
    with pytest.raises(TableError, match="column names appear twice: a"):
        _table(tmp_path, "\ufeffa,a,b\n1,2,3\n")
    frame = _table(tmp_path, "\ufeffcode,x\n01,1\n2,2\n", text_columns=["code"])
    assert frame["code"].tolist() == ["01", "2"]
    with pytest.raises(TableError, match="--categorical names no column 'cod'"):
        _table(tmp_path, "code,x\n01,1\n", text_columns=["cod"], categorical_option=True)
    with pytest.raises(TableError, match="a delimiter is one character"):
        _table(tmp_path, "a::b\n1::2\n", sep="::")
    assert list(_table(tmp_path, "a\tb\n1\t2\n", sep="\\t").columns) == ["a", "b"]


def test_the_other_decimal_mark_is_refused_both_ways(tmp_path):
    with pytest.raises(TableError, match="decimal point .* but --decimal , was given"):
        _table(tmp_path, "a;b\n" + "".join(f"{i};{i % 3}.5\n" for i in range(30)), decimal=",")
    frame = _table(tmp_path, "a;b\n" + "".join(f"{i};{i % 3},5\n" for i in range(30)), decimal=",")
    assert frame["b"].dtype == np.float64 and frame["b"].iloc[1] == 1.5


def test_the_options_that_read_such_columns(tmp_path):
    text = "a,b\n" + _numbers() + "?,1\n"
    frame = _table(tmp_path, text, na_values=["?"])
    assert frame["a"].dtype == np.float64 and np.isnan(frame["a"].iloc[-1])
    frame = _table(tmp_path, text, text_columns=["a"])  # categories: read as written
    assert frame["a"].tolist()[:2] == ["0", "1"] and frame["a"].iloc[-1] == "?"
    frame = _table(tmp_path, 'a,b\n"1,060,000",1\n' + _numbers(), thousands=",")
    assert frame["a"].iloc[0] == 1_060_000


def test_a_column_of_categories_that_look_like_numbers_stays_categories(tmp_path):
    frame = _table(tmp_path, "a,b\n1,x\n2,y\n,z\nunknown,w\n")  # 2 numbers of 3: not a column of numbers
    assert frame["a"].tolist()[3] == "unknown"


def test_a_boolean_column_with_a_gap_is_numeric_like_one_without(tmp_path):
    with_gap = booleans_as_numbers(_table(tmp_path, "a,b\nTrue,1\n,2\nFalse,3\n"))
    assert with_gap["a"].dtype == np.float64 and with_gap["a"].iloc[0] == 1.0 and np.isnan(with_gap["a"].iloc[1])
    assert booleans_as_numbers(_table(tmp_path, "a,b\nTrue,1\nFalse,3\n"))["a"].dtype == bool


def test_parquet_and_gzip_are_known_by_their_bytes(tmp_path):
    pd.DataFrame({"a": [1, 2], "b": [3.0, 4.0]}).to_parquet(tmp_path / "really_parquet.csv")
    assert read_table(tmp_path / "really_parquet.csv")["b"].tolist() == [3.0, 4.0]
    (tmp_path / "packed.csv").write_bytes(gzip.compress(b"a,b\n1,2\n3,4\n"))
    assert read_table(tmp_path / "packed.csv")["a"].tolist() == [1, 3]
    with pytest.raises(TableError, match="a folder, not a file"):
        read_table(tmp_path)


def test_predictions_of_a_table_with_trailing_delimiters_are_those_of_the_clean_table(tmp_path):
    from sklearn.datasets import load_diabetes

    frame = load_diabetes(as_frame=True).frame
    frame.to_csv(tmp_path / "train.csv", index=False)
    features = frame.drop(columns="target").round(6)
    features.to_csv(tmp_path / "clean.csv", index=False)
    lines = (tmp_path / "clean.csv").read_text().splitlines()
    (tmp_path / "trailing.csv").write_text("\n".join([lines[0]] + [line + "," for line in lines[1:]]) + "\n")
    assert lucid("fit", tmp_path / "train.csv", "--target", "target", "--model", "Ridge", "-o", tmp_path / "r.lucid",
                 "--quiet").returncode == 0
    for name in ("clean", "trailing"):
        done = lucid("predict", tmp_path / "r.lucid", tmp_path / f"{name}.csv", "-o", tmp_path / f"{name}.out")
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "clean.out").read_text() == (tmp_path / "trailing.out").read_text()


def test_category_codes_written_as_other_numbers_are_the_same_categories(tmp_path):
    rng = np.random.default_rng(0)
    grade = rng.choice([1, 2, 3], 120)
    codes = grade.astype(object)
    codes[:4] = "unknown"
    y = np.array(["a", "b", "c"])[grade - 1]
    pd.DataFrame({"grade": codes, "x": rng.normal(size=120), "y": y}).to_csv(tmp_path / "train.csv", index=False)
    # As a user's tool may write them: floats, with a gap; and one code never seen.
    written = grade.astype(float)
    written[0] = np.nan
    written[1] = 7.0
    pd.DataFrame({"grade": written, "x": 0.0}).to_csv(tmp_path / "new.csv", index=False)
    _one_line_error(lucid("fit", tmp_path / "train.csv", "--target", "y", "-o", tmp_path / "g.lucid"), 1,
                    "column 'grade' holds numbers but also 4 cell(s)", "--categorical grade")
    assert lucid("fit", tmp_path / "train.csv", "--target", "y", "--categorical", "grade", "--model", MODEL,
                 "-o", tmp_path / "g.lucid", "--quiet").returncode == 0
    done = lucid("predict", tmp_path / "g.lucid", tmp_path / "new.csv", "-o", tmp_path / "p.csv")
    assert done.returncode == 0, done.stderr
    assert "column 'grade': 1 row(s) hold a category the model never saw ('7.0')" in done.stderr
    predicted = pd.read_csv(tmp_path / "p.csv")["prediction"].to_numpy()
    np.testing.assert_array_equal(predicted[2:], y[2:])  # "2.0" is the category "2"


def test_a_model_file_never_replaces_the_table_and_a_bad_path_fails_before_the_fit(tmp_path):
    from sklearn.datasets import load_iris

    load_iris(as_frame=True).frame.to_csv(tmp_path / "iris.csv", index=False)
    before = (tmp_path / "iris.csv").read_bytes()
    _one_line_error(lucid("fit", tmp_path / "iris.csv", "--target", "target", "-o", tmp_path / "iris.csv"), 2,
                    "that is the file being read")
    assert (tmp_path / "iris.csv").read_bytes() == before
    _one_line_error(lucid("fit", tmp_path / "iris.csv", "--target", "target", "-o", tmp_path / "no" / "m.lucid"), 2,
                    "no folder")
    _one_line_error(lucid("fit", tmp_path / "iris.csv", "--target", "target", "-o", tmp_path), 2,
                    "a folder, not a file name")
    _one_line_error(lucid("compare", "iris", "--report", tmp_path / "no" / "r.html"), 2, "--report", "no folder")
    _one_line_error(lucid("fit", tmp_path / "iris.csv", "--target", "target", "-o", "newdir/"), 2,
                    "a folder, not a file name")


def test_evaluate_needs_a_target_and_names_a_class_the_model_never_saw(tmp_path):
    from sklearn.datasets import load_iris

    frame = load_iris(as_frame=True).frame
    frame["species"] = np.array(["setosa", "versicolor", "virginica"])[frame.pop("target")]
    frame.to_csv(tmp_path / "iris.csv", index=False)
    frame.loc[3, "species"] = "unicorn"
    frame.to_csv(tmp_path / "odd.csv", index=False)
    assert lucid("fit", tmp_path / "iris.csv", "--target", "species", "--model", MODEL, "-o", tmp_path / "m.lucid",
                 "--quiet").returncode == 0
    _one_line_error(lucid("evaluate", tmp_path / "m.lucid", tmp_path / "iris.csv"), 2, "evaluate needs --target")
    done = lucid("evaluate", tmp_path / "m.lucid", tmp_path / "odd.csv", "--target", "species")
    assert done.returncode == 0, done.stderr
    assert "1 row(s) have a class the model never saw ('unicorn')" in done.stderr
    assert "accuracy" in done.stdout and "log loss" not in done.stdout


@pytest.mark.parametrize("args, fragment", [
    (["--task", "regression"], "the target 'species' holds text (like 'setosa'); a regression needs numbers"),
    (["--seed", "-1"], "--seed: must be between 0 and"),
])
def test_target_and_seed_mistakes(tmp_path, args, fragment):
    from sklearn.datasets import load_iris

    frame = load_iris(as_frame=True).frame
    frame["species"] = np.array(["setosa", "versicolor", "virginica"])[frame.pop("target")]
    frame.to_csv(tmp_path / "iris.csv", index=False)
    done = lucid("fit", tmp_path / "iris.csv", "--target", "species", *args, cwd=tmp_path)
    _one_line_error(done, 1 if "--task" in args else 2, fragment)


def test_compare_tells_a_bundled_name_from_a_file(tmp_path):
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame.iloc[::2]
    frame.to_csv(tmp_path / "wine", index=False)  # a file named like the bundled set, with a target
    done = lucid("compare", "wine", "--target", "target", "--models", "GaussianNB", "--runs", "1", cwd=tmp_path)
    assert done.returncode == 0 and "wine: 89 samples" in done.stdout, done.stderr
    done = lucid("compare", "wine", "--models", "GaussianNB", "--runs", "1", cwd=tmp_path)
    assert done.returncode == 0 and "wine: 178 samples" in done.stdout and "for the file of that name" in done.stderr
    (tmp_path / "folder").mkdir()
    _one_line_error(lucid("compare", "folder", "--target", "y", cwd=tmp_path), 2, "a folder, not a table file")
    _one_line_error(lucid("compare", "iris", "--target", "species", cwd=tmp_path), 2,
                    "--target is for a table file", "./iris")
    _one_line_error(lucid("compare", "iris", "--models", ",", cwd=tmp_path), 2, "names no model")


def test_class_labels_have_one_type():
    from lucidml.cli.fit import labels

    assert labels(np.array([1.0, 2.0, 1.0])).tolist() == [1, 2, 1]
    assert labels(np.array([1.5, 2.0])).tolist() == ["1.5", "2.0"]  # scikit-learn refuses fractional labels
    assert labels(np.array(["a", 1], dtype=object)).tolist() == ["a", "1"]


def test_a_confusion_matrix_of_many_classes_is_left_out():
    from lucidml.cli.evaluate import MAX_MATRIX_CLASSES, format_metrics

    few = np.arange(3)
    text = format_metrics({"accuracy": 0.5, "confusion matrix": (few, np.eye(3, dtype=int))})
    assert "rows: true, columns: predicted" in text and len(text.splitlines()) == 6
    many = np.arange(MAX_MATRIX_CLASSES + 1)
    text = format_metrics({"confusion matrix": (many, np.eye(len(many), dtype=int))})
    assert text == f"confusion matrix     left out: {MAX_MATRIX_CLASSES + 1} classes"


def test_text_cells_lose_their_trailing_spaces_as_the_names_do(tmp_path):
    """"red " and "red" are one category and "yes " and "yes" one class, at fit and at predict
    alike (skipinitialspace strips only the leading spaces); numbers read as before."""
    frame = _table(tmp_path, "a , color , y\n1 ,red ,yes \n2, blue,no\n3,red,yes\n")
    assert list(frame.columns) == ["a", "color", "y"]
    assert frame["color"].tolist() == ["red", "blue", "red"] and frame["y"].tolist() == ["yes", "no", "yes"]
    assert frame["a"].tolist() == [1, 2, 3]
    assert pd.isna(_table(tmp_path, "a,b\n1,x \n2,\n")["b"][1])
