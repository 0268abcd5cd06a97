"""What the one-program planner plans with: an ``Action`` (a synchronization op it may
insert, and why), a ``Site`` (where), and small predicates over ops and accesses (user
barriers, trivial ops, completion kinds, the producers of an access)."""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import file_location
from tcgen05_lower.dialect.ops import StOp
from tcgen05_lower.synchronization.accesses import Access, Buffers, access_of
from tcgen05_lower.synchronization.common import (ASYNC_OPS, ISSUER, TRIVIAL_DIALECTS, TRIVIAL_OPS,
                                                  WARPGROUP, enclosing_op)
from tcgen05_lower.synchronization.state import UNKNOWN_LOOP, conflict, requirement


def is_user_barrier(barrier) -> bool:
    """Whether a planned wait's barrier is a user-written commit's mbarrier
    (``("user", value)``) rather than one of the pass's commit sites (an index)."""
    return isinstance(barrier, tuple) and barrier[:1] == ("user",)


@dataclass
class Action:
    """One op to insert at (anchor, side); actions at one position keep their order."""

    anchor: object
    side: str  # "before" | "after"
    name: str  # commit | mbarrier_wait | wait | fence | fence_proxy_async | barrier
    kind: str | None
    reason: str
    barrier: int | None = None
    #: Decided on what a loop's previous iteration or the code before a region leaves
    #: behind: checked again once the loop is planned, and dropped if redundant.
    speculative: bool = False


@dataclass
class Site:
    """Where the commits to one mbarrier are: right after `anchor`."""

    barrier: int
    anchor: object


class Unordered(Exception):
    """Raised by a check walk at the first need the planned ops leave unmet."""


def describe(op) -> str:
    """``tcgen05.mma at line 12``, for reasons and reports."""
    _, line, _ = file_location(op.location)
    return f"{op.name} at line {line}" if line is not None else op.name


def producers_of(statuses) -> str:
    ops = []
    for s in statuses:
        for op in (*s.also, s.access.op):
            if op not in ops:
                ops.append(op)
    ops.sort(key=lambda o: file_location(o.location)[1] or 0)
    # Ops made from one source op (a load split into chunks) read the same.
    return ", ".join(dict.fromkeys(describe(o) for o in ops))


def is_trivial(op) -> bool:
    if len(op.regions):
        return False
    return op.name.split(".")[0] in TRIVIAL_DIALECTS or op.name in TRIVIAL_OPS


def project(op, block):
    """The op of `block` that is `op` or contains it."""
    while op is not None and op.block != block:
        op = enclosing_op(op)
    return op


def next_nontrivial(op):
    """The first op after `op` in its block that is not index arithmetic, or None."""
    found = False
    for other in op.block.operations:
        other = other.operation
        if found and not is_trivial(other):
            return other
        found = found or other == op
    return None


def first_needs(op, statuses, buffers: Buffers) -> bool:
    """Whether the first thing `op` does needs `statuses` complete."""
    while len(op.regions):
        first = next((c.operation for c in op.regions[0].blocks[0].operations
                      if not is_trivial(c.operation)), None)
        if first is None:
            return False
        op = first
    if d.op_name(op) == "dealloc":
        return True
    access = access_of(op, buffers)
    return access is not None and any(
        conflict(s.evolve(carried_by=UNKNOWN_LOOP), access) is not None
        and requirement(s.access, access) is not None for s in statuses)


def completion_kind(access: Access) -> tuple:
    """What completes an op: one commit covers every earlier single-thread op, one
    wait::ld every earlier ld, one wait::st every earlier st, one proxy fence every
    earlier generic write."""
    if access.cls == WARPGROUP:
        return (WARPGROUP, access.name == StOp.NAME)
    return (access.cls,)


def run_continues(op, access: Access, buffers: Buffers) -> bool:
    """Whether the next op of the block (index arithmetic aside) is completed by the same
    mechanism as `op`: completing that one completes `op` too."""
    after = next_nontrivial(op)
    following = access_of(after, buffers) if after is not None else None
    return following is not None and completion_kind(following) == completion_kind(access)


def issues_async(op, classes=(ISSUER,)) -> bool:
    name = d.op_name(op)
    if name in ASYNC_OPS and ASYNC_OPS[name] in classes:
        return True
    return any(ASYNC_OPS.get(d.op_name(inner)) in classes for inner in d.walk_ops(op))


def same_effects(a: Access, b: Access) -> bool:
    """Whether two ops touch exactly the same cells and tiles the same way (and neither
    writes registers, whose own rule names the op)."""
    return (a.reads == b.reads and a.writes == b.writes and a.smem_reads == b.smem_reads
            and a.smem_writes == b.smem_writes and a.pipeline_key == b.pipeline_key
            and a.fragment is None and b.fragment is None)
