"""Tensor-memory allocation (9.7.16.7.1) and the addresses of planned buffers."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import llvm
from tcgen05_lower.emit import Sym, as_value, i32
from tcgen05_lower.lowering.core import lowers


@lowers("alloc")
def lower_alloc(lowering, op) -> None:
    group = d.get_int(op, "cta_group")
    columns = emit.constant(d.get_int(op, "columns"), i32())
    emit.ptx(ptx.alloc(group, "$0", "$1"), [lowering.tmem_slot, columns],
             predicate=lowering.is_warp0)
    # Warp 0 writes the address to shared memory; every thread reads it after the barrier,
    # fenced on both sides (9.7.16.6.4.4).
    emit.ptx(ptx.fence("before_thread_sync"))
    emit.ptx(ptx.barrier_sync())
    emit.ptx(ptx.fence("after_thread_sync"))
    lowering.values[op.results[0]] = llvm.LoadOp(i32(), lowering.tmem_slot, alignment=8).result


@lowers("relinquish_alloc_permit")
def lower_relinquish(lowering, op) -> None:
    emit.ptx(ptx.relinquish_alloc_permit(d.get_int(op, "cta_group")),
             predicate=lowering.is_warp0)


@lowers("dealloc")
def lower_dealloc(lowering, op) -> None:
    columns = emit.constant(d.get_int(op, "columns"), i32())
    emit.ptx(ptx.dealloc(d.get_int(op, "cta_group"), "$0", "$1"),
             [lowering.values[op.operands[0]], columns], predicate=lowering.is_warp0)


@lowers("tmem_buffer")
def lower_tmem_buffer(lowering, op) -> None:
    """A planned buffer's TMEM address: base + (lane_offset << 16) + column_offset."""
    if len(op.operands) == 0:
        lowering.fail(op, "TMEM buffer is not planned: run tcgen05-plan-tmem first")
    base = Sym(lowering.values[op.operands[0]])
    offset = (d.get_int(op, "lane_offset") << 16) | d.get_int(op, "column_offset")
    lowering.values[op.results[0]] = as_value(base + offset, i32())
