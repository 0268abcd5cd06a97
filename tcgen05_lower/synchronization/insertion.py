"""Turning a plan into ops: the sync ops inserted (`materialize`), the barriers that
separate the phases of one mbarrier, and the commit masks of CTA pairs."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, BarrierOp, CommitOp, CpOp, FenceOp,
                                       LdOp, LdRedOp, MbarrierWaitOp, MmaOp, OPS, ShiftOp,
                                       SmemFillOp, StOp)
from tcgen05_lower.kernel_ir import OpDict
from tcgen05_lower.synchronization.common import constant_trip_count
from tcgen05_lower.synchronization.phases import Phases
from tcgen05_lower.synchronization.planner import (Planner, describe, is_trivial,
                                                  is_user_barrier)


def materialize(kernel, planner: Planner) -> list:
    """Creates the planned ops (and their mbarriers at kernel entry); returns them in
    program order of creation."""
    entry = kernel.regions[0].blocks[0]
    actions = planner.enabled()
    used = sorted({a.barrier for a in actions
                   if a.barrier is not None and not is_user_barrier(a.barrier)})
    # A wait for a user-written commit waits on that commit's mbarrier, for the phase of
    # the most recent commit to it (tracked at run time: the commits are the user's).
    barriers = {a.barrier: a.barrier[1] for a in actions if is_user_barrier(a.barrier)}
    shared = shared_mbarriers(kernel, actions)
    if used:
        first = entry.operations[0]
        for b in used:
            if b in shared and shared[b][0] != b:
                continue
            site = planner.sites[b]
            with ir.InsertionPoint(first), site.anchor.location:
                barriers[b] = AllocMbarrierOp(AllocMbarrierOp.build(
                    result_types=[d.mbarrier_type()], count=1)).barrier
        for b, (leader, _) in shared.items():
            barriers[b] = barriers[leader]
    commits = {a.barrier: a for a in actions if a.name == "commit"}
    phases = Phases(kernel, actions)
    groups = OpDict()  # (anchor, side) -> actions (kernel_ir: why not a dict)
    for action in actions:
        groups.setdefault((action.anchor, action.side), []).append(action)
    added = []
    for (anchor, side), group in groups.items():
        point = ir.InsertionPoint(anchor) if side == "before" else \
            ir.InsertionPoint.after(anchor)
        with point, anchor.location:
            for action in group:
                cls = OPS[action.name]
                fields = dict(reason=action.reason)
                if action.barrier is not None:   # commit, mbarrier_wait
                    fields.update(barrier=barriers[action.barrier])
                if cls is MbarrierWaitOp and action.barrier in shared:
                    # The commit of this site completes phase `index` of the shared
                    # mbarrier (shared_mbarriers): parity index mod 2.
                    fields.update(phase=_i32_constant(shared[action.barrier][1] % 2))
                elif cls is MbarrierWaitOp:
                    # None: the phase is tracked at run time
                    fields.update(phase=None if is_user_barrier(action.barrier) else
                                  phases.parity(action, commits[action.barrier]))
                if action.kind is not None:      # wait, fence
                    fields.update(kind=action.kind)
                added.append(cls.build(**fields))
    return added


#: Open chains shared_mbarriers tries for each commit site (the most recently extended
#: first): a bound that keeps it linear in the kernel.
_CHAINS_TRIED = 4


def shared_mbarriers(kernel, actions: list) -> dict:
    """Commit sites that can share one mbarrier, one phase each: {site: (the site whose
    mbarrier it uses, the phase its commit completes, 0, 1, 2, ...)}; sites not in the
    dict keep an mbarrier of their own.

    A site joins a chain of sites when its commit and its waits are straight-line code of
    the kernel's entry block (each runs once, in program order, so the commits to the
    chain's mbarrier before a wait are known: the wait of the chain's site j waits for
    phase j, parity j mod 2), every wait on the chain's last site comes before its commit,
    and a barrier (planned, or one the kernel has) lies between the last of those waits
    and its commit. The barrier is the rule separate_phases keeps for one mbarrier: every
    thread has passed its wait for phase j before phase j + 1 can complete, so no thread
    sees two phases complete and waits for a third that never comes (try_wait.parity,
    PTX ISA 9.7.13.15.16). Only cta_group::1 kernels share: a barrier orders the threads of
    one CTA, and a pair's commits also signal the peer CTA's mbarriers. Cost: a sort of the
    sites and, per site, a few chains each checked with a binary search."""
    import bisect

    if d.kernel_info(kernel).cta_group != 1:
        return {}
    entry = kernel.regions[0].blocks[0]
    position = OpDict((op.operation, i) for i, op in enumerate(entry.operations))

    def key(action, seq):
        # Program order at the top level of the entry block: the actions before an op,
        # the op, the actions after it; actions at one position in their order.
        at = position.get(action.anchor)
        return None if at is None else (at, 0 if action.side == "before" else 2, seq)

    commit_at, waits_at, barriers = {}, {}, []
    for seq, action in enumerate(actions):
        if action.barrier is not None and is_user_barrier(action.barrier):
            continue
        where = key(action, seq)
        if action.name == "commit":
            # A second commit to one site, or one not in straight-line code: not shared.
            commit_at[action.barrier] = None if action.barrier in commit_at else where
        elif action.name == "mbarrier_wait":
            waits_at.setdefault(action.barrier, []).append(where)
        elif action.name == "barrier" and where is not None:
            barriers.append(where)
    for op in entry.operations:
        if d.op_name(op.operation) == "barrier":
            barriers.append((position[op.operation], 1, 0))
    barriers.sort()
    sites = sorted((where, b) for b, where in commit_at.items()
                   if where is not None and waits_at.get(b)
                   and all(w is not None and w > where for w in waits_at[b]))
    # Chains are [[sites...], last wait of the last site]; the open ones (at most
    # _CHAINS_TRIED, the most recently extended first) may still grow.
    open_chains: list[list] = []
    closed: list[list] = []
    for where, b in sites:
        joined = None
        for chain in open_chains:
            if chain[1] >= where:
                continue
            after = bisect.bisect_right(barriers, chain[1])
            if after < len(barriers) and barriers[after] < where:
                joined = chain
                break
        if joined is None:
            joined = [[], None]
            if len(open_chains) == _CHAINS_TRIED:
                closed.append(open_chains.pop())
        else:
            open_chains.remove(joined)
        joined[0].append(b)
        joined[1] = max(waits_at[b])
        open_chains.insert(0, joined)
    shared = {}
    for members, _ in closed + open_chains:
        if len(members) > 1:
            shared.update((b, (members[0], j)) for j, b in enumerate(members))
    return shared


def _i32_constant(value: int):
    i32 = ir.IntegerType.get_signless(32)
    return ir.Operation.create("arith.constant", results=[i32],
                               attributes={"value": ir.IntegerAttr.get(i32, value)}
                               ).results[0]


#: %cluster_ctarank bits of both CTAs of a pair (9.7.16.5.1).
BOTH_CTAS = 0b11
#: Ops of a pair kernel that run in both CTAs and may need single-thread work complete.
_BOTH_CTA_CONSUMERS = (LdOp.NAME, LdRedOp.NAME, StOp.NAME, SmemFillOp.NAME, "dealloc")
#: Ops the pass inserts around a consumer (the consumer is the next op that is none).
_SYNC_NAMES = ("commit", "mbarrier_wait", "wait", "fence", "fence_proxy_async", "barrier")


def choose_commit_masks(kernel, added: list) -> None:
    """The ``multicast_mask`` of every commit added to a cta_group::2 kernel: which CTAs'
    mbarriers it arrives at (9.7.16.12.1), i.e. which CTAs wait for it (lowering.sync).

    Mask 0b11 (both CTAs) unless every wait on the commit's mbarrier serves a
    single-thread consumer (mma, cp, shift: issued in the even CTA, Table 46) and nothing
    that runs in both CTAs relies on those waits: then the plain commit, which arrives at
    the issuing CTA's mbarrier only. The planning walk counts a completion as seen by
    every thread, so the second condition is checked here, conservatively: each wait sits
    in the kernel's body (no loop or branch around it), and before any later op that runs
    in both CTAs there is a commit to both CTAs, a wait on it and
    tcgen05.fence::after_thread_sync (that commit covers everything the thread issued
    before, the producers of the narrowed commit included)."""
    if d.kernel_info(kernel).cta_group != 2:
        return
    commits = [op for op in added if CommitOp.matches(op)]
    waits: dict = {}
    for op in added:
        if MbarrierWaitOp.matches(op):
            waits.setdefault(op.operands[0], []).append(op)
    body = kernel.regions[0].blocks[0]
    narrow = {c.operands[0] for c in commits
              if waits.get(c.operands[0])
              and all(w.block == body and _serves_single_thread_only(w)
                      for w in waits[c.operands[0]])}
    ops = [op.operation for op in body.operations]
    # Commits to both CTAs: those added and not narrowed, and the program's own whose
    # mask names both.
    to_both = {op.operands[0] for op in d.walk_ops(kernel) if CommitOp.matches(op)
               and (CommitOp(op).multicast_mask or 0) & BOTH_CTAS == BOTH_CTAS}
    to_both |= {c.operands[0] for c in commits} - narrow
    unsafe = {b for b in narrow
              if not all(_both_ctas_ordered_after(w, ops, to_both) for w in waits[b])}
    for commit in commits:
        if commit.operands[0] not in narrow - unsafe:
            CommitOp(commit).multicast_mask = BOTH_CTAS


def _serves_single_thread_only(wait) -> bool:
    """Whether the consumer the wait was inserted for (the next op that is neither
    inserted nor index arithmetic) is a single-thread op."""
    found = False
    for op in wait.block.operations:
        op = op.operation
        if found and not is_trivial(op) and d.op_name(op) not in _SYNC_NAMES:
            return d.op_name(op) in (MmaOp.NAME, CpOp.NAME, ShiftOp.NAME)
        found = found or op == wait
    return False


def _both_ctas_ordered_after(wait, ops: list, to_both: set) -> bool:
    """Whether every op after `wait` in the kernel's body that runs in both CTAs is
    preceded, after `wait`, by a commit to both CTAs (`to_both`: its mbarriers), a wait
    on it and a fence::after_thread_sync (see choose_commit_masks)."""
    waited = False
    for op in ops[ops.index(wait) + 1:]:
        name = d.op_name(op)
        if name == "mbarrier_wait" and op.operands[0] in to_both:
            waited = True
        elif name == "fence" and FenceOp(op).kind == "after_thread_sync" and waited:
            return True
        if any(d.op_name(x) in _BOTH_CTA_CONSUMERS for x in [op, *d.walk_ops(op)]):
            return False
    return True


def separate_phases(kernel) -> list:
    """Adds a barrier before every commit that may follow a wait on the same mbarrier
    with no barrier in between (see "mbarriers" in the module docstring). Loops are
    walked twice, the second time with what the first left pending at the end."""
    added = []

    def walk(block, waited: frozenset, insert: bool) -> frozenset:
        # `waited`: the mbarriers some thread may still be waiting on since the last barrier.
        for op in list(block.operations):
            op = op.operation
            name = d.op_name(op)
            if op.name == "scf.for":
                body = op.regions[0].blocks[0]
                trips = constant_trip_count(op)
                if trips == 0:
                    continue
                last = walk(body, waited, insert and trips == 1)
                if trips != 1:  # the next iteration starts with what this one left
                    last = walk(body, waited | last, insert)
                # A loop that may run no iteration leaves what came before it, too.
                waited = last if trips is not None and trips >= 1 else waited | last
            elif op.name == "scf.while":
                # before, (after, before)*: settle what an iteration leaves pending, then
                # walk both blocks once more from there (inserting, if asked).
                before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
                start = waited
                while True:
                    again = start | walk(after, walk(before, start, False), False)
                    if again == start:
                        break
                    start = again
                exit_waited = walk(before, start, insert)
                walk(after, exit_waited, insert)
                waited = exit_waited
            elif len(op.regions):
                result = waited
                for region in op.regions:
                    for inner in region.blocks:
                        result = result | walk(inner, waited, insert)
                waited = result
            elif name == "mbarrier_wait":
                waited = waited | {op.operands[0]}
            elif name == "barrier":
                waited = frozenset()
            elif name == "commit" and op.operands[0] in waited:
                if insert:
                    with ir.InsertionPoint(op), op.location:
                        added.append(BarrierOp.build(
                            reason=f"every thread has passed its wait on this mbarrier "
                                   f"before {describe(op)} completes its next phase"))
                waited = frozenset()
        return waited

    walk(kernel.regions[0].blocks[0], frozenset(), True)
    return added
