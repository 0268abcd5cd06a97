"""Tensor-memory allocation (9.7.16.7.1) and the addresses of planned buffers.

Allocation is issued by warp 0 of the CTA; in a cta_group::2 kernel, by warp 0 of each
CTA of the pair, which "collectively" allocate the same columns in both (Table 46,
tmem-facts section 1). The address is written to shared memory and read by every thread
after a barrier of the CTA (of the pair, for cta_group::2), fenced on both sides
(9.7.16.6.4.4). With cta_group::2 a barrier of the pair also follows the deallocation, so
that no CTA exits while its peer still deallocates.
"""

from __future__ import annotations

from tcgen05_lower import kernel_ir
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import llvm
from tcgen05_lower.dialect.ops import (AllocOp, DeallocOp, RelinquishAllocPermitOp,
                                       TmemBufferOp, wrap)
from tcgen05_lower.emit import Sym, as_value, i32
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.sync import cta_barrier


def allocation_group(lowering, op) -> int:
    """The op's cta_group, which must be the kernel's ("All tcgen05 instructions within a
    kernel must specify the same value for the .cta_group qualifier", 9.7.16.7.1)."""
    group = wrap(op).cta_group
    if group is None:
        group = lowering.info.cta_group
    if group != lowering.info.cta_group:
        lowering.fail(op, f"cta_group = {group} differs from the kernel's cta_group = "
                          f"{lowering.info.cta_group}: all tcgen05 instructions of a kernel "
                          f"use the same .cta_group (9.7.16.7.1)")
    return group


@lowers(AllocOp)
def lower_alloc(lowering, op) -> None:
    """tcgen05.alloc by warp 0 (of each CTA of a pair), then every thread reads the
    address after the fenced barrier."""
    group = allocation_group(lowering, op)
    columns = emit.constant(AllocOp(op).columns, i32())
    emit.ptx(ptx.alloc(group, "$0", "$1"), [lowering.tmem_slot, columns],
             predicate=lowering.is_warp0)
    emit.ptx(ptx.fence("before_thread_sync"))
    cta_barrier(lowering)
    emit.ptx(ptx.fence("after_thread_sync"))
    lowering.values[op.results[0]] = llvm.LoadOp(i32(), lowering.tmem_slot, alignment=8).result


@lowers(RelinquishAllocPermitOp)
def lower_relinquish(lowering, op) -> None:
    """tcgen05.relinquish_alloc_permit by the allocating warp."""
    emit.ptx(ptx.relinquish_alloc_permit(allocation_group(lowering, op)),
             predicate=lowering.is_warp0)


@lowers(DeallocOp)
def lower_dealloc(lowering, op) -> None:
    """tcgen05.dealloc by the allocating warp (then a barrier of the pair for
    cta_group::2)."""
    group = allocation_group(lowering, op)
    if op.operands[0] not in lowering.values:
        lowering.fail(op, "tcgen05.dealloc frees the address a tcgen05.alloc returned "
                          "(9.7.16.7.1); its operand is not a tcgen05.alloc result")
    columns = emit.constant(DeallocOp(op).columns, i32())
    emit.ptx(ptx.dealloc(group, "$0", "$1"),
             [lowering.values[op.operands[0]], columns], predicate=lowering.is_warp0)
    if group == 2:
        # "When the current CTA issues the operation, the peer CTA should be active and
        # should not have exited" (Table 46): neither CTA of the pair leaves before both
        # have deallocated.
        cta_barrier(lowering)


@lowers(TmemBufferOp)
def lower_tmem_buffer(lowering, op) -> None:
    """A planned buffer's TMEM address: base + (lane_offset << 16) + column_offset."""
    if len(op.operands) == 0:
        lowering.fail(op, "TMEM buffer is not planned: run tcgen05-plan-tmem first")
    problem = kernel_ir.planned_buffer_problem(op)
    if problem:
        lowering.fail(op, problem)
    buffer = TmemBufferOp(op)
    base = Sym(lowering.values[buffer.base])
    offset = (buffer.lane_offset << 16) | buffer.column_offset
    lowering.values[op.results[0]] = as_value(base + offset, i32())
