"""The walk that plans the synchronization of one kernel (`Planner`): dependences found
op by op through loops and branches, the canonical patterns chosen for each, and the
pruning of what no dependence needs."""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import file_location
from tcgen05_lower.dialect.ops import FragMapOp, StOp, TmaLoadOp
from tcgen05_lower.kernel_ir import OpDict, defining_op
from tcgen05_lower.synchronization.accesses import Access, Buffers, access_of, tma_access
from tcgen05_lower.synchronization.common import (ASYNC_OPS, GENERIC, ISSUER, LOADS,
                                                  NEED_ACQUIRED, NEED_COMPLETE, SyncError,
                                                  TRIVIAL_DIALECTS, TRIVIAL_OPS, WARPGROUP,
                                                  constant_trip_count, enclosing_op,
                                                  is_nested_in, kind_of)
from tcgen05_lower.synchronization.state import (Status, UNKNOWN_LOOP, conflict, join,
                                                 level_rank, requirement, same_loop,
                                                 same_state, satisfied)


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


class _Unordered(Exception):
    """Raised by a check walk at the first need the planned ops leave unmet."""


def describe(op) -> str:
    """``tcgen05.mma at line 12``, for reasons and reports."""
    _, line, _ = file_location(op.location)
    return f"{op.name} at line {line}" if line is not None else op.name


def _producers(statuses) -> str:
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


def _project(op, block):
    """The op of `block` that is `op` or contains it."""
    while op is not None and op.block != block:
        op = enclosing_op(op)
    return op


def _next_nontrivial(op):
    """The first op after `op` in its block that is not index arithmetic, or None."""
    found = False
    for other in op.block.operations:
        other = other.operation
        if found and not is_trivial(other):
            return other
        found = found or other == op
    return None


def _first_needs(op, statuses, buffers: Buffers) -> bool:
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


def _completion_kind(access: Access) -> tuple:
    """What completes an op: one commit covers every earlier single-thread op, one
    wait::ld every earlier ld, one wait::st every earlier st, one proxy fence every
    earlier generic write."""
    if access.cls == WARPGROUP:
        return (WARPGROUP, access.name == StOp.NAME)
    return (access.cls,)


def _run_continues(op, access: Access, buffers: Buffers) -> bool:
    """Whether the next op of the block (index arithmetic aside) is completed by the same
    mechanism as `op`: completing that one completes `op` too."""
    after = _next_nontrivial(op)
    following = access_of(after, buffers) if after is not None else None
    return following is not None and _completion_kind(following) == _completion_kind(access)


def _issues_async(op, classes=(ISSUER,)) -> bool:
    name = d.op_name(op)
    if name in ASYNC_OPS and ASYNC_OPS[name] in classes:
        return True
    return any(ASYNC_OPS.get(d.op_name(inner)) in classes for inner in d.walk_ops(op))


class Planner:
    """The program-order walk of one kernel: decides the Actions, inserts nothing.

    In check mode (``self.checking``) the same walk applies every planned action at its
    position and raises _Unordered at the first need they leave unmet; that is how loops
    drop speculative actions that turned out redundant."""

    def __init__(self, kernel, strategy: str):
        self.kernel = kernel
        self.strategy = strategy
        self.actions: list[Action] = []
        self.sites: list[Site] = []
        # Tables keyed by ops are OpDicts (kernel_ir: a dict keyed by ops is quadratic).
        self.site_of = OpDict()  # anchor -> its site's mbarrier (sites are never dropped)
        self.hooks = OpDict()  # (anchor, side) -> [action index], applied when walked
        self.positions = OpDict()  # (anchor, side) -> [action index], every action
        self.disabled: set = set()
        self.checking = False
        self.step = 0
        self.blocks: list = []  # stack of (block, entry step, loop whose body it is)
        self.order_cache: dict = {}
        self.tail_cache = OpDict()
        self.prescan_state = OpDict()  # region op -> state before its pre-scan group
        self.inside_while = 0  # scf.while regions around the op being walked
        self.buffers = Buffers()  # what buffer values name (bound in check walks)

    # ---------------------------------------------------------------- transactions

    def snapshot(self) -> tuple:
        """A point to roll the plan back to."""
        return (len(self.actions),)

    def rollback(self, snap: tuple) -> None:
        """Forgets the actions planned since `snap`."""
        # Sites stay: a state computed by a discarded walk may still name their mbarriers
        # (the loop's fixed-point check decides whether the final walk commits to them).
        n_actions, = snap
        # Only the positions of the forgotten actions hold their indices (an action is
        # hooked, if at all, at its own position): the cost is what is forgotten, not
        # the plan so far.
        forgotten = range(n_actions, len(self.actions))
        keys = {(self.actions[i].anchor, self.actions[i].side) for i in forgotten}
        self.disabled.difference_update(forgotten)
        del self.actions[n_actions:]
        for table in (self.hooks, self.positions):
            for key in keys:
                if key not in table:
                    continue
                kept = [i for i in table[key] if i < n_actions]
                if kept:
                    table[key] = kept
                else:
                    del table[key]

    def enabled(self) -> list[Action]:
        """The planned actions still in the plan."""
        return [a for i, a in enumerate(self.actions) if i not in self.disabled]

    # ---------------------------------------------------------------- walking

    def run(self) -> None:
        """Walks the kernel once (loops as described in the module docstring), drops
        every planned op that the kernel turns out not to need after all, then commits
        nothing waits for."""
        if len(self.kernel.regions[0].blocks) > 1:
            raise SyncError(self.kernel, "a kernel with several blocks (cf branches) needs "
                                         "lift-cf-to-scf before tcgen05-insert-sync (the "
                                         "default pipeline runs it first)")
        entry = self.kernel.regions[0].blocks[0]
        self.walk_block(entry, {}, None)
        if self.strategy == "minimal":
            self.prune_kernel(entry)
        waited = {a.barrier for a in self.enabled() if a.name == "mbarrier_wait"}
        for i, action in enumerate(self.actions):
            if action.name == "commit" and action.barrier not in waited:
                self.disabled.add(i)
        committed = {a.barrier for a in self.enabled() if a.name == "commit"}
        # A wait for the completion a user-written commit signals waits on its mbarrier.
        committed |= {b for b in waited if is_user_barrier(b)}
        if not waited <= committed:
            raise SyncError(self.kernel, "internal: a planned wait has no commit")

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
                not _run_continues(op, access, self.buffers):
            self.plan_completion(op, access, inside_while=True)
        new = {}
        also: tuple = ()
        for key, status in state.items():
            if key == op:
                continue
            if status.access.name == access.name and _same_effects(status.access, access):
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

    # ---------------------------------------------------------------- checking

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
            raise _Unordered()  # not settled: the check proves nothing
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
        except _Unordered:
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
            start = position[_project(action.anchor, entry)]
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
        except _Unordered:
            return None
        finally:
            self.checking, self.step, self.blocks = saved
        return states

    def still_ordered(self, loop, state: dict, planned_exit: dict) -> bool:
        """Whether, without the disabled actions, a check walk of `loop` from `state` meets every need and leaves a state no weaker than `planned_exit`."""
        saved = (self.checking, self.step, list(self.blocks))
        self.checking = True
        try:
            exit_state = self.visit(loop, state)
        except _Unordered:
            return False
        finally:
            self.checking, self.step, self.blocks = saved
        # An op missing from a state is one nothing can need any more (the strongest).
        return all(op in planned_exit and s.at_least(planned_exit[op])
                   for op, s in exit_state.items())

    # ---------------------------------------------------------------- requirements

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

    # ---------------------------------------------------------------- resolution

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
            raise _Unordered()
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
            text = f"{what} {_producers(group)} before {describe(consumer)}: " + \
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
            anchors = [_project(self.sites[b].anchor, block) if isinstance(b, int) else None
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
        after = _next_nontrivial(loop)
        if after is None or not _first_needs(after, statuses, self.buffers):
            return None
        ops = [op.operation for op in block.operations]
        return ops[-1]  # the scf.yield: the group goes right before it

    def issues_after(self, block, anchor) -> bool:
        """Whether an op of `block` after `anchor` issues single-thread work."""
        order = self.block_order(block)
        return any(order[op.operation] > order[anchor] and _issues_async(op.operation)
                   for op in block.operations)

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
            anchor = _project(last.access.op, block)
            covered = {op for op, s in issuer.items()
                       if s.stamp <= last.stamp or _project(op, block) == anchor}
            carried = False
        else:
            # Loop-carried: after the last op of the body that some op of the body needs
            # in the next iteration, so that one commit serves all of them.
            order = self.block_order(block)
            anchor = max([_project(s.access.op, block) for s in pending] +
                         self.tail(loop, block), key=lambda o: order[o])
            covered = {op for op, s in issuer.items()
                       if s.stamp <= entry_step and is_nested_in(op, loop)
                       and order[_project(op, block)] <= order[anchor]}
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

    # ---------------------------------------------------------------- conservative

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

    # ---------------------------------------------------------------- effects

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


def _same_effects(a: Access, b: Access) -> bool:
    """Whether two ops touch exactly the same cells and tiles the same way (and neither
    writes registers, whose own rule names the op)."""
    return (a.reads == b.reads and a.writes == b.writes and a.smem_reads == b.smem_reads
            and a.smem_writes == b.smem_writes and a.pipeline_key == b.pipeline_key
            and a.fragment is None and b.fragment is None)
