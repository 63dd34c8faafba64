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

from cbalgebra.matcher._numba_cache import CACHE
from cbalgebra.matcher.layout import N_PACKED_TABLE, Params, Scratch, TableArrays, columns


# ------------------------------------------------------------------ helpers
def _bit_intrinsic(llvm_name: str, zero_undefined: bool) -> Any:
    """An intrinsic calling LLVM's bit-counting intrinsic ``llvm_name`` on
    an integer (one instruction where the CPU has it). ``zero_undefined``:
    the intrinsic takes the flag saying its result for 0 may be anything
    (``llvm.cttz``), which the caller then never passes."""

    def typer(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            flag = [ir.Constant(ir.IntType(1), 1)] if zero_undefined else []
            fn = builder.module.declare_intrinsic(llvm_name, [args[0].type] + [f.type for f in flag])
            return builder.call(fn, [args[0], *flag])

        return x(x), codegen

    typer.__name__ = typer.__qualname__ = "_" + llvm_name.replace(".", "_")
    return intrinsic(typer)


_ctpop = _bit_intrinsic("llvm.ctpop", zero_undefined=False)  # population count
_cttz = _bit_intrinsic("llvm.cttz", zero_undefined=True)  # trailing zero bits (x != 0)


@intrinsic
def _unmanaged_intrinsic(typingctx, array):
    """The same array view without its reference-counted owner (a null
    meminfo). Numba updates the owner's count atomically whenever compiled
    code hands an array on (a call, or an inlined function's argument), and
    on the kernels' arrays those updates were 12 % of the kernel's samples
    (issue 15); on a view without owner they are a null test. Only for
    arrays whose owner outlives the call (the kernels' arguments)."""
    if not isinstance(array, types.Array):
        return None
    sig = array(array)

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return sig, codegen


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


# typed for mypy (an intrinsic's signature includes numba's typing context)
_unmanaged = cast(Callable[[Any], Any], _unmanaged_intrinsic)
_view_at = cast(Callable[[Any, Any, Any, Any], Any], _view_at_intrinsic)


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


@intrinsic
def _borrow_named_intrinsic(typingctx, values, cls):
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
        borrowed = []
        for k, item in enumerate(items):
            view = context.make_array(item)(context, builder, value=builder.extract_value(args[0], k))
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            view.parent = cgutils.get_null_value(view.parent.type)
            borrowed.append(view._getvalue())
        return context.make_tuple(builder, result, borrowed)

    return sig, codegen


@intrinsic
def _unpack_named_intrinsic(typingctx, raw, cls, proto):
    """The named tuple ``cls`` of the arrays :func:`layout.pack_arrays` packed
    into the uint8 buffer ``raw`` (its first fields, in declaration order),
    typed from :func:`layout.columns`; the field declared without a dtype has
    ``proto``'s. Views without owners."""
    if not (isinstance(raw, types.Array) and raw.dtype == types.uint8 and raw.layout == "C"
            and isinstance(cls, types.NamedTupleClass) and isinstance(proto, types.Array)):
        return None
    declared = columns(cls.instance_class)
    items = [types.Array(proto.dtype if c.dtype is None else from_dtype(np.dtype(c.dtype)), c.ndim, "C")
             for c in declared]
    result = _named_type(cls.instance_class, items)
    sig = result(raw, cls, proto)

    def codegen(context, builder, signature, args):
        source = context.make_array(raw)(context, builder, value=args[0])
        intp = context.get_value_type(types.intp)
        header = builder.bitcast(source.data, intp.as_pointer())

        def entry(k: int) -> Any:
            return builder.load(builder.gep(header, [intp(k)]))

        views = []
        for k, item in enumerate(items):
            out = context.make_array(item)(context, builder)
            width = intp(context.get_abi_sizeof(context.get_data_type(item.dtype)))
            first = entry(3 * k)
            count = builder.sdiv(builder.sub(entry(3 * k + 1), first), width)
            data = builder.bitcast(builder.gep(source.data, [first]), out.data.type)
            if item.ndim == 1:
                shape, strides = [count], [width]
            else:  # (rows, count // max(rows, 1)), as reshape gives it
                rows = entry(3 * k + 2)
                one = intp(1)
                cols = builder.sdiv(count, builder.select(builder.icmp_signed(">", rows, one), rows, one))
                shape, strides = [rows, cols], [builder.mul(cols, width), width]
            context.populate_array(out, data=data, shape=shape, strides=strides, itemsize=width, meminfo=None)
            views.append(out._getvalue())
        return context.make_tuple(builder, result, views)

    return sig, codegen


@intrinsic
def _named_scalars_intrinsic(typingctx, values, cls):
    """``cls(values[0], values[1], ...)``, one item of the 1-D array
    ``values`` per field of the named tuple ``cls``."""
    if not (isinstance(values, types.Array) and values.ndim == 1 and isinstance(cls, types.NamedTupleClass)):
        return None
    n = len(cls.instance_class._fields)
    result = types.NamedUniTuple(values.dtype, n, cls.instance_class)
    sig = result(values, cls)

    def codegen(context, builder, signature, args):
        data = context.make_array(values)(context, builder, value=args[0]).data
        items = [builder.load(builder.gep(data, [ir.Constant(ir.IntType(64), k)])) for k in range(n)]
        return context.make_tuple(builder, result, items)

    return sig, codegen


# typed for mypy, as above
borrow_named = cast(Callable[[Any, Any], Any], _borrow_named_intrinsic)
unpack_named = cast(Callable[[Any, Any, Any], Any], _unpack_named_intrinsic)
named_scalars = cast(Callable[[Any, Any], Any], _named_scalars_intrinsic)


@njit(cache=CACHE, inline="always")
def borrow_table(t):
    """``TableArrays(*t)`` with every array :func:`_unmanaged`."""
    return borrow_named(t, TableArrays)


@njit(cache=CACHE, inline="always")
def borrow_scratch(s):
    """``Scratch(*s)`` with every array :func:`_unmanaged`."""
    return borrow_named(s, Scratch)


@njit(cache=CACHE, inline="always")
def _bytes(buffer):
    """``buffer.view(np.uint8)`` of a C-contiguous 1-D array, without owner."""
    return _view_at(buffer, 0, buffer.size * buffer.itemsize, np.uint8)


@njit(cache=CACHE, inline="always")
def _layout(raw, n_fields):
    """The layout :func:`layout.pack_arrays` wrote at the start of a buffer."""
    return _view_at(raw, 0, 24 * n_fields, np.int64).reshape(n_fields, 3)


@njit(cache=CACHE, inline="always")
def unpack_buffers(table_buffer, scratch_buffer):
    """(TableArrays, Params, Scratch) from the packed table and scratch of a
    single-message entry, each buffer passed as a view of the dtype of its
    variable field (filter_info for the table, the counters for the
    scratch)."""
    table_raw = _bytes(table_buffer)
    layout = _layout(table_raw, N_PACKED_TABLE)
    params = named_scalars(_view_at(table_raw, layout[N_PACKED_TABLE - 1, 0], layout[N_PACKED_TABLE - 1, 1],
                                    np.int64), Params)
    return (unpack_named(table_raw, TableArrays, table_buffer), params,
            unpack_named(_bytes(scratch_buffer), Scratch, scratch_buffer))
