"""The documentation site builds with warnings as errors, and every gallery example runs in it.

The build is the one of the README (``python -m sphinx -W --keep-going -b html docs <out>``),
here into a temporary folder. It runs every ``examples/plot_*.py`` (sphinx-gallery), renders
every docstring of the public API (numpydoc) and every page of ``docs/`` (MyST).

The examples check their own results (the numbers the notes print, agreement with SciPy or
scikit-learn) with ``assert`` statements, and the gallery aborts on an example's error, so this
one build is also the examples' test: no other test runs them a second time.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))
GUIDE = sorted((ROOT / "docs" / "guide").glob("*.md"))


def test_docs_build_without_warnings_and_run_every_example(tmp_path):
    html = tmp_path / "html"
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT / "src"))
    # run_stale_examples: run every example even where an earlier build left its output in docs/.
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
               "-D", "sphinx_gallery_conf.run_stale_examples=1",
               "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(html)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"sphinx failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"

    assert len(EXAMPLES) >= 8
    for example in EXAMPLES:
        page = html / "auto_examples" / f"{example.stem}.html"
        assert page.is_file(), f"no gallery page for {example.name}"
        assert f"sphx_glr_{example.stem}_001.png" in page.read_text(encoding="utf-8"), f"{example.name} drew no figure"
        assert (html / "_images" / f"sphx_glr_{example.stem}_001.png").is_file()
    for page in GUIDE:
        assert (html / "guide" / f"{page.stem}.html").is_file()
    for page in (ROOT / "docs").glob("*.md"):
        assert (html / f"{page.stem}.html").is_file()
    # the API reference: one page per subpackage and one per public object, math included
    lasso = (html / "api" / "generated" / "lucidml.linear.Lasso.html").read_text(encoding="utf-8")
    assert "coef_" in lasso and "Examples" in lasso
    assert (html / "api" / "lucidml.rl.html").is_file()


def test_every_subpackage_has_an_api_page():
    """A new subpackage cannot be left out of the API reference (docs/conf.py's API_PACKAGES)."""
    import ast
    import pkgutil

    import lucidml

    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    listed = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  and getattr(node.targets[0], "id", None) == "API_PACKAGES")
    packages = {f"lucidml.{m.name}" for m in pkgutil.iter_modules(lucidml.__path__)
                if m.ispkg and m.name not in ("cli",)}
    assert packages <= set(listed), f"not in docs/conf.py API_PACKAGES: {sorted(packages - set(listed))}"


def test_every_markdown_page_is_in_the_site():
    index = (ROOT / "docs" / "index.rst").read_text()
    for page in (ROOT / "docs").glob("*.md"):
        assert f"   {page.stem}\n" in index, f"docs/{page.name} is not in docs/index.rst's toctree"
