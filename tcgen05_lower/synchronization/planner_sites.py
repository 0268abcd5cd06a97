"""Where the chosen ops go: commits planned per asynchronous op, the sites of the
inserted ops and their order in a block, the completion of loads, and the effect of each
action on the ordering state."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import StOp
from tcgen05_lower.kernel_ir import OpDict, defining_op
from tcgen05_lower.synchronization.accesses import Access, access_of
from tcgen05_lower.synchronization.actions import Action, Site, describe, project
from tcgen05_lower.synchronization.common import GENERIC, ISSUER, LOADS, WARPGROUP, is_nested_in
from tcgen05_lower.synchronization.state import Status, UNKNOWN_LOOP, conflict, requirement


class PlannerSites:
    """Sites and effects of the chosen ops. A part of the one-program planner
    (planner.Planner), which composes it: reads and updates the walk's state."""

    def plan_commits(self, consumer, issuer: list, state: dict, reason):
        """The mbarriers to wait on so that `issuer` (statuses) complete, planning a new
        commit when no commit covers them without also covering later work they do not
        need. Returns (state with the new commit's coverage, [(barrier, statuses)])."""
        needed = {s.access.op for s in issuer}
        latest = max(s.stamp for s in issuer)

        def over_waits(barrier) -> bool:
            # Waiting on it would also wait for unfinished work issued after the last
            # producer this consumer needs.
            return any(barrier in s.covered and not s.complete and op not in needed
                       and s.access.cls == ISSUER and s.stamp > latest
                       for op, s in state.items())

        common = frozenset.intersection(*(s.covered for s in issuer))
        usable = sorted((b for b in common if not over_waits(b)), key=str)
        if usable:
            return state, [(usable[0], list(issuer))]
        barrier, covered, anchor = self.new_site(consumer, issuer, state, reason)
        state = dict(state)
        for op in covered:
            status = state[op]
            state[op] = status.evolve(covered=status.covered | {barrier})
        waits = [(barrier, [s for s in issuer if s.access.op in covered])]
        remaining = [s for s in issuer if s.access.op not in covered]
        while remaining:  # the fewest mbarriers whose commits cover the rest
            counts: dict = {}
            for s in remaining:
                for b in s.covered:
                    counts[b] = counts.get(b, 0) + 1
            best = max(counts, key=lambda b: (counts[b], str(b)))
            waits.append((best, [s for s in remaining if best in s.covered]))
            remaining = [s for s in remaining if best not in s.covered]
        return state, waits

    def new_site(self, consumer, pending: list, state: dict, reason):
        """Plans a commit after the producers in `pending`, in the consumer's block.
        Returns (mbarrier, the ops it covers as the consumer sees them, its anchor)."""
        block, entry_step, loop = self.blocks[-1]
        forward = [s for s in pending if s.stamp > entry_step]
        issuer = {op: s for op, s in state.items() if s.access.cls == ISSUER}
        if forward or loop is None:
            # Right after the last one this consumer needs: later work stays in flight.
            last = max(forward or pending, key=lambda s: s.stamp)
            anchor = project(last.access.op, block)
            covered = {op for op, s in issuer.items()
                       if s.stamp <= last.stamp or project(op, block) == anchor}
            carried = False
        else:
            # Loop-carried: after the last op of the body that some op of the body needs
            # in the next iteration, so that one commit serves all of them.
            order = self.block_order(block)
            anchor = max([project(s.access.op, block) for s in pending] +
                         self.tail(loop, block), key=lambda o: order[o])
            covered = {op for op, s in issuer.items()
                       if s.stamp <= entry_step and is_nested_in(op, loop)
                       and order[project(op, block)] <= order[anchor]}
            carried = True
        barrier = self.site_at(anchor)
        text = reason("completion of", [s for s in pending if s.access.op in covered])
        if not any(self.actions[i].name == "commit" and self.actions[i].barrier == barrier
                   for i in self.positions.get((anchor, "after"), ())):
            index = self.add((anchor, "after"), "commit", None, text, barrier)
            if carried:  # the walk reaches it later in this iteration
                self.hooks.setdefault((anchor, "after"), []).append(index)
        return barrier, covered, anchor

    def tail(self, loop, block) -> list:
        """The last op of the body that issues a single-thread op which an op at or
        before it in the body depends on (in the next iteration), as a list of 0 or 1."""
        if loop in self.tail_cache:
            return self.tail_cache[loop]
        ops = [op.operation for op in block.operations]
        seen: list = []
        last = None
        for op in ops:
            inner = [op] + list(d.walk_ops(op))
            accesses = [a for a in (access_of(x, self.buffers) for x in inner)
                        if a is not None]
            seen.extend(accesses)
            for a in accesses:
                if a.cls != ISSUER:
                    continue
                probe = Status(a, -1.0, UNKNOWN_LOOP)
                if any(conflict(probe, b) is not None and requirement(a, b) is not None
                       for b in seen):
                    last = op
        self.tail_cache[loop] = [last] if last is not None else []
        return self.tail_cache[loop]

    def site_at(self, anchor) -> int:
        """The mbarrier of the commit site right after `anchor` (made on first use)."""
        barrier = self.site_of.get(anchor)
        if barrier is None:
            barrier = len(self.sites)
            self.sites.append(Site(barrier, anchor))
            self.site_of[anchor] = barrier
        return barrier

    def block_order(self, block) -> dict:
        """Position of each op of `block`."""
        order = self.order_cache.get(block)
        if order is None:
            order = OpDict((op.operation, i) for i, op in enumerate(block.operations))
            self.order_cache[block] = order
        return order

    def plan_completion(self, op, access: Access, inside_while: bool = False) -> None:
        """Completes `op` right after it is issued: every op under strategy conservative;
        under minimal, the ops inside an scf.while, as candidates that prune_kernel drops
        when no dependence needs them."""
        text = f"conservative: completion of {describe(op)} right after it"
        if inside_while:
            text = f"completion of {describe(op)} right after it, inside scf.while"
        if access.cls == ISSUER:
            barrier = self.site_at(op)
            steps = [("commit", None, barrier), ("mbarrier_wait", None, barrier),
                     ("fence", "after_thread_sync", None)]
        elif access.cls == WARPGROUP:
            steps = [("wait", "st" if access.name == StOp.NAME else "ld", None)]
        else:
            steps = [("fence_proxy_async", None, None), ("barrier", None, None)]
        for name, kind, barrier in steps:
            index = self.add((op, "after"), name, kind, text, barrier,
                             speculative=inside_while)
            self.hooks.setdefault((op, "after"), []).append(index)

    def add(self, position, name: str, kind, reason: str, barrier,
            speculative: bool = False) -> int:
        """Plans one op at `position`; returns its index."""
        anchor, side = position
        self.actions.append(Action(anchor, side, name, kind, reason, barrier, speculative))
        index = len(self.actions) - 1
        self.positions.setdefault(position, []).append(index)
        return index

    def apply_hooks(self, op, side: str, state: dict) -> dict:
        """Applies the planned ops at (op, side) that the walk must see there (every one, in a check walk)."""
        table = self.positions if self.checking else self.hooks
        for index in table.get((op, side), ()):
            if index in self.disabled:
                continue
            action = self.actions[index]
            state = self.effect(action.name, action.kind, action.barrier, state)
        return state

    def effect(self, name: str, kind, barrier, state: dict, only=None) -> dict:
        """What a sync op does to the work in flight: each acts on every earlier op of
        its class (9.7.16.6.2.1, 9.7.16.11.1, 9.7.16.6.3); with `only`, on those ops."""
        new = {}
        for op, s in state.items():
            if only is not None and op not in only:
                new[op] = s
                continue
            cls = s.access.cls
            if name == "commit" and cls == ISSUER:
                s = s.evolve(covered=s.covered | {barrier})
            elif name == "mbarrier_wait" and barrier in s.covered:
                s = s.evolve(complete=True)
            elif name == "wait" and cls == WARPGROUP and \
                    (s.access.name == "st") == (kind == "st"):
                s = s.evolve(complete=True)
            elif name == "fence" and kind == "before_thread_sync" and cls == WARPGROUP \
                    and s.complete:
                s = s.evolve(released=True)
            elif name == "fence_proxy_async" and cls == GENERIC:
                s = s.evolve(proxied=True)
            elif name == "barrier" and (s.released or s.proxied):
                s = s.evolve(synced=True)
            elif name == "fence" and kind == "after_thread_sync" and \
                    (cls == ISSUER and s.complete or cls == WARPGROUP and s.synced):
                s = s.evolve(acquired=True)
            new[op] = s
        if self.checking:
            new = {op: s for op, s in new.items() if not s.done()}
        return new

    def mark_fragment_uses(self, op, state: dict) -> dict:
        """A read of the registers a tcgen05.ld wrote: ordered after the load by the true
        register dependency (9.7.16.6.4.5), and re-issuing the load no longer races it."""
        changed = None
        for operand in op.operands:
            owner = defining_op(operand)
            status = state.get(owner) if owner is not None else None
            if status is not None and not status.consumed and status.access.name in LOADS:
                changed = changed if changed is not None else dict(state)
                changed[owner] = status.evolve(consumed=True)
        return changed if changed is not None else state
