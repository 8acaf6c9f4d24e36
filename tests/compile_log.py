"""A prelude for test scripts run in a fresh process: ``compiled`` lists every kernel Numba compiles.

Prepend ``COMPILE_LOG`` to the script; it imports ``json`` and defines ``compiled``.
"""

COMPILE_LOG = """
import json
from numba.core import event
compiled = []
class _Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)
    def on_end(self, ev):
        pass
event.register("numba:compile", _Listener())
"""
