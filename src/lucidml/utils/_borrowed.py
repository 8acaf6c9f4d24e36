"""Borrowed arrays: reading arrays in compiled code without counting their references.

Numba counts the references to every array it binds: each view, each record member read, each
array argument of a call (inlined or not) adds one to the array's owner and takes it back, by an
atomic operation (about 8 ns each on a 2-core machine) that LLVM removes only in simple code. In
a kernel that binds arrays once per node and feature of a tree, these counts were 45% of a fit
(a regression tree on the Ames table: 4,479 nodes × 310 columns).

:func:`borrowed` gives the same arrays (or a record of them) with no owner: Numba still calls
its counter on them, which returns at once on a missing owner. The caller keeps the owners
alive for the whole call, so a kernel may borrow its arguments on entry and read them freely,
**on one condition: nothing borrowed may outlive the call** — not returned, not stored into an
array or record that is returned, not handed back to Python (it would reach NumPy without
its memory's owner).
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload


def borrowed(value):
    """``value`` (an array, a tuple or record of them, or anything else) with its arrays
    borrowed; in Python, ``value`` itself."""
    return value


@intrinsic
def _borrow(typingctx, value):
    def codegen(context, builder, signature, args):
        return _without_owners(context, builder, signature.args[0], args[0])

    return value(value), codegen


def _without_owners(context, builder, typ, value):
    """The LLVM value ``value`` of Numba type ``typ`` with every array's owner (and parent) null."""
    if isinstance(typ, types.Array):
        array = context.make_array(typ)(context, builder, value=value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    if isinstance(typ, types.BaseTuple):  # tuples and named tuples (records): member by member
        members = [_without_owners(context, builder, member, builder.extract_value(value, k))
                   for k, member in enumerate(typ)]
        return context.make_tuple(builder, typ, members)
    return value


@overload(borrowed)
def _borrowed_compiled(value):
    return lambda value: _borrow(value)
