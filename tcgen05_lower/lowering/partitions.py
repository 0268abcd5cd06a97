"""Warp roles (docs/partitions.md): a ``tcgen05.partitions`` becomes one ``scf.if`` per
role, on the role's warp range, then a barrier of the CTA that joins them.

Each role's ops move, unchanged, into its ``scf.if``; the driver (``core``) lowers them
afterwards with the role's threads: single-thread ops issued by the role's first thread,
``smem_fill`` strided over the role's threads, ``tcgen05.barrier`` as the role's named
barrier (``barrier.sync id, threads``, id = 1 + the role's index, 9.7.13.1). The
warpgroup-relative warp index of ld / st stays ``warp % 4``: a role of whole aligned
warpgroups has warp w access TMEM lanes 32 (w % 4) .. 32 (w % 4) + 31 (9.7.16.8.1). The
role predicates are built once, at the kernel's entry (``RoleThreads``), and each op is
moved once: the lowering stays linear.

The joining barrier (``barrier.sync 0``) is reached by every thread of the CTA: the
warps of each role when their role ends, the warps of no role at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import emit
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import PartitionsOp, RoleOp
from tcgen05_lower.emit import Sym, i1, i32, i64
from tcgen05_lower.kernel_ir import Role, partition_roles
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.sync import cta_barrier

#: arith.cmpi predicate "ult".
_ULT = 6


@dataclass
class RoleThreads:
    """Who runs what in one role (or, with ``role`` None, in the whole CTA): the i1 of the
    thread that issues single-thread ops, the thread index within the role, its thread
    count, and the i1 "this thread's warp belongs to the role"."""

    role: Role | None
    leader: "ir.Value"
    tid: Sym
    threads: int
    member: "ir.Value | None" = None


def role_threads(lowering, role: Role) -> RoleThreads:
    """The predicates and indices of `role`, built at the insertion point (the kernel's
    entry, after the thread and warp indices)."""
    first = emit.constant(role.first_thread, i32())
    leader = emit.cmp_eq(lowering.tid.value, first)
    tid = lowering.tid - role.first_thread if role.first_thread else lowering.tid
    offset = lowering.warp - role.first_warp if role.first_warp else lowering.warp
    member = ir.Operation.create(
        "arith.cmpi", results=[i1()],
        operands=[offset.value, emit.constant(role.warps, i32())],
        attributes={"predicate": ir.IntegerAttr.get(i64(), _ULT)}).results[0]
    return RoleThreads(role, leader, tid, role.threads, member)


@lowers(PartitionsOp)
def lower_partitions(lowering, op) -> None:
    """One ``scf.if`` per role on its warps, holding the role's ops (lowered later by the
    driver with the role's threads), then the joining barrier of the CTA."""
    for role_op in partition_roles(op):
        threads = lowering.role_threads[role_op]
        branch = ir.Operation.create("scf.if", results=[], operands=[threads.member],
                                     regions=2)
        then = branch.regions[0].blocks.append()
        body = role_op.regions[0].blocks[0]
        moving = [inner.operation for inner in body.operations]
        for inner in moving[:-1]:  # all but the role's gpu.yield
            then.append(inner)
        with ir.InsertionPoint(then):
            ir.Operation.create("scf.yield")
    cta_barrier(lowering)


@lowers(RoleOp)
def lower_role(lowering, op) -> None:
    """Nothing: lower_partitions moved the role's ops into its scf.if."""
