"""Arrays without owners, and the named tuples of :mod:`cbalgebra.matcher.layout`
rebuilt from their declaration in compiled code.

numba types a plain tuple of arrays in its C dispatcher but a NamedTuple
through Python, so the batch entries take the table and the scratch as plain
tuples and name them inside; the single-message entries take them packed in
one buffer each (``layout.pack_arrays``). Both are turned back into
:class:`~cbalgebra.matcher.layout.TableArrays` and
:class:`~cbalgebra.matcher.layout.Scratch` here by two intrinsics,
:func:`borrow_named` and :func:`unpack_named`, which read the field list and
dtypes from the declaration when numba types the call: nothing positional is
written out by hand. Both give views without owners (:func:`_unmanaged`):
their owners are the caller's, alive for the call. The intrinsics use
numba's documented extension API (``numba.extending.intrinsic``, the
context's ``make_array``, ``populate_array`` and ``make_tuple``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.numpy_support import from_dtype

from cbalgebra.bits import population_count, trailing_zeros
from cbalgebra.matcher._numba_cache import CACHE
from cbalgebra.matcher.layout import Scratch, TableArrays, columns


# ------------------------------------------------------------------ helpers
# LLVM's bit counting (cbalgebra.bits), under the names the kernels use
_ctpop = population_count  # population count
_cttz = trailing_zeros  # trailing zero bits (x != 0)


@intrinsic
def _unmanaged_intrinsic(typingctx, array):
    """The same array view without its reference-counted owner (a null
    meminfo). Numba updates the owner's count atomically whenever compiled
    code hands an array on (a call, or an inlined function's argument), and
    on the kernels' arrays those updates were 12 % of the kernel's samples
    (issue 15); on a view without owner they are a null test. Only for
    arrays whose owner outlives the call (the kernels' arguments). A tuple
    of arrays (the table or the scratch of a batch entry) gives the same
    tuple of views without owners."""
    if isinstance(array, types.BaseTuple) and all(isinstance(t, types.Array) for t in cast(Any, array)):
        def codegen(context, builder, signature, args):
            items = [_without_owner(context, builder, t, builder.extract_value(args[0], k))
                     for k, t in enumerate(cast(Any, array))]
            return context.make_tuple(builder, array, items)

        return array(array), codegen
    if not isinstance(array, types.Array):
        return None

    def codegen_array(context, builder, signature, args):
        return _without_owner(context, builder, array, args[0])

    return array(array), codegen_array


def _without_owner(context: Any, builder: Any, array_type: Any, value: Any) -> Any:
    """The array ``value`` with a null meminfo and parent, in generated code."""
    view = context.make_array(array_type)(context, builder, value=value)
    view.meminfo = cgutils.get_null_value(view.meminfo.type)
    view.parent = cgutils.get_null_value(view.parent.type)
    return view._getvalue()


@intrinsic
def _view_at_intrinsic(typingctx, raw, start, end, dtype):
    """``raw.view(np.uint8)[start:end].view(dtype)`` for C-contiguous 1-D bytes or array
    ``raw`` (``start`` and ``end`` in bytes) and an aligned ``start``, built
    directly and without an owner (as :func:`_unmanaged`): the
    single-message entry takes ~31 arrays out of two buffers per call, and
    numba's slice and view checks cost more than the rest of an empty
    message (and numba compiles its ``view`` once per pair of dtypes, 0.2 s
    each in a cold first call)."""
    if not (isinstance(raw, types.Buffer) and raw.ndim == 1 and raw.layout == "C"):
        return None
    if isinstance(dtype, types.DType):
        item = dtype.dtype
    elif isinstance(dtype, types.NumberClass):
        item = dtype.instance_type
    else:
        return None
    result = types.Array(item, 1, "C")
    sig = result(raw, start, end, dtype)

    def codegen(context, builder, signature, args):
        source = context.make_array(raw)(context, builder, value=args[0])
        out = context.make_array(result)(context, builder)
        width = context.get_abi_sizeof(context.get_data_type(item))
        intp = context.get_value_type(types.intp)
        first = builder.sext(args[1], intp) if args[1].type.width < intp.width else args[1]
        last = builder.sext(args[2], intp) if args[2].type.width < intp.width else args[2]
        raw_bytes = builder.bitcast(source.data, ir.IntType(8).as_pointer())
        data = builder.bitcast(builder.gep(raw_bytes, [first]), out.data.type)
        count = builder.sdiv(builder.sub(last, first), intp(width))
        context.populate_array(out, data=data, shape=[count], strides=[intp(width)], itemsize=intp(width),
                               meminfo=None)
        return out._getvalue()

    return sig, codegen


@intrinsic
def _rows_of_intrinsic(typingctx, flat, n_cols):
    """The C-contiguous 1-D array ``flat`` as a 2-D view of rows of
    ``n_cols`` items (``flat.reshape(-1, n_cols)``; the items past the last
    whole row are left out), without owner (as :func:`_unmanaged`). Not
    ``reshape``, which numba compiles as a function of its own, 0.2 s of a
    cold first ``forward()`` for each pair of argument types."""
    if not (isinstance(flat, types.Array) and flat.ndim == 1 and flat.layout == "C"
            and isinstance(n_cols, types.Integer)):
        return None
    result = types.Array(flat.dtype, 2, "C")
    sig = result(flat, n_cols)

    def codegen(context, builder, signature, args):
        source = context.make_array(flat)(context, builder, value=args[0])
        out = context.make_array(result)(context, builder)
        intp = context.get_value_type(types.intp)
        cols = context.cast(builder, args[1], signature.args[1], types.intp)
        size = builder.extract_value(source.shape, 0)
        one = intp(1)
        rows = builder.sdiv(size, builder.select(builder.icmp_signed(">", cols, one), cols, one))
        width = source.itemsize
        context.populate_array(out, data=source.data, shape=[rows, cols], strides=[builder.mul(cols, width), width],
                               itemsize=width, meminfo=None)
        return out._getvalue()

    return sig, codegen


# typed for mypy (an intrinsic's signature includes numba's typing context)
_unmanaged = cast(Callable[[Any], Any], _unmanaged_intrinsic)
_view_at = cast(Callable[[Any, Any, Any, Any], Any], _view_at_intrinsic)
_rows_of = cast(Callable[[Any, Any], Any], _rows_of_intrinsic)


@njit(cache=CACHE, inline="always")
def popcount64(x):
    return np.int64(_ctpop(np.uint64(x)))


# ------------------------------------------------ named tuples, derived
def _named_type(cls: type, items: list) -> Any:
    """numba's type of the named tuple ``cls`` holding values of types ``items``
    (as numba's typeof makes it: one item type for all, or one each)."""
    if items and all(t == items[0] for t in items):
        return types.NamedUniTuple(items[0], len(items), cls)
    return types.NamedTuple(items, cls)


def _borrow_named_typer(typingctx: Any, values: Any, cls: Any) -> Any:
    """``cls(*values)`` for a tuple of arrays, each without its owner (as
    :func:`_unmanaged`)."""
    if not isinstance(values, types.BaseTuple) or not isinstance(cls, types.NamedTupleClass):
        return None
    items = list(cast(Any, values))  # its item types (numba types iteration untyped for mypy)
    if len(items) != len(cls.instance_class._fields) or not all(isinstance(t, types.Array) for t in items):
        return None
    result = _named_type(cls.instance_class, items)
    sig = result(values, cls)

    def codegen(context, builder, signature, args):
        borrowed = [_without_owner(context, builder, item, builder.extract_value(args[0], k))
                    for k, item in enumerate(items)]
        return context.make_tuple(builder, result, borrowed)

    return sig, codegen


def _packed_header(context: Any, builder: Any, buffer_type: Any, buffer: Any) -> tuple[Any, Any, Any]:
    """(its bytes, the layout :func:`layout.pack_arrays` wrote at its start,
    intp) of a packed buffer in generated code."""
    source = context.make_array(buffer_type)(context, builder, value=buffer)
    intp = context.get_value_type(types.intp)
    raw = builder.bitcast(source.data, ir.IntType(8).as_pointer())
    return raw, builder.bitcast(raw, intp.as_pointer()), intp


def _unpack_named_typer(typingctx: Any, buffer: Any, cls: Any) -> Any:
    """The named tuple ``cls`` of the arrays :func:`layout.pack_arrays` packed
    into the C-contiguous 1-D ``buffer`` (its first fields, in declaration
    order), typed from :func:`layout.columns`; the field declared without a
    dtype has the buffer's. Views without owners. (Called directly, not
    from a function numba inlines: each copy of the named tuple numba makes
    costs a reference count update per array in the generated code.)"""
    if not (isinstance(buffer, types.Array) and buffer.ndim == 1 and buffer.layout == "C"
            and isinstance(cls, types.NamedTupleClass)):
        return None
    items = [_packed_item(buffer, cls, k) for k in range(len(cls.instance_class._fields))]
    result = _named_type(cls.instance_class, items)
    sig = result(buffer, cls)

    def codegen(context, builder, signature, args):
        views = [_packed_view(context, builder, buffer, args[0], k, item) for k, item in enumerate(items)]
        return context.make_tuple(builder, result, views)

    return sig, codegen


def _packed_item(buffer: Any, cls: Any, k: int) -> Any:
    """numba's type of field k of the named tuple ``cls`` packed in ``buffer``."""
    column = columns(cls.instance_class)[k]
    return types.Array(buffer.dtype if column.dtype is None else from_dtype(np.dtype(column.dtype)), column.ndim, "C")


def _packed_view(context: Any, builder: Any, buffer_type: Any, buffer: Any, k: int, item: Any) -> Any:
    """Array k of a packed buffer, of numba type ``item``, as a view without
    owner, in generated code."""
    raw, header, intp = _packed_header(context, builder, buffer_type, buffer)

    def entry(j: int) -> Any:
        return builder.load(builder.gep(header, [intp(j)]))

    out = context.make_array(item)(context, builder)
    width = intp(context.get_abi_sizeof(context.get_data_type(item.dtype)))
    first = entry(3 * k)
    count = builder.sdiv(builder.sub(entry(3 * k + 1), first), width)
    data = builder.bitcast(builder.gep(raw, [first]), out.data.type)
    if item.ndim == 1:
        shape, strides = [count], [width]
    else:  # (rows, count // max(rows, 1)), as reshape gives it
        rows = entry(3 * k + 2)
        one = intp(1)
        cols = builder.sdiv(count, builder.select(builder.icmp_signed(">", rows, one), rows, one))
        shape, strides = [rows, cols], [builder.mul(cols, width), width]
    context.populate_array(out, data=data, shape=shape, strides=strides, itemsize=width, meminfo=None)
    return out._getvalue()


@intrinsic
def _field_intrinsic(typingctx, value, cls, name):
    """The field ``name`` (a constant string) of the named tuple ``cls``, as
    a view without owner, from either form an entry passes the table or the
    scratch in: one array read from a packed buffer (the single-message
    entries), or one item of a plain tuple of arrays (the batch entries).
    The per-message functions take the table and the scratch in either
    form and read the fields they need this way: a named tuple of ~30 arrays
    passed from one compiled function to another cost ~0.15 s of a cold
    compile per call (its arrays' fields are passed one by one), and each
    copy of it a reference count update per array in the generated code."""
    if not (isinstance(cls, types.NamedTupleClass) and isinstance(name, types.StringLiteral)
            and name.literal_value in cls.instance_class._fields):
        return None
    k = cls.instance_class._fields.index(name.literal_value)
    if isinstance(value, types.Array) and value.ndim == 1 and value.layout == "C":
        item = _packed_item(value, cls, k)
        packed = True
    elif isinstance(value, types.BaseTuple) and len(value) == len(cls.instance_class._fields):
        item = list(cast(Any, value))[k]
        packed = False
        if not isinstance(item, types.Array):
            return None
    else:
        return None
    sig = item(value, cls, name)

    def codegen(context, builder, signature, args):
        if packed:
            return _packed_view(context, builder, value, args[0], k, item)
        return _without_owner(context, builder, item, builder.extract_value(args[0], k))

    return sig, codegen


_borrow_named_intrinsic = intrinsic(_borrow_named_typer)
_unpack_named_intrinsic = intrinsic(_unpack_named_typer)


@intrinsic
def _unpack_scalars_intrinsic(typingctx, buffer, after, cls):
    """The named tuple ``cls`` of int64 scalars packed, as one int64 array,
    in the C-contiguous 1-D ``buffer`` right after the arrays of the named
    tuple ``after`` (the Params after the TableArrays, see
    ``layout.PACKED_TABLE_DTYPES``)."""
    if not (isinstance(buffer, types.Array) and buffer.ndim == 1 and buffer.layout == "C"
            and isinstance(after, types.NamedTupleClass) and isinstance(cls, types.NamedTupleClass)):
        return None
    index = len(after.instance_class._fields)
    n = len(cls.instance_class._fields)
    result = types.NamedUniTuple(types.int64, n, cls.instance_class)
    sig = result(buffer, after, cls)

    def codegen(context, builder, signature, args):
        raw, header, intp = _packed_header(context, builder, buffer, args[0])
        first = builder.load(builder.gep(header, [intp(3 * index)]))
        data = builder.bitcast(builder.gep(raw, [first]), ir.IntType(64).as_pointer())
        items = [builder.load(builder.gep(data, [intp(k)])) for k in range(n)]
        return context.make_tuple(builder, result, items)

    return sig, codegen


# typed for mypy, as above
borrow_named = cast(Callable[[Any, Any], Any], _borrow_named_intrinsic)
unpack_named = cast(Callable[[Any, Any], Any], _unpack_named_intrinsic)
field = cast(Callable[[Any, Any, Any], Any], _field_intrinsic)
unpack_scalars = cast(Callable[[Any, Any, Any], Any], _unpack_scalars_intrinsic)


@njit(cache=CACHE, inline="always")
def borrow_table(t):
    """``TableArrays(*t)`` with every array :func:`_unmanaged`."""
    return borrow_named(t, TableArrays)


@njit(cache=CACHE, inline="always")
def borrow_scratch(s):
    """``Scratch(*s)`` with every array :func:`_unmanaged`."""
    return borrow_named(s, Scratch)
