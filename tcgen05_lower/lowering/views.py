"""Stages of multi-buffered TMEM buffers: ``tcgen05.tmem_stage`` (the address of stage i).

``tcgen05-plan-tmem`` places a ``[stages, rows, cols]`` buffer and writes on it the lane
and column of stage 0 (``lane_offset``, ``column_offset``), ``stage_stride`` (columns per
stage) and ``stage_layout``:

- ``column_blocks``: stage i starts ``i * stage_stride`` columns after stage 0, at the
  same lane offset;
- ``lane_pairs`` (half-datapath stages, Layouts F and C): stages 2j and 2j+1 share
  columns ``j * stage_stride`` at lane offsets 0 and 16 (tmem-facts section 1: the two
  halves of each lane quarter hold independent M = 64 accumulators).

A TMEM address is ``lane << 16 | column`` (9.7.16.1.1), so the view's address is the
buffer's plus ``((i mod 2) * 16) << 16`` for the lane half and the column step. The stage
index is a runtime value; the lowering does not check its range (an index past the last
stage addresses cells of other buffers, like any out-of-bounds access).
"""

from __future__ import annotations

from tcgen05_lower.dialect.ops import TmemBufferOp, TmemStageOp
from tcgen05_lower.emit import Sym, as_value, cast, i32
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.lowering.core import lowers

#: Lane offset of the second stage of a lane pair (9.7.16.10.5: F/C lane alignment 16).
PAIR_LANE_OFFSET = 16


@lowers(TmemStageOp)
def lower_tmem_stage(lowering, op) -> None:
    """The TMEM address of stage `op.operands[1]` of a planned multi-buffered buffer."""
    view = TmemStageOp(op)
    buffer = defining_op(view.buffer)
    if buffer is None or not TmemBufferOp.matches(buffer) or \
            not TmemBufferOp(buffer).has(TmemBufferOp.stage_layout):
        lowering.fail(op, "tcgen05.tmem_stage needs a planned multi-buffered "
                          "tcgen05.tmem_buffer as its operand: run tcgen05-plan-tmem first")
    buffer = TmemBufferOp(buffer)
    base = Sym(lowering.values[view.buffer])
    stage = Sym(cast(view.stage, i32()))
    stride = buffer.stage_stride
    if buffer.stage_layout == "lane_pairs":
        lane = (stage & 1) * PAIR_LANE_OFFSET
        address = base + (lane << 16) + (stage >> 1) * stride
    else:
        address = base + stage * stride
    lowering.values[op.results[0]] = as_value(address, i32())
