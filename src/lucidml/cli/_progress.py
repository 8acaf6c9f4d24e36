"""What the ``lucidml`` command shows on standard error while it works: on a terminal only.

A bar for work in counted steps (models in ``compare``, ``warmup``), a ticking status line for
one long step (a fit). Both stay silent when standard error is not a terminal (a log file, a
pipe, a test) or with ``--quiet``, so they never mix with the output.
"""

import threading
import time

__all__ = ["progress_bar", "working"]


def progress_bar(stream, quiet=False):
    """``show(done, total, label)``: a one-line bar on a terminal; nothing otherwise."""
    if quiet or not stream.isatty():
        return lambda done, total, label: None

    def show(done, total, label):
        width = 30
        filled = width * done // max(total, 1)
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label:<30}")
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


class working:
    """``with working(stream, "fitting SVC"):`` shows "fitting SVC … 3 s" after a second, ticking,
    and clears it at the end (a terminal only; nothing if quiet)."""

    def __init__(self, stream, label, quiet=False, delay=1.0):
        self.stream, self.label, self.delay = stream, label, delay
        self.active = not quiet and stream.isatty()
        self._done = threading.Event()

    def __enter__(self):
        if self.active:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._start = time.perf_counter()
            self._thread.start()
        return self

    def _tick(self):
        shown = False
        while not self._done.wait(0.5):
            elapsed = time.perf_counter() - self._start
            if elapsed >= self.delay:
                self.stream.write(f"\r{self.label} … {elapsed:.0f} s")
                self.stream.flush()
                shown = True
        if shown:
            self.stream.write("\r" + " " * (len(self.label) + 16) + "\r")
            self.stream.flush()

    def __exit__(self, *exc_info):
        if self.active:
            self._done.set()
            self._thread.join()
