"""Write a benchmark's table into its marked section of docs/benchmarks.md."""

import re
from pathlib import Path

BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def write_section(marker, text, path=BENCHMARKS_MD):
    """Replace what stands between ``<!-- marker -->`` and ``<!-- /marker -->`` in ``path`` by ``text``."""
    document = path.read_text()
    pattern = re.compile(rf"(<!-- {re.escape(marker)} -->\n).*?(<!-- /{re.escape(marker)} -->)", re.DOTALL)
    if not pattern.search(document):
        raise ValueError(f"{path} has no <!-- {marker} --> … <!-- /{marker} --> section")
    path.write_text(pattern.sub(lambda m: m.group(1) + text.strip("\n") + "\n" + m.group(2), document))
