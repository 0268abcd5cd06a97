"""Control flow and values in the one-program model: region results, iter_args and
block arguments bound to what they may name, scf.for / scf.if / scf.index_switch /
scf.while run as the kernel would, long loops shortened, and the ways of a branch that
does not evaluate joined into the weakest state (mbarrier phases aligned)."""

from __future__ import annotations

from dataclasses import replace

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import AllocMbarrierOp, SmemStageOp, TmemStageOp
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.sync_check.model import (FULL_RUN_ITERATIONS, MbarrierState, POISON,
                                            UNKNOWN_TRIPS, Unsupported, is_poison)


class ControlFlow:
    """Values and control flow. A part of the one-program model (cta.Run), which composes it:
    reads and updates the run's state (instances, mbarriers, aliases, problems)."""

    def meaning(self, value) -> tuple:
        """What `value` is now: ("int", its value, None or POISON) for integers and
        indices; otherwise ("names", the values it may be), for buffers, tiles,
        fragments and mbarriers."""
        if isinstance(value.type, (ir.IndexType, ir.IntegerType)):
            if is_poison(value):
                return ("int", POISON)
            return ("int", self.eval.value(value))
        return ("names", self.roots(value))

    def roots(self, value) -> tuple:
        """The values `value` may be now: itself, or for a region result or block
        argument what the way that ran bound it to."""
        return self.aliases.get(value) or (value,)

    def bind(self, targets, meanings: list) -> None:
        """Binds region results or block arguments to meanings (an unknown integer is
        unbound, so that an earlier run's value does not stay)."""
        for target, (kind, what) in zip(targets, meanings):
            if kind == "names":
                self.aliases[target] = what
            elif what is None or what is POISON:
                self.eval.bound.pop(target, None)
            else:
                self.eval.bound[target] = what

    @staticmethod
    def join_meanings(ways: list) -> list:
        """One meaning per position for values that several ways yield: an integer all
        ways agree on, else unknown; every value any way names. A ub.poison (what
        lift-cf-to-scf yields on a way that does not use the value) counts only when
        nothing else is possible."""
        joined = []
        for position in zip(*ways):
            kind = position[0][0]
            if kind == "int":
                values = {what for _, what in position}
                if len(values) > 1:
                    values.discard(POISON)
                joined.append(("int", values.pop() if len(values) == 1 else None))
                continue
            names = []
            for _, what in position:
                names += [v for v in what if v not in names]
            real = tuple(v for v in names if not is_poison(v))
            joined.append(("names", real or tuple(names)))
        return joined

    def varies(self, value) -> bool:
        """Whether what `value` names is bound at run time: a block argument or region
        result, or a stage of one."""
        op = defining_op(value)
        if op is None or len(op.regions):
            return True
        if TmemStageOp.matches(op):   # (the planner places the buffer, not the stage)
            return self.varies(TmemStageOp(op).buffer)
        if SmemStageOp.matches(op):   # (a stage counts as its whole tile)
            return self.varies(SmemStageOp(op).tile)
        return False

    def loop(self, op) -> None:
        """Runs an scf.for (see the module docstring for long and unknown loops)."""
        lb, ub, step = (self.eval.value(op.operands[i]) for i in range(3))
        if lb is None or step is None or step <= 0:
            raise Unsupported(op, "tcgen05-verify-sync cannot evaluate this loop's lower "
                                  "bound and step")
        exact = True
        if ub is None:
            ub = lb + UNKNOWN_TRIPS * step
            self.eval.bound[op.operands[1]] = ub
            exact = False
        trips = max(0, -(-(ub - lb) // step))
        short = self.shortened(trips)
        if trips > FULL_RUN_ITERATIONS and short < trips and \
                op.operands[1] not in self.eval.bound:
            trips = short
            self.eval.bound[op.operands[1]] = lb + trips * step
            self.truncated = True
            exact = False
        body = op.regions[0].blocks[0]
        iv, carried_args = body.arguments[0], list(body.arguments)[1:]
        carried = [self.meaning(v) for v in op.operands[3:]]
        seen = [carried]
        for i in range(trips):
            self.eval.bound[iv] = lb + i * step
            self.bind(carried_args, carried)
            carried = self.region(body)
            seen.append(carried)
        self.eval.bound.pop(iv, None)
        # A loop not run to its real trip count may end after any of the iterations run:
        # its results are every value the iter_args took.
        self.bind(op.results, carried if exact else self.join_meanings(seen))

    def shortened(self, trips: int) -> int:
        """How many iterations a long loop runs: 4 or more, the same count as `trips`
        modulo the phase period (twice the lcm of the kernel's mbarrier ring depths: 2
        without rings). Each stage of an S-stage ring then gets as many uses, modulo 2,
        as in the real run (a loop nest's uses change by a multiple of 2 S), so a wait
        whose parity is a constant (the producer tail after a ring's loop) names the
        same phase in the shortened run as in the real one."""
        period = getattr(self, "_period", None)
        if period is None:
            from math import lcm

            depths = [AllocMbarrierOp(op).stages or 1 for op in d.walk_ops(self.kernel)
                      if AllocMbarrierOp.matches(op)]
            period = self._period = 2 * lcm(1, *depths)
        return 4 + (trips - 4) % period

    def branch(self, op) -> None:
        """Runs the branch an scf.if takes, or both from the same state and keeps the
        weaker result."""
        condition = self.eval.value(op.operands[0])
        then = op.regions[0].blocks[0]
        other = op.regions[1].blocks[0] if len(op.regions) > 1 and \
            len(op.regions[1].blocks) > 0 else None
        if condition is not None:
            self.bind(op.results, self.region(then if condition else other))
            return
        self.alternatives(op, [then, other])

    def switch(self, op) -> None:
        """Runs the case an scf.index_switch takes, or every case and the default from
        the same state and keeps the weakest result."""
        index = self.eval.value(op.operands[0])
        # Region 0 is the default, region i + 1 the case cases[i].
        blocks = [region.blocks[0] for region in op.regions]
        if index is not None:
            cases = list(ir.DenseI64ArrayAttr(op.attributes["cases"]))
            chosen = blocks[1 + cases.index(index)] if index in cases else blocks[0]
            self.bind(op.results, self.region(chosen))
            return
        self.alternatives(op, blocks[1:] + blocks[:1])

    def while_loop(self, op) -> None:
        """Runs an scf.while: the before region, then the after region while the
        condition holds. A condition that does not evaluate may end the loop there: each
        such exit (after 0, 1, .., UNKNOWN_TRIPS runs of the body) is kept, and the
        weakest of them is the state after the loop."""
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        carried = [self.meaning(v) for v in op.operands]
        exits = []  # (live, mbarriers, forwarded) at each condition that does not evaluate
        runs = 0
        while True:
            self.bind(before.arguments, carried)
            self.block(before)
            condition = self.ops(before)[-1]  # scf.condition(%c) args...
            flag = self.eval.value(condition.operands[0])
            forwarded = [self.meaning(v) for v in list(condition.operands)[1:]]
            if flag is not None and not flag:
                break
            if flag and runs >= FULL_RUN_ITERATIONS:
                # A long loop: from here on its condition counts as not evaluating, so
                # that the exits after the next runs stand for the real one (like a long
                # scf.for, which runs 4 or a few more iterations).
                flag = None
                self.truncated = True
            runs += 1
            if flag is None:
                if len(exits) == UNKNOWN_TRIPS:
                    break  # the last exit considered: the state as it is
                exits.append(self.snapshot() + (forwarded,))
            self.bind(after.arguments, forwarded)
            carried = self.region(after)
        self.join(op, exits + [(self.live, self.mbarriers, forwarded)])

    def alternatives(self, op, blocks: list) -> None:
        """Runs each of `blocks` (None: a region that does nothing) from the state
        before `op` and keeps the weakest result."""
        saved = self.snapshot()
        ways = []
        for index, block in enumerate(blocks):
            if index:
                # Each way starts from its own copy (running one changes instances).
                last = index == len(blocks) - 1
                self.live, self.mbarriers = saved if last else self.copy(saved)
                self.find_waited()
            yielded = self.region(block)
            ways.append((self.live, self.mbarriers, yielded))
        self.join(op, ways)

    def join(self, op, ways: list) -> None:
        """Makes the weakest state of `ways` ((live, mbarriers, yielded) each) the current
        one and binds `op`'s results to what any of them yields."""
        self.live, self.mbarriers, _ = ways[0]
        for live, bars, _ in ways[1:]:
            self.merge(op, live, bars)
        self.find_waited()
        self.bind(op.results, self.join_meanings([yielded for _, _, yielded in ways]))

    def find_waited(self) -> None:
        """Rebuilds self.waited after self.mbarriers was replaced (at region ops only,
        which copy every mbarrier's state anyway)."""
        self.waited = {b: s for b, s in self.mbarriers.items() if s.last_wait is not None}

    def snapshot(self) -> tuple:
        """A copy of the state (instances, mbarriers) that running a region changes."""
        return self.copy((self.live, self.mbarriers))

    @staticmethod
    def copy(state: tuple) -> tuple:
        live, bars = state
        return ([replace(i, first_commit=dict(i.first_commit)) for i in live],
                {b: replace(s, commit_ops=dict(s.commit_ops)) for b, s in bars.items()})

    def merge(self, op, other_live: list, other_bars: dict) -> None:
        """Joins the state of another way through `op` into this one."""
        for barrier, state in other_bars.items():
            mine = self.mbarriers.get(barrier)
            if mine is None:
                self.mbarriers[barrier] = state
                continue
            self.align(op, barrier, mine, state, other_live)
            mine.unknown_after = mine.unknown_after or state.unknown_after
            mine.path_dependent = mine.path_dependent or state.path_dependent
            mine.seen = min(mine.seen, state.seen)
            mine.last_wait = mine.last_wait or state.last_wait
        # The same execution on both ways is as far ordered as on the weaker one; an
        # execution on one way only (or finished on the other) stays as it is.
        by_serial = {inst.serial: inst for inst in self.live}
        for inst in other_live:
            twin = by_serial.get(inst.serial)
            if twin is None:
                self.live.append(inst)
                continue
            for flag in ("complete", "released", "proxied", "synced", "acquired",
                         "registers_read"):
                setattr(twin, flag, getattr(twin, flag) and getattr(inst, flag))
            twin.first_commit = {b: max(i, twin.first_commit[b])
                                 for b, i in inst.first_commit.items()
                                 if b in twin.first_commit}

    def align(self, op, barrier, mine: MbarrierState, theirs: MbarrierState,
              their_live: list) -> None:
        """Makes the commit counts of one mbarrier on two ways equal, when a tracked wait
        cannot tell them apart.

        A tracked wait depends only on how far the thread's phase lags behind the most
        recent commit (its parity is (commits - 1) mod 2, and whether it blocks is
        decided against the phase the thread believes current), and an instance only on
        how far its commit lies behind. So the way with fewer commits is taken as having
        `delta` more at the start, all seen: its commit indices and seen phases move up
        together. That keeps every phase boundary and parity when delta is a multiple of
        the arrivals per phase and the phases it adds have the parity of delta."""
        if mine.commits == theirs.commits and mine.seen == theirs.seen:
            return
        delta = abs(mine.commits - theirs.commits)
        # A wait with a phase operand names an absolute parity: right on some ways only.
        mine.path_dependent = mine.path_dependent or \
            (op, "commit to it" if delta else "wait on it")
        if delta == 0:
            return
        arrivals = mine.arrivals
        if delta % arrivals or (delta // arrivals - delta) % 2:
            # No alignment keeps the phases: any later use of the mbarrier is an error
            # (see mbarrier()).
            mine.unknown_after = op
            mine.commits = max(mine.commits, theirs.commits)
            mine.commit_ops = {**theirs.commit_ops, **mine.commit_ops}
            return
        if mine.commits < theirs.commits:
            lower, lower_live = mine, self.live
        else:
            lower, lower_live = theirs, their_live
        lower.commits += delta
        lower.seen += delta // arrivals
        lower.commit_ops = {i + delta: commit for i, commit in lower.commit_ops.items()}
        for inst in lower_live:
            if barrier in inst.first_commit:
                inst.first_commit[barrier] += delta
        mine.commit_ops = {**theirs.commit_ops, **mine.commit_ops}
        mine.commits = max(mine.commits, theirs.commits)
