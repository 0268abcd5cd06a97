"""Branches of a role whose condition tcgen05-verify-sync cannot evaluate (a warp's vote,
tcgen05.frag_vote: FlashAttention-4's conditional rescaling corrects O only where a
warp's running maxima grew).

Such a branch is traced as taken, every alternative one after the other, when no run
that takes or skips it can be ordered differently from that trace:

- it holds no synchronization op (mbarrier arrive, expect_tx or wait, commit, fences,
  the role's barrier, TMA loads, whose complete_tx arrives): the ordering between roles
  is then the same on every path, and what a path skips is only accesses, each pair of
  which the trace checks (a path's accesses are a subset of the trace's);
- a tcgen05.wait in it is followed, directly after the branch (before any other tcgen05
  op of the block), by the same waits outside it, and the branch has one alternative:
  a run that skips the branch then completes the loads and stores issued before it at
  the same point of the role's order as the trace does (9.7.16.6.4.2: the wait completes
  every prior load / store of the thread), and no op of another alternative sits after
  the wait in the trace;
- it yields no value.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import WaitOp

#: tcgen05 ops that synchronize (or, tma_load, arrive on an mbarrier).
_SYNC = ("mbarrier_wait", "mbarrier_arrive", "mbarrier_expect_tx", "commit", "fence",
         "fence_proxy_async", "barrier", "tma_load")


def unknown_branch_problem(op, blocks) -> str | None:
    """Why the branch `op` (its alternatives `blocks`, None for an absent one) cannot be
    traced as taken (module docstring), or None."""
    if len(op.results):
        return "the branch yields values"
    waits = set()
    for block in blocks:
        for inner in _walk(block):
            name = d.op_name(inner)
            if name in _SYNC:
                return f"its branch holds tcgen05.{name}"
            if name == "wait":
                waits.add(WaitOp(inner).kind)
    if not waits:
        return None
    if sum(1 for block in blocks if block is not None and _has_ops(block)) > 1:
        return "a tcgen05.wait sits in one of several alternatives"
    return _followed_by(op, waits)


def _followed_by(op, waits: set) -> str | None:
    """None when the ops after `op` in its block begin, before any other tcgen05 op or
    region op, with a tcgen05.wait of each kind in `waits`."""
    missing = set(waits)
    block_ops = [o.operation for o in op.operation.block.operations]
    for after in block_ops[block_ops.index(op.operation) + 1:]:
        if not missing:
            return None
        name = d.op_name(after)
        if name == "wait" and WaitOp(after).kind in missing:
            missing.discard(WaitOp(after).kind)
            continue
        if name is not None or len(after.regions):
            break
    if not missing:
        return None
    kinds = " and ".join(f"tcgen05.wait::{k}" for k in sorted(missing))
    return (f"it holds {kinds} without the same wait directly after the branch (a run "
            f"that skips it would leave the loads or stores before it in flight where the "
            f"trace has them complete)")


def _walk(block):
    if block is None:
        return
    for inner in block.operations:
        inner = inner.operation
        yield inner
        for region in inner.regions:
            for nested in region.blocks:
                yield from _walk(nested)


def _has_ops(block) -> bool:
    """Whether `block` does more than end (its terminator)."""
    return len(block.operations) > 1
