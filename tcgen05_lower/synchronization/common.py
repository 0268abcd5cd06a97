"""What the synchronization modules share: the classes of asynchronous ops, the ordering
levels, and small helpers about ops, loops and constants."""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import int_value, ir
from tcgen05_lower.dialect.ops import (CpOp, LdOp, LdRedOp, MmaOp, ShiftOp, SmemFillOp,
                                       StOp, WaitOp, wrap)
from tcgen05_lower.kernel_ir import defining_op


STRATEGIES = ("minimal", "conservative")

#: Async op classes: issued by one thread and completed through commit -> mbarrier
#: (9.7.16.6.2.1.1), issued by the warpgroup and completed through tcgen05.wait
#: (9.7.16.6.2.1.2), and generic-proxy shared-memory writes (9.7.16.6.5).
ISSUER, WARPGROUP, GENERIC = "issuer", "warpgroup", "generic"
ASYNC_OPS = MappingProxyType({MmaOp.NAME: ISSUER, CpOp.NAME: ISSUER, ShiftOp.NAME: ISSUER,
                              LdOp.NAME: WARPGROUP, LdRedOp.NAME: WARPGROUP,
                              StOp.NAME: WARPGROUP, SmemFillOp.NAME: GENERIC})
#: The ops whose completion tcgen05.wait::ld waits for (9.7.16.8.5).
LOADS = (LdOp.NAME, LdRedOp.NAME)

#: Lane halves of a 32-lane quarter: bit 0 = lanes 0-15, bit 1 = lanes 16-31.
ALL_LANES = 0b11
#: Columns of "anything" (an unplanned buffer, a value the pass cannot trace).
EVERYWHERE = (0, 1 << 30)

#: Ops that cost nothing to wait behind (used to place loop-carried waits).
TRIVIAL_DIALECTS = ("arith", "index", "math")
TRIVIAL_OPS = ("llvm.getelementptr", "llvm.mlir.constant", "llvm.mlir.zero",
               "llvm.mlir.undef", "scf.yield")

#: Required ordering levels, weakest first.
NEED_COMPLETE, NEED_SYNCED, NEED_ACQUIRED = "complete", "synced", "acquired"


def is_nested_in(op, ancestor) -> bool:
    """Whether `op` lies in a region of `ancestor`, at any depth."""
    parent = enclosing_op(op)
    while parent is not None:
        if parent == ancestor:
            return True
        parent = enclosing_op(parent)
    return False


def enclosing_op(op):
    """The op whose region holds `op` (None at the top)."""
    parent = op.parent
    return parent.operation if parent is not None and hasattr(parent, "operation") \
        else parent


def kind_of(op) -> str | None:
    """The ``kind`` of a tcgen05 op whose op has one (wait, fence; mma), else None."""
    typed = wrap(op)
    if typed is None or not typed.declares(WaitOp.kind):
        return None
    return typed.get(WaitOp.kind)


def constant_value(value) -> int | None:
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.IntegerAttr):
        return int_value(attr)
    if isinstance(attr, ir.BoolAttr):
        return int(ir.BoolAttr(attr).value)
    return None


def constant_trip_count(loop) -> int | None:
    """Trip count of an scf.for with constant bounds and step, else None."""
    lb, ub, step = (constant_value(loop.operands[i]) for i in range(3))
    if None in (lb, ub, step) or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


class SyncError(Exception):
    """A construct the pass does not support, reported at `op`."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


#: Ops a kernel writes when it synchronizes its warp roles itself (then tcgen05-insert-sync's
#: minimal and conservative strategies refuse it; strategy=none keeps it).
WRITTEN_SYNC = ("mbarrier_wait", "mbarrier_arrive", "mbarrier_expect_tx", "commit",
                "fence", "fence_proxy_async", "wait", "barrier")


def role_accesses(roles, producer: str, check):
    """(producers, mmas, lds): the roles' ops named `producer` (what fills the tiles the
    MMAs read), their tcgen05.mma and their tcgen05.ld, each as (role, op) in program
    order. `check(role, op, name)` sees every op first and raises SyncError for one the
    plan cannot take. One walk of the roles."""
    found = {producer: [], MmaOp.NAME: [], LdOp.NAME: []}
    for role in roles:
        for op in d.walk_ops(role.op):
            name = d.op_name(op)
            check(role, op, name)
            if name in found:
                found[name].append((role, op))
    return found[producer], found[MmaOp.NAME], found[LdOp.NAME]
