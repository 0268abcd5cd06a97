"""What a dependence needs: whether an earlier access is still ordered before a later
one, what a region or a dealloc needs, and the canonical pattern (commit, mbarrier wait,
tcgen05.wait, fences, barrier) that resolves each need."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import StOp, TmaLoadOp
from tcgen05_lower.synchronization.accesses import Access, access_of, tma_access
from tcgen05_lower.synchronization.actions import (Unordered, describe, first_needs, issues_async,
                                                   next_nontrivial, producers_of, project)
from tcgen05_lower.synchronization.common import (ASYNC_OPS, GENERIC, ISSUER, LOADS, NEED_ACQUIRED,
                                                  NEED_COMPLETE, WARPGROUP, is_nested_in)
from tcgen05_lower.synchronization.state import conflict, level_rank, requirement, satisfied


class PlannerNeeds:
    """Dependences and the patterns that order them. A part of the one-program planner
    (planner.Planner), which composes it: reads and updates the walk's state."""

    def still_ordered(self, loop, state: dict, planned_exit: dict) -> bool:
        """Whether, without the disabled actions, a check walk of `loop` from `state` meets every need and leaves a state no weaker than `planned_exit`."""
        saved = (self.checking, self.step, list(self.blocks))
        self.checking = True
        try:
            exit_state = self.visit(loop, state)
        except Unordered:
            return False
        finally:
            self.checking, self.step, self.blocks = saved
        # An op missing from a state is one nothing can need any more (the strongest).
        return all(op in planned_exit and s.at_least(planned_exit[op])
                   for op, s in exit_state.items())

    def needs(self, state: dict, access: Access, op) -> list:
        """(status, level, dependence) for every in-flight op that `op` depends on."""
        out = []
        for key, status in state.items():
            if key == op and access.name in LOADS:
                # 9.7.16.6.4.5: this load writes the same registers again.
                if not status.complete and not status.consumed:
                    out.append((status, NEED_COMPLETE,
                                "its destination registers are written again"))
                continue
            dependence = conflict(status, access)
            if dependence is None:
                continue
            level = requirement(status.access, access)
            if level is not None:
                out.append((status, level, dependence))
        return out

    def region_needs(self, state: dict, region_op) -> list:
        """The needs of every op inside `region_op` on the work in flight before it."""
        if not state:
            return []
        found: dict = {}
        for inner in d.walk_ops(region_op):
            name = d.op_name(inner)
            if name == "dealloc":
                items = self.dealloc_needs(state)
            elif name in ASYNC_OPS:
                items = self.needs(state, access_of(inner, self.buffers), inner)
            elif name == TmaLoadOp.NAME:
                items = self.needs(state, tma_access(inner), inner)
            else:
                continue
            for status, level, dependence in items:
                old = found.get(status.access.op)
                if old is None or level_rank(level) > level_rank(old[1]):
                    found[status.access.op] = (status, level, dependence)
        return list(found.values())

    def dealloc_needs(self, state: dict) -> list:
        """What tcgen05.dealloc needs: every TMEM access ordered before it."""
        return [(s, NEED_ACQUIRED, "TMEM accesses before the columns are freed")
                for s in state.values() if s.access.cls != GENERIC]

    def resolve(self, consumer, state: dict, items: list) -> dict:
        """Plans the missing steps of the needs in `items` (and the commits they need),
        right before `consumer` or, for loop-carried needs, possibly at the end of the
        body; returns the state at `consumer` after them."""
        needs: dict = {}
        for status, level, dependence in items:
            if not satisfied(status, level):
                needs[status.access.op] = (status, level, dependence)
        if not needs:
            return state
        if self.checking:
            raise Unordered()
        block, entry_step, loop = self.blocks[-1]
        region_entry = len(consumer.regions) > 0
        statuses = [s for s, _, _ in needs.values()]
        carried = loop is not None and all(s.stamp <= entry_step and
                                           is_nested_in(s.access.op, loop) for s in statuses)
        speculative = region_entry or any(s.stamp <= entry_step for s in statuses)
        end = self.end_of_body(block, loop, statuses) if carried else None

        def reason(what, group):
            # "completion of <producers> before <consumer>: <dependences>"
            deps = sorted({needs[s.access.op][2] for s in group if s.access.op in needs})
            text = f"{what} {producers_of(group)} before {describe(consumer)}: " + \
                "; ".join(deps)
            return text + (" (next iteration)" if carried else "")

        new = dict(state)
        group: list = []  # (name, kind, reason, barrier)
        for kind, names in (("st", (StOp.NAME,)), ("ld", LOADS)):
            pending = [s for s in statuses if s.access.name in names and not s.complete]
            if pending:
                group.append(("wait", kind, reason("completion of", pending), None))
        issuer = [s for s in statuses if s.access.cls == ISSUER and not s.complete]
        if issuer:
            new, waits = self.plan_commits(consumer, issuer, new, reason)
            anchors = [project(self.sites[b].anchor, block) if isinstance(b, int) else None
                       for b, _ in waits]
            if end is not None and any(a is None or self.issues_after(block, a)
                                       for a in anchors):
                # The last iteration's commit would not cover everything the code after
                # the loop needs: the wait there would not spare a second one.
                end = None
            for barrier, waited in waits:
                group.append(("mbarrier_wait", None, reason("completion of", waited),
                              barrier))
        if region_entry:
            # What a check walk of the region starts from: the commits planned for it are
            # in place (they sit after earlier ops), the ops of this group are not.
            self.prescan_state[consumer] = new
        acquire = [s for s, level, _ in needs.values()
                   if level == NEED_ACQUIRED and s.access.cls != GENERIC
                   and not new.get(s.access.op, s).acquired]
        warpgroup = [s for s in acquire if s.access.cls == WARPGROUP]
        generic = [s for s in statuses if s.access.cls == GENERIC]
        release = [s for s in warpgroup if not s.released]
        proxy = [s for s in generic if not s.proxied]
        sync = [s for s in warpgroup + generic if not s.synced]
        if release:
            group.append(("fence", "before_thread_sync", reason("completion of", release),
                          None))
        if proxy:
            group.append(("fence_proxy_async", None, reason("completion of", proxy), None))
        if sync:
            group.append(("barrier", None, reason("completion of", sync), None))
        if acquire:
            group.append(("fence", "after_thread_sync", reason("completion of", acquire),
                          None))
        position = (end, "before") if end is not None else (consumer, "before")
        # At the end of the body the group acts, as this iteration sees it, on the work of
        # the previous iteration only; the walk applies it again when it gets there.
        only = set(needs) if end is not None else None
        for name, kind, text, barrier in group:
            index = self.add(position, name, kind, text, barrier, speculative)
            if end is not None:
                self.hooks.setdefault(position, []).append(index)
            new = self.effect(name, kind, barrier, new, only)
        return {op: s for op, s in new.items() if not s.done()}

    def end_of_body(self, block, loop, statuses):
        """Where a loop-carried need is met instead of right before its consumer: at the
        end of the body, when the first thing after the loop needs the same work
        complete. The last iteration's waits then serve the code after the loop too, so
        no second wait is needed there (when only index arithmetic precedes the consumer
        in the body, that is also the same moment). None otherwise."""
        after = next_nontrivial(loop)
        if after is None or not first_needs(after, statuses, self.buffers):
            return None
        ops = [op.operation for op in block.operations]
        return ops[-1]  # the scf.yield: the group goes right before it

    def issues_after(self, block, anchor) -> bool:
        """Whether an op of `block` after `anchor` issues single-thread work."""
        order = self.block_order(block)
        return any(order[op.operation] > order[anchor] and issues_async(op.operation)
                   for op in block.operations)
