"""Write a benchmark's table into its marked section of docs/benchmarks.md."""

import argparse
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


def table_main(argv, prog, doc, marker, arguments, make_table):
    """The command line of a benchmark that prints one table: ``arguments`` is a list of
    (flags, add_argument options); ``make_table(args)`` returns the table's text; ``--write``
    also puts it into the ``marker`` section of docs/benchmarks.md."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    for flags, options in arguments:
        parser.add_argument(*flags, **options)
    parser.add_argument("--write", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args(argv)
    text = make_table(args)
    print(text)
    if args.write:
        write_section(marker, text)
    return 0
