"""Warp roles as the later stages see them (docs/partitions.md): the names of the
partitions and role ops, the ops every warp of a warpgroup executes, ``Role`` (a role's
warps, threads and named barrier), and the walks that find a kernel's roles and the ops
inside each.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect
from tcgen05_lower.dialect.ops import (FragBroadcastOp, FragMapOp, FragReduceOp, LdOp, LdRedOp,
                                       LoadFragmentOp, RoleOp, StOp, StoreFragmentOp, WaitOp)


#: Names of the warp-role ops (docs/partitions.md).
PARTITIONS_OP, ROLE_OP = "tcgen05.partitions", "tcgen05.role"
#: Threads per warp.
WARP_THREADS = 32
#: Ops that every warp of a warpgroup executes, each at its own lane quarter (Table 46 and
#: 9.7.16.8: warp w of a warpgroup accesses lanes 32 (w % 4) .. 32 (w % 4) + 31); the
#: fragment ops work on the registers those loads fill.
def _warpgroup_ops() -> frozenset:
    return frozenset(cls.NAME for cls in (LdOp, StOp, LdRedOp, WaitOp, StoreFragmentOp,
                                          LoadFragmentOp, FragMapOp, FragReduceOp,
                                          FragBroadcastOp))


WARPGROUP_OPS = _warpgroup_ops()


@dataclass(frozen=True)
class Role:
    """A tcgen05.role as the later stages see it: its warps and its place among its
    partitions' roles (``index``, from 0)."""

    op: object
    name: str
    first_warp: int
    warps: int
    index: int

    @property
    def threads(self) -> int:
        return WARP_THREADS * self.warps

    @property
    def first_thread(self) -> int:
        return WARP_THREADS * self.first_warp

    @property
    def barrier_id(self) -> int:
        """The role's named barrier: 1 + its index (barrier 0 is the CTA's)."""
        return 1 + self.index

    @property
    def whole_warpgroups(self) -> bool:
        return self.first_warp % 4 == 0 and self.warps % 4 == 0

    def describe(self) -> str:
        last = self.first_warp + self.warps - 1
        span = f"warp {self.first_warp}" if last == self.first_warp else \
            f"warps {self.first_warp}-{last}"
        return f"role '{self.name}' ({span})"


def role_info(op, index: int) -> Role:
    """The Role of a tcgen05.role op whose attributes tcgen05-verify has checked."""
    role = RoleOp(op)
    return Role(op, role.name, role.first_warp, role.warps, index)


def enclosing_roles(kernel) -> dict:
    """Every op nested in a tcgen05.role -> that role's op (the innermost one); ops outside
    roles are absent. One walk of the kernel."""
    found: dict = {}

    def visit(op, role) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    if role is not None:
                        found[inner] = role
                    visit(inner, inner if inner.name == ROLE_OP else role)

    visit(kernel, None)
    return found


def partition_roles(partitions) -> list:
    """The tcgen05.role ops of a tcgen05.partitions, in order."""
    blocks = partitions.regions[0].blocks
    if not len(blocks):
        return []
    return [op.operation for op in blocks[0].operations if op.operation.name == ROLE_OP]


def has_partitions(kernel) -> bool:
    """Whether the kernel has a tcgen05.partitions anywhere."""
    return any(op.name == PARTITIONS_OP for op in dialect.walk_ops(kernel))


def user_synchronized(kernel):
    """The first tcgen05.partitions or tcgen05.mbarrier_arrive of `kernel` (None if it has
    neither): a kernel that writes synchronization the sync passes do not model yet
    (concurrent roles, hand-written arrivals)."""
    for op in dialect.walk_ops(kernel):
        if op.name in (PARTITIONS_OP, "tcgen05.mbarrier_arrive"):
            return op
    return None
