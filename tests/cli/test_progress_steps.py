"""The long steps of ``lucidml fit``, ``predict`` and ``evaluate`` run under the ticking status
line of ``cli._progress.working`` (shown on a terminal only, and never with ``--quiet``)."""

import io

import pandas as pd
import pytest
from sklearn.datasets import load_iris

from lucidml.cli import main


class Recorder:
    """Stands in for ``working``: records each labelled step and whether it was asked to be quiet."""

    steps = []

    def __init__(self, stream, label, quiet=False, delay=1.0):
        Recorder.steps.append((label, quiet))

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


@pytest.fixture
def recorded(monkeypatch):
    import lucidml.cli.fit
    import lucidml.cli.predict

    Recorder.steps = []
    monkeypatch.setattr(lucidml.cli.fit, "working", Recorder)
    monkeypatch.setattr(lucidml.cli.predict, "working", Recorder)
    return Recorder.steps


def test_fit_predict_and_evaluate_show_their_long_steps(tmp_path, recorded, capsys):
    frame = load_iris(as_frame=True).frame
    frame.to_csv(tmp_path / "iris.csv", index=False)
    model = tmp_path / "iris.lucid"
    assert main(["fit", str(tmp_path / "iris.csv"), "--target", "target", "--model", "DecisionTreeClassifier",
                 "-o", str(model)]) == 0
    assert [label for label, _ in recorded] == ["fitting DecisionTreeClassifier on 120 rows", "measuring on 30 rows"]
    recorded.clear()
    assert main(["evaluate", str(model), str(tmp_path / "iris.csv"), "--target", "target"]) == 0
    assert recorded == [("evaluating DecisionTreeClassifier on 150 rows", False)]
    recorded.clear()
    assert main(["predict", str(model), str(tmp_path / "iris.csv"), "--quiet"]) == 0
    assert recorded == [("predicting 150 rows", True)]
    out = capsys.readouterr().out
    assert len(pd.read_csv(io.StringIO(out[out.rindex("prediction\n"):]))) == 150  # the step still predicts
