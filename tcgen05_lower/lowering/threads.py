"""Who runs what in the lowering: the thread that issues single-thread ops, the thread
index and the thread count of the whole CTA or of one warp role (docs/partitions.md).
The driver (``core``) builds them at the kernel's entry and ``partitions`` places the
roles; this module imports neither, so both import it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import emit
from tcgen05_lower.bindings import ir
from tcgen05_lower.emit import Sym, i1, i32, i64
from tcgen05_lower.kernel_ir import Role

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
