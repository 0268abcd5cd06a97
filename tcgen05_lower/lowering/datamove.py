"""Tensor-memory data movement by one thread: tcgen05.cp (9.7.16.9.2) and
tcgen05.shift.down (9.7.16.9.3).

``cp`` copies a shared-memory tile into a TMEM buffer, at the buffer's address plus the
op's ``column``. The tile is described to the hardware by the same canonical K-major
matrix descriptor as an MMA operand (Table 40, 9.7.16.3.3): its rows are the rows the
copy shape moves, its K extent their bits. ``shift`` shifts the rows of every 32-lane
quarter of a buffer down by one lane, across all its columns: one tcgen05.shift moves one
32-byte element (8 columns) of the 32 lanes from its address (9.7.16.9.3, the implicit
.31x256b shape of 9.7.16.2.3), so the op is one instruction per quarter and per 8
columns; its address must sit on a 32-lane boundary, which the plan decides, so the check
is made here.
"""

from __future__ import annotations

from tcgen05_lower import emit, ptx
from tcgen05_lower.dialect.ops import CpOp, ShiftOp, TmemBufferOp, TmemStageOp, wrap
from tcgen05_lower.emit import Sym, as_value, i32
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.smem_descriptors import smem_descriptor
from tcgen05_lower.lowering.sync import single_thread_predicate


@lowers(CpOp)
def lower_cp(lowering, op) -> None:
    """tcgen05.cp.cta_group.shape{.multicast}{.b8x16.src_fmt} [taddr], s-desc."""
    cp = CpOp(op)
    dest, source = cp.dest, cp.source
    taddr = as_value(Sym(lowering.values[dest]) + cp.column, i32())
    try:
        text = ptx.cp(lowering.info.cta_group, cp.shape, "$0", "$1",
                      multicast=cp.multicast, source_format=cp.decompress)
    except IsaRuleError as exc:
        lowering.fail(op, str(exc))
    emit.ptx(text, [taddr, smem_descriptor(lowering, source, 0)],
             predicate=single_thread_predicate(lowering))


def planned_lane(value) -> int | None:
    """The lane offset the plan gave the buffer `value`: 16 if it is a stage of a buffer
    whose stages pair up on the two lane halves (odd stages sit at lane 16, see
    lowering/views.py), else the buffer's own; None if unknown here."""
    owner = defining_op(value)
    if owner is not None and TmemStageOp.matches(owner):
        owner = defining_op(TmemStageOp(owner).buffer)
        if owner is not None and TmemBufferOp.matches(owner) \
                and TmemBufferOp(owner).stage_layout == "lane_pairs":
            return 16
    if owner is None or not TmemBufferOp.matches(owner) \
            or not TmemBufferOp(owner).has(TmemBufferOp.lane_offset):
        return None
    return TmemBufferOp(owner).lane_offset


@lowers(ShiftOp)
def lower_shift(lowering, op) -> None:
    """tcgen05.shift.cta_group.down [taddr]; "The lane of the address operand taddr must
    be aligned to 32" (9.7.16.9.3)."""
    buffer = op.operands[0]
    lane = planned_lane(buffer)
    if lane is not None and lane % 32:
        lowering.fail(op, f"tcgen05.shift needs a buffer at a lane that is a multiple of "
                          f"32, but this one was placed at lane {lane} (9.7.16.9.3)")
    owner = defining_op(buffer)
    if owner is not None and TmemStageOp.matches(owner):
        owner = defining_op(TmemStageOp(owner).buffer)
    typed = wrap(owner) if owner is not None else None
    columns = typed.columns if typed is not None else None
    if columns is None:
        lowering.fail(op, "tcgen05.shift of a buffer without a planned footprint: run "
                          "tcgen05-select-layouts first")
    # The buffer covers all four quarters of its CTA's 128 lanes (a half-lane buffer is
    # refused by tcgen05-select-layouts) and `columns` columns from its address.
    predicate = single_thread_predicate(lowering)
    base = Sym(lowering.values[buffer])
    for quarter in range(4):
        for column in range(0, columns, SHIFT_COLUMNS):
            taddr = as_value(base + ((32 * quarter) << 16) + column, i32())
            emit.ptx(ptx.shift_down(lowering.info.cta_group, "$0"), [taddr],
                     predicate=predicate)


#: Columns one tcgen05.shift moves: a 32-byte element of 32-bit cells (9.7.16.9.3).
SHIFT_COLUMNS = 8
