"""Warpgroup loads from tensor memory (9.7.16.8.3) and fragments to global memory.

Each warp of the warpgroup addresses its own lane quarter (9.7.16.8.1): the message's
taddr is the buffer's address + ((32 * warp) << 16) + column. Which logical element each
register holds is ``addressing.ld_element`` (the fragment composed with the layout's
inverse), the formula the tests check.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import llvm
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.isa import addressing, fragments
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.lowering.core import Fragment, lowers


def message_address(lowering, op):
    """The taddr of the warp's message for a load or store of `op`'s buffer slice."""
    buffer, column = op.operands[0], op.operands[1]
    layout = d.get_str(defining_op(buffer), "layout")
    base = Sym(lowering.values[buffer])
    lane = addressing.ld_warp_lane_base(layout, lowering.warp_in_group)
    return layout, as_value(base + (lane << 16) + Sym(cast(column, i32())), i32())


@lowers("ld")
def lower_ld(lowering, op) -> None:
    if "shape" not in op.attributes:
        lowering.fail(op, "load has no message shape: run tcgen05-select-layouts first")
    shape, num = d.get_str(op, "shape"), d.get_int(op, "num")
    half_split = d.get_int(op, "half_split")
    layout, taddr = message_address(lowering, op)
    count = fragments.registers_per_thread(shape, num)
    dests = [f"${i}" for i in range(count)]
    text = ptx.ld(shape, num, dests, f"${count}", half_split=half_split)
    registers = emit.ptx(text, [taddr], [i32()] * count)
    lowering.values[op.results[0]] = Fragment(registers, layout, shape, num, half_split)


@lowers("store_fragment")
def lower_store_fragment(lowering, op) -> None:
    fragment = lowering.values[op.operands[0]]
    dest = op.operands[1]
    column = Sym(cast(op.operands[2], i64()))
    ld = d.get_int(op, "ld")
    warp = Sym(cast(lowering.warp_in_group.value, i64()))
    thread = Sym(cast(lowering.lane.value, i64()))
    for reg, value in enumerate(fragment.registers):
        row, col = addressing.ld_element(fragment.layout, fragment.shape, fragment.num,
                                         warp=warp, thread=thread, reg=reg,
                                         half_split=fragment.half_split)
        element = (row * ld + column + col) * 4
        llvm.StoreOp(value, emit.gep_bytes(dest, as_value(element, i64())), alignment=4)
