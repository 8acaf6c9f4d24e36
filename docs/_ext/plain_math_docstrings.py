"""Show lucidml's docstrings, written in plain Unicode math, faithfully in reStructuredText.

The docstrings write formulas as text (``SSE = Σ_k ‖xᵢ − c_k‖²``, ``|x|``, ``coef_``) and set
displayed formulas apart as indented blocks. reStructuredText reads some of that as markup:
``|x|`` is a substitution, ``coef_`` a link target, an indented block a quotation whose lines
run together. Two passes of ``autodoc-process-docstring`` fix that without touching the source:

* before numpydoc, an indented block in the description (above the first section) becomes a
  literal block, so a displayed formula keeps its lines and alignment;
* after numpydoc, ``|`` and a trailing ``_`` in running text are escaped (inline literals,
  roles, literal blocks and doctest lines are left as they are).
"""

import re

_SECTION_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_INLINE = re.compile(r"(``.+?``|:\w+:`[^`]*`|`[^`]*`_{0,2})")
_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?=[\s.,;:)\]}'\"]|$)")


def _indent(line):
    return len(line) - len(line.lstrip())


def literal_displays(app, what, name, obj, options, lines):
    """Turn indented blocks of the description into literal blocks (runs before numpydoc)."""
    end = next((i - 1 for i, line in enumerate(lines) if i and _SECTION_UNDERLINE.match(line)), len(lines))
    out, i = [], 0
    while i < end:
        line = lines[i]
        prev_blank = not out or not out[-1].strip()
        if line.strip() and _indent(line) > 0 and prev_blank and not line.lstrip().startswith(">>>"):
            base = _paragraph_indent(out)
            if _indent(line) > base and not _previous_opens_block(out):
                out[-1:] = ["", " " * base + "::", ""] if out else ["::", ""]
            while i < end and (not lines[i].strip() or _indent(lines[i]) > base):
                out.append(lines[i])
                i += 1
            if out and out[-1].strip():
                out.append("")
            continue
        out.append(line)
        i += 1
    lines[:end] = out


def _paragraph_indent(out):
    for line in reversed(out):
        if line.strip():
            return _indent(line)
    return 0


def _previous_opens_block(out):
    """True when the preceding text already opens a block (``::``, a directive, a list item)."""
    for line in reversed(out):
        if line.strip():
            text = line.strip()
            return text.endswith("::") or text.startswith(".. ")
    return False


def escape_plain_text(app, what, name, obj, options, lines):
    """Escape ``|`` and trailing ``_`` in running text (runs after numpydoc)."""
    literal_indent = None
    in_doctest = False
    for k, line in enumerate(lines):
        text = line.strip()
        if literal_indent is not None:
            if not text or _indent(line) > literal_indent:
                continue
            literal_indent = None
        if text.startswith(">>>"):
            in_doctest = True
        if in_doctest:
            if not text:
                in_doctest = False
            continue
        if text.startswith(".. "):
            if text.endswith("::") or "::" in text:
                literal_indent = _indent(line) if text.endswith("::") and text.startswith(".. code") else None
            continue
        lines[k] = _escape_outside_inline(line)
        if text.endswith("::"):
            literal_indent = _indent(line)


def _escape_outside_inline(line):
    parts = _INLINE.split(line)
    for j in range(0, len(parts), 2):
        part = parts[j].replace("|", r"\|")
        parts[j] = _TRAILING_UNDERSCORE.sub(r"\\_", part)
    return "".join(parts)


def setup(app):
    app.connect("autodoc-process-docstring", literal_displays, priority=400)
    app.connect("autodoc-process-docstring", escape_plain_text, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
