"""tcgen05-verify-sync for warp roles in a CTA pair (cta_group::2; docs/cta-pairs.md,
"Warp roles and TMA in a CTA pair").

A pair kernel runs its program in two CTAs at once, the even one (rank 0, which issues the
single-thread tcgen05 ops of every role, Table 46) and the odd one (rank 1). The model of
roles.py and role_trace.py (concurrent role traces, views ordered by mbarrier phases)
applies with these changes:

- Each role's program, and the kernel's own, is traced once (the role tracer) and run
  once per CTA: 2 x (roles + 1) programs. In the odd CTA the single-thread ops (mma, cp,
  shift, tcgen05.commit) and ``mbarrier_expect_tx`` are not executed (the lowering
  issues them in the even CTA only); a TMA load, an ``mbarrier_arrive``, the warpgroup
  ops, fills, fences and barriers run in both.
- An mbarrier is one per CTA: (the ``alloc_mbarrier``, rank). Who signals which copy:
  a ``tcgen05.commit`` arrives once at the copy of each CTA its ``multicast_mask`` names
  (the issuing, even CTA's alone for the plain commit, 9.7.16.12.1); ``mbarrier_expect_tx``
  arrives at the even CTA's copy and announces both CTAs' bytes
  (``tcgen05_lower.tma.cover``, or its written ``bytes``); a TMA load of either CTA
  (``.cta_group::2``) delivers its tile's bytes (complete_tx, PTX ISA 9.7.9.25.5.1) to
  the even CTA's copy; an ``mbarrier_arrive`` by every thread of its role arrives at its
  own CTA's copy, or at the even CTA's with ``cta = "even"``.
- A wait runs in the CTAs that the signals of its mbarrier reach, as the lowering
  decides it: the masks of its commits, the even CTA for an mbarrier that TMA loads,
  expect_tx or ``cta = "even"`` arrivals signal, both otherwise; it waits on its own
  CTA's copy.
- A phase of a copy completes when its arrivals reach the count and, for the even copy
  that TMA loads complete on, the bytes delivered in the phase reach those its
  expect_tx ops announced (9.7.13.15: pending arrivals and the transaction count both
  zero). A wait that observes it joins every arrival of the phase (each a release that
  its acquire pairs with).
- Which phase an arrival falls in. Arrivals on a copy from one program follow its
  program order (as in the one-CTA model). When several programs arrive on one copy
  (both CTAs' epilogues on the even accumulator-empty mbarrier), an arrival falls in
  phase p = the phases its program knows complete (it cannot be earlier: those phases
  ended before it), and no earlier than its program's previous arrival there. It is
  exactly p as long as no phase gets more arrivals than its count this way (by
  induction over the phases: a phase's count is then reached only by all of its
  arrivals); a phase that does is reported. The same holds for the bytes of a TMA load
  of the odd CTA, which has no expect_tx of its own: they fall in the first phase of the
  even copy its program does not know complete; a load whose phase is already complete
  there is reported.
- Accesses are per CTA: TMEM cells and shared-memory tiles of each CTA at the same
  offsets. A single-thread op of the pair (the even CTA's ``mma.cta_group::2``, ``cp``,
  ``shift``) accesses both CTAs': it writes both CTAs' accumulator lanes and reads both
  CTAs' A/B slices. A load, store, fill or TMA load accesses its own CTA's.
- The partitions' joining barrier is a cluster barrier: the kernel's program after it,
  in each CTA, is ordered after every role of both CTAs. A ``tcgen05.dealloc`` frees its
  own CTA's TMEM.
- At exit (the one-CTA model's ``check_in_flight``), each copy's latest asynchronous
  arrival (a commit's, to each CTA its mask names; a TMA load's complete_tx, to the even
  CTA's copy) must be known complete in the program of the CTA holding that copy: the
  odd CTA's load role must have waited for the last multicast commits to its own empty
  mbarriers (the producer tail) before it passes the final cluster barrier and exits.

What each conflicting pair of accesses needs is the one-CTA model's table
(``Concurrent.missing``): the ISA's 9.7.16.6.4.x canonical patterns, 9.7.16.6.5 for the
proxies, 9.7.13.15 for mbarrier phases. So an odd-CTA ``tcgen05.ld`` of accumulator
lanes that the even CTA's MMA wrote needs a commit whose mask names the odd CTA, a wait
in the odd CTA for its phase and a fence::after_thread_sync there; a plain commit does
not reach it.

It shares no code with tcgen05-insert-sync: it reuses roles.py / role_trace.py
(tracer, concurrent executor and its ordering rules) and ``tcgen05_lower.tma``'s count of
an expect_tx's bytes.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from tcgen05_lower import dialect as d
from tcgen05_lower import tma
from tcgen05_lower.dialect.ops import (CommitOp, MbarrierArriveOp, MbarrierExpectTxOp,
                                       MbarrierStageOp, TmaLoadOp)
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.multicast import per_pair_count
from tcgen05_lower.sync_check.model import (ANY_TILE, EXPECT_TX, SINGLE_THREAD_OPS, TMA_LOAD,
                                            Unsupported, line_col_text)
from tcgen05_lower.sync_check.role_trace import (Arrival, Cursor, Event, KERNEL, LD, RoleTracer,
                                                 ST)
from tcgen05_lower.sync_check.roles import Concurrent


#: The ranks of a pair (%cluster_ctarank & 1, 9.7.16.5.1) and their bits in a
#: multicast_mask.
EVEN, ODD = 0, 1

BOTH = 0b11

#: Ops the odd CTA does not execute (issued by the even CTA's thread, Table 46; the
#: expect_tx of a pair's TMA loads, docs/cta-pairs.md).
EVEN_ONLY = SINGLE_THREAD_OPS + ("commit", EXPECT_TX)


@dataclass
class PairEvent(Event):
    """An event of one CTA's run of a program. `barrier` is the copy it waits on or
    delivers bytes to, (alloc_mbarrier value, rank); `targets` the arrivals it makes,
    ((copy, arrivals), ...)."""

    cta: int = EVEN
    targets: tuple = ()


@dataclass
class Phase:
    """One phase of one copy of an mbarrier, as far as the run has got."""

    arrivals: list = field(default_factory=list)  # [Arrival]
    count: int = 0
    expected: int = 0  # bytes its expect_tx ops announced
    delivered: int = 0  # bytes its TMA loads delivered
    #: Per TMA load of the phase, what ran before it (View.vc): the phase cannot
    #: complete before those points, although the load's complete_tx releases nothing
    #: of its thread's to the waiter (only vc, which orders nothing in memory, is joined).
    loads: list = field(default_factory=list)


class PairTracer(RoleTracer):
    """The role tracer, for a pair kernel (each program traced once)."""

    def trace(self) -> None:
        self.start(KERNEL, d.kernel_info(self.kernel).threads)
        self.run()


def _users(value):
    for use in value.uses:
        owner = use.owner
        yield owner.operation if hasattr(owner, "operation") else owner


def _signalled(barrier):
    """What a wait's signals are looked up by: the ring of a stage of an mbarrier ring
    (every stage signalled alike, ``_signal_uses``), else the mbarrier itself; one walk of
    a ring's uses serves all its waits."""
    stage = defining_op(barrier)
    return MbarrierStageOp(stage).ring if stage is not None and \
        MbarrierStageOp.matches(stage) else barrier


def _signal_uses(barrier):
    """The ops that use `barrier`; for a stage of an mbarrier ring (``mbarrier_stage``),
    the ops that use any stage of that ring: the lowering decides where a ring's waits run
    from the whole ring, and every stage of a ring is signalled alike (one pass over the
    ring's uses per wait operand, memoized by the caller)."""
    stage = defining_op(barrier)
    if stage is None or not MbarrierStageOp.matches(stage):
        yield from _users(barrier)
        return
    for view in _users(MbarrierStageOp(stage).ring):
        if MbarrierStageOp.matches(view):
            yield from _users(view.results[0])


def waiting_ctas(op) -> int:
    """The ranks (bits) in which the mbarrier_wait `op` runs: the CTAs its mbarrier's
    signals reach, as the lowering decides it (module docstring)."""
    masks = set()
    for owner in _signal_uses(op.operands[0]):
        if CommitOp.matches(owner):
            mask = CommitOp(owner).multicast_mask
            masks.add(0b01 if mask is None else mask & BOTH)
        elif TmaLoadOp.matches(owner) or MbarrierExpectTxOp.matches(owner) or \
                (MbarrierArriveOp.matches(owner) and MbarrierArriveOp(owner).cta == "even"):
            masks.add(0b01)
    if len(masks) > 1:
        raise Unsupported(op, "the ops that signal this wait's mbarrier signal different "
                              "CTAs of the pair, so which CTAs wait is ambiguous "
                              "(9.7.16.12.1)")
    return masks.pop() if masks else BOTH


class PairConcurrent(Concurrent):
    """Runs every program once per CTA of the pair (module docstring)."""

    def __init__(self, tracer: PairTracer):
        # Concurrent.__init__ builds one cursor per trace; the pair has two per trace.
        super().__init__(tracer)
        self.programs = len(tracer.traces)
        self.cursors = []
        # A wait's mbarrier operand (the ring, for a stage of an mbarrier ring) -> the
        # ranks waits on it run in (one walk of its uses per mbarrier or ring, not per
        # wait).
        waits_in: dict = {}
        for cta in (EVEN, ODD):
            for name, threads, trace in zip(tracer.names, tracer.threads, tracer.traces):
                role = len(self.cursors)
                label = f"{name} (rank {cta})"
                events = []
                for event in trace:
                    clone = self.clone(event, role, len(events), cta, threads, waits_in)
                    if clone is not None:
                        events.append(clone)
                self.cursors.append(Cursor(label, threads, events))
        self.cover = tma.cover(tracer.kernel)
        self.phases: dict = {}  # copy -> [Phase]
        self.totals: dict = {}  # copy -> arrivals so far (one-program copies)
        self.last: dict = {}  # (copy, role) -> phase of the role's latest arrival there
        sources: dict = {}
        for cursor in self.cursors:
            for event in cursor.trace:
                for target, _ in event.targets:
                    sources.setdefault(target, set()).add(event.role)
        #: Copies that several programs arrive on (module docstring).
        self.shared = {target for target, roles in sources.items() if len(roles) > 1}

    def clone(self, event: Event, role: int, index: int, cta: int, threads: int,
              waits_in: dict):
        """`event` as CTA `cta` runs it, or None when that CTA does not execute it."""
        kind = event.kind
        if cta == ODD and kind in EVEN_ONLY:
            return None
        barrier, targets = None, ()
        if event.barrier is not None:
            b = event.barrier
            if kind == "mbarrier_wait":
                operand = _signalled(event.op.operands[0])
                mask = waits_in.get(operand)
                if mask is None:
                    mask = waits_in[operand] = waiting_ctas(event.op)
                if not mask & (1 << cta):
                    return None
                barrier = (b, cta)
            elif kind == TMA_LOAD:
                barrier = (b, EVEN)
            elif kind == "commit":
                mask = CommitOp(event.op).multicast_mask
                # with the other pairs of a cluster, one arrival from each pair the mask
                # names: the pair's own stands for all (tcgen05_lower.multicast)
                scaled = self.__dict__.setdefault("per_pair_scaled", set())
                if b not in scaled:
                    scaled.add(b)
                    count, problem = per_pair_count(self.tracer.counts[b], mask)
                    self.tracer.counts[b] = count
                    if problem:
                        self.problem(event.op, ("pairs", b), problem)
                mask = 0b01 if mask is None else mask & BOTH
                barrier = (b, EVEN)
                targets = tuple(((b, rank), 1) for rank in (EVEN, ODD) if mask & (1 << rank))
            elif kind == EXPECT_TX:
                barrier = (b, EVEN)
                targets = ((barrier, 1),)
            elif kind == "mbarrier_arrive":
                rank = EVEN if MbarrierArriveOp(event.op).cta == "even" else cta
                barrier = (b, rank)
                targets = ((barrier, threads),)
        return PairEvent(role, index, event.op, kind, event.inst, barrier, event.parity,
                         cta, targets)

    # ------------------------------------------------------------------ driver

    def run(self) -> None:
        kernels = [self.cursors[cta * self.programs] for cta in (EVEN, ODD)]
        if self.tracer.join_at is None:
            roles = kernels  # hand-written arrivals in one program, run in both CTAs
        else:
            for kernel in kernels:
                self.advance(kernel, self.tracer.join_at)
            roles = [c for i, c in enumerate(self.cursors) if i % self.programs]
        self.run_concurrently(roles)
        if self.tracer.join_at is None:
            self.check_overruns()
            self.check_in_flight({cta: kernels[cta].view for cta in (EVEN, ODD)})
            return
        # The joining barrier is a cluster barrier: each CTA's program after it is
        # ordered after every role of both CTAs.
        for kernel in kernels:
            for index, cursor in enumerate(self.cursors):
                if index % self.programs == 0:
                    continue
                kernel.view.join(cursor.view)
                kernel.view.vc[index] = cursor.at
                for kind in (LD, ST):
                    kernel.view.rel[(index, kind)] = max(
                        kernel.view.rel.get((index, kind), -1), cursor.released[kind])
                kernel.view.prox[index] = max(kernel.view.prox.get(index, -1),
                                              cursor.proxied)
        for kernel in kernels:
            self.advance(kernel, len(kernel.trace))
        self.check_overruns()
        self.check_in_flight({cta: kernels[cta].view for cta in (EVEN, ODD)})

    def owner(self, target):
        """The CTA whose shared memory holds the copy `target`: its rank."""
        return target[1]

    def mbarrier_text(self, target) -> str:
        return self.named(target)

    def barrier_label(self, barrier) -> str:
        return " " + self.named(barrier)

    @staticmethod
    def named(target) -> str:
        """The copy `target` as messages name it: its alloc_mbarrier and CTA."""
        barrier, stage = target[0], None
        if isinstance(barrier, tuple):   # (ring, stage) of an mbarrier ring
            barrier, stage = barrier
        owner = defining_op(barrier)
        where = f"allocated at {line_col_text(owner)}, " if owner is not None else ""
        which = f"stage {stage} of the ring " if stage is not None else ""
        return f"({which}{where}its copy in the CTA of rank {target[1]})"

    def deadlock_reason(self, target, phase: int) -> str:
        count = self.tracer.counts[target[0]]
        total, signals = 0, []
        for cursor in self.cursors:
            for event in cursor.trace:
                for copy, arrivals in event.targets:
                    if copy == target:
                        total += arrivals
                        signal = f"{event.op.name} at {line_col_text(event.op)} in role " \
                                 f"'{cursor.name}'"
                        if signal not in signals:
                            signals.append(signal)
        listed = "; ".join(signals) if signals else "none"
        phases = self.phases.get(target, [])
        if phase < len(phases) and phases[phase].count >= count and \
                phases[phase].delivered < phases[phase].expected:
            found = phases[phase]
            return (f"its arrivals are in and only {found.delivered} of the "
                    f"{found.expected} bytes its tcgen05.mbarrier_expect_tx announced "
                    f"({listed}) have landed: the TMA loads of the rest come only after "
                    f"waits that never return (PTX ISA 9.7.13.15)")
        if total < (phase + 1) * count:
            return (f"only {total} arrivals reach it in the whole kernel (it needs "
                    f"{(phase + 1) * count}; from: {listed})")
        return (f"the arrivals that complete it ({listed}) come only after waits that "
                f"never return: the roles deadlock")

    # ------------------------------------------------------------------ events

    def step(self, cursor: Cursor, event: Event) -> bool:
        kind = event.kind
        if event.inst is None and kind not in ("commit", EXPECT_TX, "mbarrier_arrive",
                                               "mbarrier_wait"):
            return super().step(cursor, event)
        self.steps += 1
        if event.inst is not None:
            if kind == TMA_LOAD:
                event.parity = self.load_phase(cursor, event)
                self.note_asynchronous(event.barrier, event.parity, event)
            self.check(cursor, event)
            self.record(event)
        elif kind == "commit":
            phases = []
            for target, arrivals in event.targets:
                cursor.open_expect.pop(target, None)
                phases.append((target, self.arrive_at(cursor, event, target, arrivals)))
                self.note_asynchronous(target, phases[-1][1], event)
            cursor.open_expect.pop(event.barrier, None)
            cursor.commits.append(event.index)
            cursor.commit_at.append(phases)
        elif kind == EXPECT_TX:
            target, arrivals = event.targets[0]
            phase = self.arrive_at(cursor, event, target, arrivals)
            written = MbarrierExpectTxOp(event.op).bytes
            self.phase(target, phase).expected += \
                written if written is not None else self.cover.expected_bytes(event.op)
            cursor.open_expect[target] = phase
        elif kind == "mbarrier_arrive":
            target, arrivals = event.targets[0]
            self.arrive_at(cursor, event, target, arrivals)
        else:
            cursor.open_expect.pop(event.barrier, None)
            return self.wait(cursor, event)
        return True

    def phase(self, target, phase: int) -> Phase:
        phases = self.phases.setdefault(target, [])
        while len(phases) <= phase:
            phases.append(Phase())
        return phases[phase]

    def complete_phase(self, target, phase: int) -> bool:
        """Whether the run has completed `phase` of the copy `target`."""
        phases = self.phases.get(target, [])
        if phase >= len(phases):
            return False
        found = phases[phase]
        return found.count >= self.tracer.counts[target[0]] and \
            found.delivered >= found.expected

    def arrive_at(self, cursor: Cursor, event: PairEvent, target, count: int) -> int:
        """Records `count` arrivals by `event` on the copy `target`; returns their phase
        (module docstring)."""
        per_phase = self.tracer.counts[target[0]]
        if target in self.shared:
            phase = max(cursor.view.know.get(target, 0),
                        self.last.get((target, event.role), 0))
        else:
            before = self.totals.get(target, 0)
            phase = self.arrival_phase(cursor, event, count, target, before, per_phase)
            self.totals[target] = before + count
        self.last[(target, event.role)] = phase
        view = self.arrival_view(cursor, event)
        found = self.phase(target, phase)
        found.count += count
        found.arrivals.append(Arrival(event, count, found.count, view))
        if target in self.shared and found.count > per_phase:
            others = "; ".join(sorted({f"{a.event.op.name} at {line_col_text(a.event.op)} in role "
                                       f"'{self.cursors[a.event.role].name}'"
                                       for a in found.arrivals[:-1]}))
            self.problem(event.op, ("overfull", target),
                         f"{event.op.name} in role '{cursor.name}' may fall into phase "
                         f"{phase} of the mbarrier {self.named(target)[:-1]}, count "
                         f"{per_phase}) together with {others}: "
                         f"{found.count} arrivals that no wait orders into different "
                         f"phases, so some count towards phase {phase + 1} (9.7.13.15.16)")
        return phase

    def load_phase(self, cursor: Cursor, event: PairEvent) -> int:
        """The phase of the even CTA's copy whose complete_tx this TMA load signals
        (module docstring); -1 when reported without an expect_tx."""
        target = event.barrier
        phase = cursor.open_expect.get(target)
        if phase is None and event.cta == EVEN:
            self.problem(event.op, ("expect_tx",),
                         "tcgen05.tma_load signals complete_tx on an mbarrier with no "
                         "tcgen05.mbarrier_expect_tx of its role in the current phase "
                         "(none since its role's last wait or commit on it): the phase "
                         "completes without its bytes, or its bytes land in a later phase "
                         "(PTX ISA 9.7.13.15)")
            return -1
        if phase is None:
            phase = cursor.view.know.get(target, 0)
            if self.complete_phase(target, phase):
                self.problem(event.op, ("late load", phase),
                             f"tcgen05.tma_load in role '{cursor.name}' completes on "
                             f"the even CTA's mbarrier, whose phase {phase} (the first "
                             f"its role does not know complete) may complete without "
                             f"its bytes: they then count towards a later phase "
                             f"(missing an mbarrier wait before the load that orders it "
                             f"after the phase's other loads, PTX ISA 9.7.13.15)")
                # (They land in a later phase: the first the run has not completed.)
                while self.complete_phase(target, phase):
                    phase += 1
        found = self.phase(target, phase)
        found.delivered += tma.tile_bytes(event.op.operands[1])
        before = dict(cursor.view.vc)
        before[event.role] = event.index + 1
        found.loads.append(before)
        return phase

    def wait(self, cursor: Cursor, event: PairEvent) -> bool:
        target = event.barrier
        known = cursor.view.know.get(target, 0)
        ends = known + 1 if (known & 1) == event.parity else known
        if ends > known:
            if not self.complete_phase(target, ends - 1):
                cursor.blocked = (event, ends - 1)
                return False
            found = self.phases[target][ends - 1]
            for arrival in found.arrivals:
                cursor.view.join(arrival.view)
            for before in found.loads:
                for role, upto in before.items():
                    if upto > cursor.view.vc.get(role, -1):
                        cursor.view.vc[role] = upto
            cursor.view.know[target] = max(cursor.view.know.get(target, 0), ends)
        cursor.blocked = None
        self.waits.append((event, target, ends))
        return True

    # ------------------------------------------------------------------ checks

    def ctas(self, event: PairEvent) -> tuple:
        """The CTAs whose TMEM and shared memory `event` accesses (module docstring)."""
        return (EVEN, ODD) if event.kind in SINGLE_THREAD_OPS else (event.cta,)

    def pair_places(self, event: PairEvent) -> list:
        return [((bucket[0], cta) + bucket[1:], mode) for cta in self.ctas(event)
                for bucket, mode in self.places(event.inst)]

    def event_places(self, event: PairEvent) -> list:
        return self.pair_places(event)

    @staticmethod
    def any_tile(bucket) -> tuple:
        """Every tile of the CTA of `bucket` (a tile bucket is (tile, cta, ...))."""
        return ("tile", bucket[1], "*")

    def check(self, cursor: Cursor, later: PairEvent) -> None:
        # Concurrent.check takes its candidates from `candidates(inst)`; the pair's
        # buckets need the event's CTAs.
        self.later = later
        super().check(cursor, later)

    def candidates(self, inst) -> list:
        keys: dict = {}
        for (kind, cta, what), mode in self.pair_places(self.later):
            wanted = ("w",) if mode == "r" else ("w", "r")
            buckets = [(kind, cta, what)]
            if kind == "tile":
                buckets = [("tile", cta, "*")] if what is ANY_TILE else \
                    [(kind, cta, what), ("tile", cta, ANY_TILE)]
            for bucket in buckets:
                for other in wanted:
                    keys.update(self.index.get((bucket, other), {}))
        return [self.history[key] for key in keys]

    def complete(self, earlier: PairEvent, view) -> bool:
        if earlier.kind == TMA_LOAD:
            return earlier.parity < 0 or view.know.get(earlier.barrier, 0) > earlier.parity
        owner = self.cursors[earlier.role]
        seen = set()
        for position in range(bisect_right(owner.commits, earlier.index), len(owner.commits)):
            for target, phase in owner.commit_at[position]:
                if target in seen:
                    continue
                seen.add(target)
                if view.know.get(target, 0) > phase:
                    return True
        return False

    def check_dealloc(self, cursor: Cursor, event: PairEvent) -> None:
        """The dealloc frees its own CTA's TMEM: the accesses of that CTA's cells."""
        everything = self.history
        self.history = {key: earlier for key, earlier in everything.items()
                        if event.cta in self.ctas(earlier)}
        try:
            super().check_dealloc(cursor, event)
        finally:
            self.history = everything

    def check_overruns(self) -> None:
        """A wait must run before the phase after the one it waits for can complete:
        some arrival of that phase must be ordered after it (9.7.13.15.16)."""
        for event, target, ends in self.waits:
            if not self.complete_phase(target, ends):
                continue
            arrivals = self.phases[target][ends].arrivals
            if any(a.view.vc.get(event.role, 0) > event.index for a in arrivals):
                continue
            by = arrivals[-1].event
            self.problem(event.op, ("overrun",),
                         f"phase {ends} of this wait's mbarrier {self.named(target)} may "
                         f"complete before the wait (for parity "
                         f"{event.parity}) in role '{self.cursors[event.role].name}' "
                         f"runs: its arrival {by.op.name} at {line_col_text(by.op)} in role "
                         f"'{self.cursors[by.role].name}' is not ordered after the wait, "
                         f"which then waits for phase {ends + 1} (9.7.13.15.16)")


def check_pair_roles(pass_, kernel) -> tuple:
    """check_roles for a cta_group::2 kernel."""
    tracer = PairTracer(pass_, kernel)
    tracer.trace()
    concurrent = PairConcurrent(tracer)
    concurrent.run()
    return (list(concurrent.problems.values()), concurrent.steps, concurrent.checked,
            tracer.truncated)
