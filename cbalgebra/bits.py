"""Bit counting inside numba-compiled code: LLVM's ``ctpop`` and ``cttz``,
one instruction where the CPU has it (POPCNT, TZCNT/BSF).

numba compiles ``bin(x).count("1")`` and friends poorly or not at all, and
offers no count of trailing zeros among its documented functions, so the
two are numba intrinsics (``numba.extending.intrinsic``, numba's documented
extension API) calling LLVM's. The forwarding kernels use them on their
interface bitmaps, the routing kernels on the 64 trees a BFS grows at once.
Callable from compiled code only.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["population_count", "trailing_zeros"]


def _bit_intrinsic(llvm_name: str, zero_undefined: bool) -> Any:
    """An intrinsic calling LLVM's bit-counting intrinsic ``llvm_name`` on
    an integer; the result has the argument's type. ``zero_undefined``: the
    intrinsic takes the flag saying its result for 0 may be anything
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


#: The number of set bits of an integer.
population_count = _bit_intrinsic("llvm.ctpop", zero_undefined=False)

#: The number of trailing zero bits of a nonzero integer (the index of its
#: lowest set bit); undefined for 0.
trailing_zeros = _bit_intrinsic("llvm.cttz", zero_undefined=True)
