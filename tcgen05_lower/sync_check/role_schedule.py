"""How the concurrent model runs the programs: every interleaving that matters, one event
at a time, arrivals and mbarrier phases, waits that block until a phase completes, and
the deadlocks when none can."""

from __future__ import annotations

from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.sync_check.model import EXPECT_TX, TMA_LOAD, Unsupported, line_col_text
from tcgen05_lower.sync_check.role_trace import Arrival, Cursor, Event, LD, ST


class ConcurrentSchedule:
    """Running the programs and their mbarriers. A part of the concurrent model
    (roles.Concurrent), which composes it."""

    def run_concurrently(self, roles) -> None:
        """Advance every role as far as its waits let it, round after round, until none
        moves; a wait still blocked then never returns (reported)."""
        progress = True
        while progress:
            progress = False
            for cursor in roles:
                before = cursor.at
                self.advance(cursor, len(cursor.trace))
                progress = progress or cursor.at != before
        for cursor in roles:
            if cursor.blocked is not None:
                event, phase = cursor.blocked
                self.problem(event.op, ("deadlock",),
                             f"this wait in role '{cursor.name}' for parity {event.parity} "
                             f"of the mbarrier{self.barrier_label(event.barrier)} needs "
                             f"phase {phase} to complete, but "
                             f"{self.deadlock_reason(event.barrier, phase)}: it never "
                             f"returns")

    def barrier_label(self, barrier) -> str:
        """What a deadlock message adds after "the mbarrier" (nothing: one CTA)."""
        return ""

    def run(self) -> None:
        kernel = self.cursors[0]
        if self.tracer.join_at is None:
            roles = [kernel]  # hand-written arrivals in one program: one role
        else:
            # (No op before the partitions that the roles could conflict with: see
            # RoleTracer.tcgen05.)
            self.advance(kernel, self.tracer.join_at)
            roles = self.cursors[1:]
        self.run_concurrently(roles)
        if self.tracer.join_at is None:
            self.check_overruns()
            self.check_in_flight({None: kernel.view})
            return
        # The joining barrier: every role's released loads and stores and proxy-fenced
        # fills are synchronized with the kernel's program after it.
        for index, cursor in enumerate(roles, start=1):
            kernel.view.join(cursor.view)
            kernel.view.vc[index] = cursor.at
            kernel.view.rel[(index, LD)] = max(kernel.view.rel.get((index, LD), -1),
                                                 cursor.released[LD])
            kernel.view.rel[(index, ST)] = max(kernel.view.rel.get((index, ST), -1),
                                                 cursor.released[ST])
            kernel.view.prox[index] = max(kernel.view.prox.get(index, -1), cursor.proxied)
        self.advance(kernel, len(kernel.trace))
        self.check_overruns()
        self.check_in_flight({None: kernel.view})

    def note_asynchronous(self, barrier, phase: int, event: Event) -> None:
        """Keeps the latest phase an asynchronous arrival (a commit's, a TMA load's
        complete_tx) falls in on `barrier` (phases of one mbarrier complete in order, so
        the latest one known complete covers the others)."""
        if phase < 0:
            return
        found = self.asynchronous.get(barrier)
        if found is None or phase >= found[0]:
            self.asynchronous[barrier] = (phase, event)

    def owner(self, barrier):
        """The CTA whose shared memory holds `barrier` (one CTA: None)."""
        return None

    def mbarrier_text(self, barrier) -> str:
        """An mbarrier as messages name it: its alloc_mbarrier and ring stage."""
        stage = None
        if isinstance(barrier, tuple):   # (ring, stage) of an mbarrier ring
            barrier, stage = barrier
        owner = defining_op(barrier)
        where = f"allocated at {line_col_text(owner)}" if owner is not None else "of the kernel"
        return f"({'stage %d of the ring ' % stage if stage is not None else ''}{where})"

    def deadlock_reason(self, barrier, phase: int) -> str:
        """Why the phase never completes: too few arrivals in every role's whole program,
        or arrivals that come only after waits that cannot return."""
        count = self.tracer.counts[barrier]
        total, roles = 0, []
        for cursor in self.cursors:
            for event in cursor.trace:
                if event.barrier is not None and event.barrier == barrier:
                    if event.kind in ("commit", EXPECT_TX):
                        total += 1
                    elif event.kind == "mbarrier_arrive":
                        total += cursor.threads
                    else:
                        continue
                    if cursor.name not in roles:
                        roles.append(cursor.name)
        if total < (phase + 1) * count:
            return (f"only {total} arrivals reach it in the whole kernel (it needs "
                    f"{(phase + 1) * count})")
        names = ", ".join(f"'{name}'" for name in roles)
        return (f"the arrivals that complete it (role {names}) come only after waits that "
                f"never return: the roles deadlock")

    def advance(self, cursor: Cursor, end: int) -> None:
        while cursor.at < end:
            event = cursor.trace[cursor.at]
            if not self.step(cursor, event):
                return
            cursor.view.vc[event.role] = event.index + 1
            cursor.at += 1

    def step(self, cursor: Cursor, event: Event) -> bool:
        """Executes one event; False when it is a wait that cannot return yet."""
        self.steps += 1
        kind = event.kind
        if event.inst is not None:
            if kind == TMA_LOAD:
                phase = cursor.open_expect.get(event.barrier)
                if phase is None:
                    self.problem(event.op, ("expect_tx",),
                                 "tcgen05.tma_load signals complete_tx on an mbarrier with no "
                                 "tcgen05.mbarrier_expect_tx of its role in the current phase "
                                 "(none since its role's last wait or commit on it): "
                                 "the phase completes without its bytes, or its bytes land "
                                 "in a later phase (PTX ISA 9.7.13.15)")
                    phase = -1
                event.parity = phase
            self.check(cursor, event)
            self.record(event)
            if kind == TMA_LOAD:
                self.note_asynchronous(event.barrier, event.parity, event)
        elif kind == "commit":
            cursor.open_expect.pop(event.barrier, None)
            phase = self.arrive(cursor, event, 1)
            self.note_asynchronous(event.barrier, phase, event)
            cursor.commits.append(event.index)
            cursor.commit_at.append((event.barrier, phase))
        elif kind == EXPECT_TX:
            cursor.open_expect[event.barrier] = self.arrive(cursor, event, 1)
        elif kind == "mbarrier_arrive":
            self.arrive(cursor, event, cursor.threads)
        elif kind == "mbarrier_wait":
            # A load after a wait or commit on its mbarrier needs an expect_tx of its own
            # (as in the one-program verifier).
            cursor.open_expect.pop(event.barrier, None)
            return self.wait(cursor, event)
        elif kind in ("wait_ld", "wait_st"):
            cursor.waited[kind[5:]] = event.index
        elif kind == "fence_before_thread_sync":
            cursor.released = dict(cursor.waited)
        elif kind == "fence_after_thread_sync":
            cursor.acquired = cursor.view.copy()
        elif kind == "fence_proxy_async":
            cursor.proxied = event.index
        elif kind == "barrier":
            cursor.view.rel[(event.role, LD)] = cursor.released[LD]
            cursor.view.rel[(event.role, ST)] = cursor.released[ST]
            cursor.view.prox[event.role] = cursor.proxied
        elif kind == "dealloc":
            self.check_dealloc(cursor, event)
        return True

    def arrive(self, cursor: Cursor, event: Event, count: int) -> int:
        """Records `count` arrivals by `event`; returns the phase of the first."""
        barrier = event.barrier
        owner = self.arriving.setdefault(barrier, event.role)
        if owner != event.role:
            raise Unsupported(event.op, f"tcgen05-verify-sync checks mbarriers whose "
                                        f"arrivals come from one role: this one has "
                                        f"arrivals from role '{self.cursors[owner].name}' "
                                        f"and '{cursor.name}' (which phase each falls in "
                                        f"depends on the interleaving)")
        per_phase = self.tracer.counts[barrier]
        arrivals = self.arrivals.setdefault(barrier, [])
        before = arrivals[-1].upto if arrivals else 0
        phase = self.arrival_phase(cursor, event, count, barrier, before, per_phase)
        arrivals.append(Arrival(event, count, before + count, self.arrival_view(cursor, event)))
        return phase

    def arrival_phase(self, cursor: Cursor, event: Event, count: int, barrier, before: int,
                      per_phase: int) -> int:
        """The phase `count` arrivals of `event` fall in when `before` arrivals on
        `barrier` (the mbarrier, or its copy in a CTA) precede them. Reports a role's
        threads starting a phase before the role knows the previous one complete
        (9.7.13.15.16); refuses arrivals that would straddle two phases."""
        phase = before // per_phase
        if count > 1 and before % per_phase == 0 and phase >= 1 and \
                cursor.view.know.get(barrier, 0) < phase:
            self.problem(event.op, ("ahead",),
                         f"tcgen05.mbarrier_arrive by the {count} threads of role "
                         f"'{cursor.name}' starts phase {phase} of the mbarrier before the "
                         f"role knows phase {phase - 1} complete: a thread that runs ahead "
                         f"arrives in phase {phase - 1} instead (missing an mbarrier wait "
                         f"between the two arrivals, 9.7.13.15.16)")
        if (before + count) // per_phase != phase and (before + count) % per_phase and \
                count > 1:
            raise Unsupported(event.op, "the arrivals of this tcgen05.mbarrier_arrive fall "
                                        "into two phases of its mbarrier")
        return phase

    @staticmethod
    def arrival_view(cursor: Cursor, event: Event):
        """What an arrival of `event` publishes: its role's program up to it and, when
        every thread of the role arrives (mbarrier_arrive), what the role released or
        proxy-fenced, synchronized with whoever observes the phase."""
        view = cursor.view.copy()
        view.vc[event.role] = event.index + 1
        if event.kind == "mbarrier_arrive":
            for kind in (LD, ST):
                view.rel[(event.role, kind)] = max(view.rel.get((event.role, kind), -1),
                                                   cursor.released[kind])
            view.prox[event.role] = max(view.prox.get(event.role, -1), cursor.proxied)
        return view

    def wait(self, cursor: Cursor, event: Event) -> bool:
        """mbarrier_wait for a parity, as try_wait.parity behaves (module docstring)."""
        barrier = event.barrier
        known = cursor.view.know.get(barrier, 0)
        # The first phase c >= known whose parity is the wait's must end: phases below
        # `ends` are then complete.
        ends = known + 1 if (known & 1) == event.parity else known
        if ends > known:
            needed = ends * self.tracer.counts[barrier]
            arrivals = self.arrivals.get(barrier, [])
            completing = next((a for a in arrivals if a.upto >= needed), None)
            if completing is None:
                cursor.blocked = (event, ends - 1)
                return False
            cursor.view.join(completing.view)
            cursor.view.know[barrier] = max(cursor.view.know.get(barrier, 0), ends)
        cursor.blocked = None
        self.waits.append((event, barrier, ends))
        return True
