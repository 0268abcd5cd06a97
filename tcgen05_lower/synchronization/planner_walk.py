"""The planner's walk: ops in program order, asynchronous ops, region ops, scf.for and
scf.while (iterated to a fixed point through their back edges), and the pruning of what
no dependence needs once the walk is done."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import FragMapOp, TmaLoadOp
from tcgen05_lower.kernel_ir import OpDict
from tcgen05_lower.synchronization.accesses import access_of, tma_access
from tcgen05_lower.synchronization.actions import Unordered, project, run_continues, same_effects
from tcgen05_lower.synchronization.common import (ASYNC_OPS, SyncError, constant_trip_count,
                                                  is_nested_in, kind_of)
from tcgen05_lower.synchronization.state import Status, UNKNOWN_LOOP, join, same_loop, same_state


class PlannerWalk:
    """Walking the kernel. A part of the one-program planner (planner.Planner), which composes
    it: reads and updates the walk's state."""

    def walk_block(self, block, state: dict, loop) -> dict:
        """Walks the ops of `block` (the body of `loop`, or of no loop) from `state`."""
        self.step += 1
        self.blocks.append((block, self.step, loop))
        try:
            for op in block.operations:
                state = self.visit(op.operation, state)
        finally:
            self.blocks.pop()
        return state

    def visit(self, op, state: dict) -> dict:
        """The state after `op`, planning what it needs first."""
        self.step += 1
        state = self.apply_hooks(op, "before", state)
        name = d.op_name(op)
        # A tcgen05.frag_map's body is per-element arithmetic, no control flow: the op
        # reads its input fragments' registers, nothing else.
        if len(op.regions) and not FragMapOp.matches(op):
            state = self.visit_region_op(op, state)
        elif name in ASYNC_OPS:
            state = self.visit_async(op, state)
        elif name == TmaLoadOp.NAME:
            # A refill: the reads of its tile in flight complete first (9.7.16.6.5).
            state = self.resolve(op, state, self.needs(state, tma_access(op), op))
        elif name == "dealloc":
            state = self.resolve(op, state, self.dealloc_needs(state))
        elif name in ("commit", "mbarrier_wait", "wait", "fence", "fence_proxy_async",
                      "barrier"):
            barrier = ("user", op.operands[0]) if name in ("commit", "mbarrier_wait") \
                else None
            state = self.effect(name, kind_of(op), barrier, state)
        state = self.mark_fragment_uses(op, state)
        self.step += 1
        return self.apply_hooks(op, "after", state)

    def visit_async(self, op, state: dict) -> dict:
        """Plans what an asynchronous op needs, then records it as in flight."""
        access = access_of(op, self.buffers)
        older = state.get(op)
        if older is not None and older.access != access:
            # The newest instance stands for the older one, which touched other cells
            # (an iteration argument bound in a first iteration): every cell it can.
            access = access_of(op)
        state = self.resolve(op, state, self.needs(state, access, op))
        if self.strategy == "conservative" and not self.checking:
            self.plan_completion(op, access)
        elif self.inside_while and not self.checking and \
                not run_continues(op, access, self.buffers):
            self.plan_completion(op, access, inside_while=True)
        new = {}
        also: tuple = ()
        for key, status in state.items():
            if key == op:
                continue
            if status.access.name == access.name and same_effects(status.access, access):
                # Every sync op acts on all earlier ops, so this op is never further along
                # than an earlier one with the same effects: it stands for both.
                also += tuple(o for o in (*status.also, key) if o not in also)
                continue
            new[key] = status
        new[op] = Status(access, self.step, None, also=also)
        return new

    def visit_region_op(self, op, state: dict) -> dict:
        """Plans what the ops inside `op` need of earlier work, then walks its regions."""
        # Dependences between work issued before the region and anything inside it are
        # ordered once, before the region op (a check walk looks at the ops inside).
        if not self.checking:
            state = self.resolve(op, state, self.region_needs(state, op))
        if op.name == "scf.for":
            return self.visit_for(op, state)
        if op.name == "scf.while":
            self.prescan_state.pop(op, None)
            return self.visit_while(op, state)
        if op.name in ("scf.if", "scf.index_switch"):
            # One of the regions runs; an scf.if without else may run none.
            self.prescan_state.pop(op, None)
            ends = [self.walk_block(region.blocks[0], state, None)
                    for region in op.regions if len(region.blocks)]
            if op.name == "scf.if" and len(ends) < 2:
                ends.append(state)
            out = ends[0]
            for end in ends[1:]:
                out = join(out, end)
            return out
        if any(d.op_name(inner) in ASYNC_OPS or d.op_name(inner) == "dealloc"
               for inner in d.walk_ops(op)):
            raise SyncError(op, f"'{op.name}' around tcgen05 operations is not supported "
                                f"by tcgen05-insert-sync (it follows scf.for, scf.while, "
                                f"scf.if and scf.index_switch)")
        return state

    def visit_for(self, loop, state: dict) -> dict:
        """Plans a loop (see "Placement" in the module docstring) and returns the state after it."""
        if self.checking:
            return self.check_for(loop, state)
        pre = state
        entry_step = self.step
        prescan = [i for i in self.positions.get((loop, "before"), ())
                   if self.actions[i].speculative]
        trips = constant_trip_count(loop)
        if trips is not None and trips <= 1:
            # No iteration follows another: nothing is loop-carried (and a body that never
            # runs needs nothing).
            self.prescan_state.pop(loop, None)
            if trips == 0:
                return pre
            return self.after_loop(loop, self.walk_block(loop.regions[0].blocks[0], pre,
                                                         loop), entry_step)
        # First walk: as if there were no earlier iteration. What it leaves unordered at
        # the end of the body is what the next iteration starts with.
        snap = self.snapshot()
        end = self.walk_block(loop.regions[0].blocks[0], pre, loop)
        self.rollback(snap)
        assumed = self.back_edge(end, loop)
        for _ in range(3):
            snap = self.snapshot()
            end = self.walk_block(loop.regions[0].blocks[0], join(pre, assumed), loop)
            carried = self.back_edge(end, loop)
            if all(op not in carried or carried[op].at_least(s)
                   for op, s in assumed.items()):
                break
            self.rollback(snap)
            assumed = join(assumed, carried)
        else:
            # No fixed point: assume the previous iteration left everything unordered.
            snap = self.snapshot()
            assumed = {op: Status(s.access, -1.0, loop, also=s.also)
                       for op, s in assumed.items()}
            end = self.walk_block(loop.regions[0].blocks[0], join(pre, assumed), loop)
        exit_state = self.loop_exit(loop, pre, end, trips)
        exit_state = self.after_loop(loop, exit_state, entry_step)
        self.prune(loop, state_before_prescan=self.prescan_state.pop(loop, pre),
                   candidates=prescan + [i for i in range(snap[0], len(self.actions))
                                         if self.actions[i].speculative],
                   planned_exit=exit_state)
        return exit_state

    def visit_while(self, loop, state: dict) -> dict:
        """Plans (or, in a check walk, checks) an scf.while: `before` runs and decides,
        then `after` and `before` again, any number of times. Inside it every asynchronous
        op is completed right after it is issued (see "scf.while" in the module
        docstring), so the walk of the two blocks settles after a few rounds."""
        before, after = loop.regions[0].blocks[0], loop.regions[1].blocks[0]
        entry_step = self.step
        self.inside_while += 1
        try:
            carried: dict = {}
            for _ in range(4):
                snap = self.snapshot()
                exit_state = self.walk_block(before, join(state, carried), None)
                # (Stamps stay: the ops of an earlier iteration are older than the next
                # walk of the blocks, and ops of this while run in the enclosing body's
                # current iteration.)
                again = {op: s.evolve(carried_by=UNKNOWN_LOOP)
                         for op, s in self.walk_block(after, exit_state, None).items()}
                if all(op in carried and s.at_least(carried[op]) for op, s in again.items()):
                    break
                self.rollback(snap)
                carried = join(carried, again)
            else:
                # No fixed point: assume each iteration leaves its work unordered.
                carried = {op: Status(s.access, s.stamp, UNKNOWN_LOOP, also=s.also)
                           for op, s in carried.items()}
                exit_state = self.walk_block(before, join(state, carried), None)
                self.walk_block(after, exit_state, None)
        finally:
            self.inside_while -= 1
        return {op: (s.evolve(carried_by=UNKNOWN_LOOP) if s.stamp > entry_step else s)
                for op, s in exit_state.items()}

    def after_loop(self, loop, state: dict, entry_step) -> dict:
        """After the loop, nothing relates its ops to its induction variable any more."""
        return {op: (s.evolve(carried_by=UNKNOWN_LOOP)
                     if same_loop(s.carried_by, loop) or s.stamp > entry_step else s)
                for op, s in state.items()}

    def back_edge(self, end: dict, loop) -> dict:
        """The body's ops still unordered at its end, as the next iteration sees them."""
        return {op: s.evolve(carried_by=loop, stamp=-1.0)
                for op, s in end.items() if is_nested_in(op, loop)}

    def check_for(self, loop, pre: dict) -> dict:
        """Check walk of a loop: its first iteration from `pre`, with the iteration
        arguments bound to their initial values; then the steady state, from where the
        previous iteration ended (the ops of the body as an earlier iteration's), until
        the state at the start of the body stops changing."""
        entry_step = self.step
        body = loop.regions[0].blocks[0]
        trips = constant_trip_count(loop)
        if trips == 0:
            return pre
        first = self.buffers.bound(loop, lambda: self.walk_block(body, pre, loop))
        if trips == 1:
            return self.after_loop(loop, first, entry_step)
        carried = self.next_iteration(first, loop)
        for _ in range(8):
            end = self.walk_block(body, carried, loop)
            merged = join(carried, self.next_iteration(end, loop))
            if same_state(merged, carried):
                break
            carried = merged
        else:
            raise Unordered()  # not settled: the check proves nothing
        exit_state = self.loop_exit(loop, pre, end, trips)
        if trips is None:  # the loop may also stop after its first iteration
            exit_state = join(exit_state, first)
        return self.after_loop(loop, exit_state, entry_step)

    def next_iteration(self, end: dict, loop) -> dict:
        """The state at the start of the next iteration, from `end`, the state at the end
        of the body: the body's ops are an earlier iteration's."""
        return {op: (s.evolve(carried_by=loop, stamp=-1.0) if is_nested_in(op, loop) else s)
                for op, s in end.items()}

    def loop_exit(self, loop, pre: dict, end: dict, trips) -> dict:
        """The state after a loop. `end` is the end of a body walked from the join of
        the state before the loop and the previous iteration's; a loop known to run twice
        or more ends after an iteration that started exactly where the previous one
        ended, so it is walked once more from there (a check walk: what it plans is
        already planned)."""
        if trips is None or trips == 0:
            return join(pre, end)
        if trips == 1:
            return end
        steady = self.next_iteration(end, loop)
        # (The walk's steps stay counted: the states it returns hold its stamps.)
        saved = (self.checking, list(self.blocks))
        self.checking = True
        try:
            return self.walk_block(loop.regions[0].blocks[0], steady, loop)
        except Unordered:
            return end
        finally:
            self.checking, self.blocks = saved

    def prune(self, loop, state_before_prescan: dict, candidates: list,
              planned_exit: dict) -> None:
        """Drops each speculative action (latest first) without which every need of the
        loop is still met and the state after it is no weaker."""
        kinds = ("mbarrier_wait", "wait", "fence", "fence_proxy_async", "barrier")
        for index in sorted(set(candidates), reverse=True):
            if index in self.disabled or self.actions[index].name not in kinds:
                continue
            self.disabled.add(index)
            if not self.still_ordered(loop, state_before_prescan, planned_exit):
                self.disabled.discard(index)

    def prune_kernel(self, entry) -> None:
        """Drops each planned op (latest first) without which every need in the kernel is
        still met: decisions taken early in the walk may be made unnecessary by ops
        planned later (a commit placed for a later consumer, a loop's own waits).

        Each candidate is checked by a walk that starts at the op of the kernel's block
        holding it, from the state a reference walk (every op still planned) had there,
        and stops as soon as its state is the reference's again: from there on the two
        walks are the same. So a candidate costs the ops it changes the state of, not the
        kernel."""
        kinds = ("mbarrier_wait", "wait", "fence", "fence_proxy_async", "barrier")
        ops = [op.operation for op in entry.operations]
        walked = self.check_walk(entry, ops, 0, [{}], until=None)
        if walked is None:
            return  # not ordered as planned: nothing to drop (run() reports no error)
        reference = [{}] + walked  # the state before each op, and at the end
        position = OpDict((op, i) for i, op in enumerate(ops))
        for index in range(len(self.actions) - 1, -1, -1):
            action = self.actions[index]
            # Only decisions taken on assumptions: a need met right where its consumer is
            # stays needed (everything planned later sits at or after that point).
            if index in self.disabled or action.name not in kinds or not action.speculative:
                continue
            self.disabled.add(index)
            start = position[project(action.anchor, entry)]
            states = self.check_walk(entry, ops, start, reference, until=reference)
            if states is None:
                self.disabled.discard(index)
            else:
                reference[start + 1:start + 1 + len(states)] = states

    def check_walk(self, entry, ops: list, start: int, before: list, until) -> list | None:
        """Check walk of the kernel's block `entry` (its ops `ops`) from op `start`, from
        the state `before[start]`: the states after each op walked, or None when a need is
        not met. With `until` (an earlier walk's states, indexed as `before`: the state
        before op i, then the end), it stops after the first op whose state is the same
        as there."""
        saved = (self.checking, self.step, list(self.blocks))
        self.checking = True
        self.blocks.append((entry, self.step, None))
        state = before[start]
        states = []
        try:
            for i in range(start, len(ops)):
                state = self.visit(ops[i], state)
                states.append(state)
                if until is not None and same_state(state, until[i + 1]):
                    break
        except Unordered:
            return None
        finally:
            self.checking, self.step, self.blocks = saved
        return states
