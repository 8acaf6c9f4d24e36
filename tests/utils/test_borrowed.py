"""Borrowed arrays (lucidml.utils._borrowed): the same data, no reference counting in compiled code."""

import re
import sys
from collections import namedtuple

import numpy as np

from lucidml.utils import njit
from lucidml.utils._borrowed import borrowed

Record = namedtuple("Record", ["values", "ids", "scale", "missing"])


def _column_sums(table, ids, out):
    # A view per column, and a loop left by ``break``: Numba keeps their reference counts here.
    for f in range(table.shape[1]):
        column = table[:, f]
        s = 0.0
        for p in range(ids.size):
            s += column[ids[p]]
            if s > 1e300:
                break
        out[f] = s
    return out.sum()


# Compiled here, not cached: the IR of cached code cannot be inspected.
_column_sums_plain = njit(_column_sums, cache=False)
_column_sums_inlined = njit(_column_sums, cache=False, inline="always")


@njit(cache=False)
def _column_sums_borrowed(table, ids, out):
    table, ids, out = borrowed((table, ids, out))
    return _column_sums_inlined(table, ids, out)


@njit(cache=False)  # (compiled here: the IR of cached code cannot be inspected)
def _record_total(record):
    record = borrowed(record)
    total = 0.0
    for k in range(record.ids.size):
        total += record.values[record.ids[k]] * record.scale
    record.values[0] = -1.0  # written through the borrowed array: the caller's array
    return total, record.missing is None


def _own_function_ir(kernel):
    """The LLVM IR of ``kernel``'s own compiled function (not its Python wrapper)."""
    (ir,) = kernel.inspect_llvm().values()
    name = kernel.py_func.__name__
    for match in re.finditer(r"^define [^\n]*", ir, re.M):
        header = match.group(0)
        if name in header and "cpython" not in header and "cfunc" not in header:
            return ir[match.start():ir.index("\n}\n", match.start())]
    raise AssertionError(f"no compiled function {name} in the IR")


def test_python_gets_the_value_itself():
    table = np.ones((3, 2))
    record = Record(np.arange(3.0), np.arange(3), 2.0, None)
    assert borrowed(table) is table
    assert borrowed(record) is record
    assert borrowed(None) is None


def test_compiled_results_match_and_counts_are_gone():
    rng = np.random.default_rng(0)
    table = rng.random((50, 7))
    ids = rng.permutation(50)[:30].astype(np.uint32)
    plain, borrowed_out = np.zeros(7), np.zeros(7)
    before = sys.getrefcount(table)
    assert _column_sums_borrowed(table, ids, borrowed_out) == _column_sums_plain(table, ids, plain)
    np.testing.assert_array_equal(borrowed_out, plain)
    np.testing.assert_allclose(plain, table[ids].sum(axis=0))
    assert sys.getrefcount(table) == before  # nothing kept, nothing leaked
    # The point of borrowing: no reference counting left in the compiled function's loops.
    assert "@NRT_incref(" not in _own_function_ir(_column_sums_borrowed)


def test_records_keep_their_other_members():
    values = np.arange(5.0)
    record = Record(values, np.array([1, 3]), 0.5, None)
    total, missing_is_none = _record_total(record)
    assert total == (1.0 + 3.0) * 0.5
    assert missing_is_none
    assert values[0] == -1.0  # the write reached the caller's array
