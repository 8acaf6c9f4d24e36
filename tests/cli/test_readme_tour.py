"""The README's command-line tour runs as written (the comparison on one model, to stay short)."""

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tour_commands():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## A short tour on the command line", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [shlex.split(line.split("#", 1)[0]) for line in block.splitlines() if line.startswith("lucidml ")]


def test_the_command_line_tour_runs(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    commands = _tour_commands()
    assert [c[1] for c in commands] == ["fit", "predict", "evaluate", "inspect", "fit", "compare", "models"]
    for command in commands:
        if command[1] == "compare":
            command = command + ["--models", "GaussianNB"]
        done = subprocess.run([sys.executable, "-m", "lucidml", *command[1:]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, (command, done.stderr)
    assert (tmp_path / "wine.lucid").exists() and (tmp_path / "svc.lucid").exists()
    assert re.search(r"<img alt=", (tmp_path / "wine.html").read_text())
