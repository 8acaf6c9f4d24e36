"""Checking where a command will write before it does the work (a fit, a comparison).

A path in a folder that does not exist, or that names a folder, fails only after minutes of work
when Python finally opens it; a path that names the table being read would replace the user's
data with a model file. :func:`check_output` refuses these at once, as usage errors.
"""

import os
import tempfile

from ._pipeline import CliUsageError

__all__ = ["check_output"]


def check_output(path, option, *inputs):
    """Refuse ``path`` (given as ``option``) unless a file can be written there without
    replacing one of ``inputs`` (paths read by the command; "-" is standard input)."""
    if path is None or path == "-":
        return
    if os.path.isdir(path) or str(path).endswith(("/", os.sep)):
        raise CliUsageError(f"{option} {path}: a folder, not a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CliUsageError(f"{option} {path}: no folder {folder}")
    try:  # a file really made there (os.access says yes to root, even on a read-only file system)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise CliUsageError(f"{option} {path}: cannot write in {folder} ({error.strerror})") from None
    for source in inputs:
        if source != "-" and os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
            raise CliUsageError(f"{option} {path}: that is the file being read; writing there would replace it")
