"""Block-scale factors copied per ring stage in a TMA-fed warp-specialized kernel
(tcgen05_lower/synchronization/rings.py; examples/ws_gemm_mxf8_blockscaled.mlir).

The load role brings each K block's scale factors into the shared-memory ring with the
operands (TMA loads of ring stages, like A and B); the MMA role copies them to tensor
memory with ``tcgen05.cp`` out of the same ring stage into stage s of a scale-factor ring
(``tcgen05.tmem_stage`` of a staged ``tcgen05.tmem_buffer``), then issues the stage's
block-scaled MMAs, which read them. The orderings (PTX ISA 9.7.16.6):

=======================================  =================================================
TMA -> tcgen05.cp on stage s             the ring's full_s wait, written before the
                                         stage's first cp (the first op of the MMA block
                                         that reads the stage): the cp reads shared
                                         memory through the async proxy, as the MMAs do
tcgen05.cp -> tcgen05.mma reading it     nothing: ``tcgen05.cp.cta_group::N ->
                                         tcgen05.mma.cta_group::N`` is an implicitly
                                         pipelined pair (9.7.16.6.2, item 2) when one
                                         thread issues both in that order (the plan
                                         checks that every cp precedes the MMAs of its
                                         block)
tcgen05.mma -> the next round's cp       mma -> cp is no pipelined pair, so: the commit
into the same TMEM stage                 after the stage's MMAs (empty_s, which tracks the
                                         cps and MMAs before it, 9.7.16.6.2.1.1), the
                                         load thread's empty_s wait before the refill,
                                         the refill's complete_tx on full_s, the MMA
                                         thread's full_s wait, then
                                         tcgen05.fence::after_thread_sync before the cp
                                         (9.7.16.6.4.2, example 2: commit, wait, fence,
                                         then the next tcgen05 op)
the cp's shared-memory reads -> refill   the same empty_s commit: it tracks the cp
                                         (9.7.16.6.2.1.1), so the stage is released only
                                         when the copy completed
=======================================  =================================================

So a scale-factor ring must be as deep as the shared-memory ring (stage s of one is
stage s of the other) and its stage index must be the ring's use counter mod that depth
(``RingPlan.check_stage``: proven for constant trip counts, written by the pass for
run-time ones). One walk of the MMA block: linear.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import CpOp, FenceOp, MbarrierWaitOp, MmaOp, TmemStageOp
from tcgen05_lower.kernel_ir import defining_op, mma_operands
from tcgen05_lower.bindings import ir
from tcgen05_lower.synchronization.common import SyncError


def copies_in(roles) -> list:
    """Every tcgen05.cp of `roles` (RoleInfo), in program order: one walk."""
    return [op for role in roles for op in d.walk_ops(role.op) if CpOp.matches(op)]


def check_placement(copies, mma_block) -> None:
    """Each cp must sit in the MMA block, before the block's first MMA (then the
    cp -> mma pipelined pair orders it before every MMA that reads its factors)."""
    seen_mma = False
    in_block = set()
    for op in mma_block.operations:
        op = op.operation
        if MmaOp.matches(op):
            seen_mma = True
        elif CpOp.matches(op):
            in_block.add(op)
            if seen_mma:
                raise SyncError(op, "tcgen05-insert-sync: this tcgen05.cp follows an MMA of "
                                    "its K block; the ring protocol copies a stage's scale "
                                    "factors before the stage's first MMA (tcgen05.cp -> "
                                    "tcgen05.mma is the implicitly pipelined pair, PTX ISA "
                                    "9.7.16.6.2; mma -> cp is not)")
    for op in copies:
        if op not in in_block:
            raise SyncError(op, "tcgen05-insert-sync: the ring protocol plans a tcgen05.cp "
                                "only in the block of the MMAs (the K block's scale factors, "
                                "copied from its ring stage by the MMA thread); this one "
                                "is elsewhere")


def scale_rings(plan, copies, mma_nest, depth: int) -> list:
    """The TMEM rings the copies write, each proven to be `depth` deep and indexed by the
    ring's use counter; raises SyncError otherwise. Returns the ring values. (No CTA
    pair gets here: tcgen05-verify refuses a TMA load of a tile that only a copy reads
    in a cta_group::2 kernel, docs/cta-pairs.md.)"""
    rings = []
    for op in copies:
        view = defining_op(CpOp(op).dest)
        if view is None or not TmemStageOp.matches(view):
            raise SyncError(op, "tcgen05-insert-sync: the destination of this tcgen05.cp "
                                "is not a stage of a TMEM ring (tcgen05.tmem_stage); the ring "
                                "protocol copies each K block's scale factors into the TMEM "
                                "stage of its shared-memory stage")
        ring = TmemStageOp(view).buffer
        stages = d.type_info(ring.type).stages
        name = plan.names.get(ring, "a scale-factor ring")
        if stages != depth:
            raise SyncError(op, f"tcgen05-insert-sync: {name} has {stages} stages and the "
                                f"shared-memory ring {depth}; a scale-factor ring must be as "
                                f"deep as the ring its factors come from (stage s of one is "
                                f"stage s of the other)")
        plan.check_stage(view.results[0], TmemStageOp(view).stage, depth, mma_nest, op,
                         f"the stage of {name} this tcgen05.cp writes")
        if ring not in rings:
            rings.append(ring)
    if copies:
        check_mma_stages(plan, copies[0].block, rings, mma_nest, depth)
    return rings


def check_mma_stages(plan, block, rings, mma_nest, depth: int) -> None:
    """The MMAs of `block` read their scale factors from the stage of each scale ring
    that this K block's copies wrote: an index proven to be the use counter mod `depth`,
    like the copies' (one walk of the block)."""
    for op in block.operations:
        op = op.operation
        if not MmaOp.matches(op):
            continue
        operands = mma_operands(op)
        for value in (operands.scale_a, operands.scale_b):
            view = defining_op(value) if value is not None else None
            if view is None or not TmemStageOp.matches(view) or \
                    TmemStageOp(view).buffer not in rings:
                continue
            name = plan.names.get(TmemStageOp(view).buffer, "a scale-factor ring")
            plan.check_stage(value, TmemStageOp(view).stage, depth, mma_nest, op,
                             f"the stage of {name} this MMA reads its scale factors from")


def first_issue(mma_block, copies, mmas):
    """(role, op) of the first op of the MMA block that reads the stage: its first cp, or
    its first MMA when it copies nothing."""
    if not copies:
        return mmas[0]
    role = mmas[0][0]
    for op in mma_block.operations:
        op = op.operation
        if CpOp.matches(op) or MmaOp.matches(op):
            return role, op
    return mmas[0]


def plan_fence(plan, added_before: int, rings) -> None:
    """tcgen05.fence::after_thread_sync after the MMA role's full_s wait (the first wait
    `plan` added after index `added_before` of its ops): the cps into a reused TMEM stage
    are ordered after the previous round's MMAs that read it (module docstring)."""
    wait = next(op for op in plan.added[added_before:] if MbarrierWaitOp.matches(op.operation))
    wait = wait.operation
    names = " and ".join(plan.names.get(r, "?") for r in rings)
    with ir.InsertionPoint.after(wait), wait.location:
        plan.emit(FenceOp, kind="after_thread_sync",
                  reason=f"the tcgen05.cp into stage s of {names} ordered after the "
                         f"previous round's MMAs that read it, which the empty_s commit, "
                         f"the refill and this wait order before it (9.7.16.6.4.2; "
                         f"mma -> cp is no pipelined pair, 9.7.16.6.2)")
