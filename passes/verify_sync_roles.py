"""tcgen05-verify-sync for kernels whose warp roles run concurrently (docs/partitions.md).

A kernel with ``tcgen05.partitions`` is not one program order. Each ``tcgen05.role`` is a
sequential program of its own and the roles run at the same time; what precedes the
partitions op and what follows its joining barrier (``barrier.sync 0``) is the kernel's
own program. The only orderings between two roles are the ones the kernel writes:

- an arrival on an mbarrier (``mbarrier_arrive`` by every thread of its role,
  ``tcgen05.commit``'s arrive::one once the issuing thread's earlier asynchronous tcgen05
  ops complete, 9.7.16.12.1, ``mbarrier_expect_tx`` together with the complete_tx of the
  TMA loads of its phase, PTX ISA 9.7.13.15 / 9.7.9.25.5.1) that falls in a phase which a
  ``mbarrier_wait`` of another role observes (release / acquire of the mbarrier);
- the joining barrier at the end of the partitions op;

and inside a role, program order and the role's named barrier (``tcgen05.barrier``).

How the check works. Each role's program is run on its own first (loops, ``scf.if`` and
the values of loop counters, columns and parities evaluated as the one-program verifier
does it, with the same bound on long loops: a loop of more than 8 iterations runs 4 or 5
(or, with mbarrier rings, the count modulo twice their depths: Run.shortened),
the loop's bound value rebound so that every role sharing it runs the same count), which
gives one trace of events per role. Then the traces are executed together, each role as
far as it can go: a wait stops its role until the arrivals of the phase it must observe
have been executed. Every executed point of a role carries what is ordered before it, a
vector of how far each role is ordered before it and, per mbarrier, how many of its phases
are known complete there; a wait joins what the arrival completing its phase carried. A
wait for parity P returns as ``mbarrier.try_wait.parity`` does: it gives no ordering
beyond the first phase c >= (phases known complete) with parity P it must see end. So a
wait whose parity names an already-complete phase gives nothing, and the phase it joins is
the one the counters computed for this iteration name (a wait in iteration i observes the
producer's iteration i of the same stage when the parities are right, and otherwise the
accesses it was meant to order stay unordered and are reported).

Conflicting accesses (TMEM cells one writes and the other reads or writes; a shared-memory
tile written by ``smem_fill`` or ``tma_load`` and read by an MMA or ``cp``, either way
round) are checked pairwise when the later one executes. What the earlier access needs
to have reached, seen from the later one:

====================================  ======================================================
earlier -> later                      needed
====================================  ======================================================
mma/cp/shift -> mma/cp/shift, ld, st   a tcgen05.commit after it (same thread), a wait that
                                      observes that commit's phase (directly or through
                                      other roles' mbarriers), then
                                      tcgen05.fence::after_thread_sync in the later role
                                      (9.7.16.6.4.2 / 9.7.16.6.4.4); in one role the
                                      pipelined pairs of 9.7.16.6.2 need nothing
mma/cp -> smem_fill / tma_load of a    completion observed as above, no fence (9.7.16.6.5)
tile it reads
ld/st -> mma/cp/shift/ld/st            tcgen05.wait::ld / ::st, fence::before_thread_sync,
(another role)                        an arrival that a wait of the later role observes,
                                      then fence::after_thread_sync (9.7.16.6.4.4)
ld/st -> ld/st (same role)            tcgen05.wait::ld / ::st between (9.7.16.6.4.2)
ld/st -> mma/cp/shift (same role)      wait, fence::before_thread_sync, the role's barrier,
                                      fence::after_thread_sync (9.7.16.6.4.4)
smem_fill -> mma/cp reading the tile   fence.proxy.async before an arrival that the later
                                      role's wait observes (or, in one role, before its
                                      barrier) (9.7.16.6.5)
tma_load -> anything on its tile       a wait that observes the phase of the expect_tx it
                                      joined (complete_tx, 9.7.9.25.5.1)
any TMEM access -> tcgen05.dealloc     as for a single-thread consumer, through the joining
                                      barrier and the kernel's fence::after_thread_sync
====================================  ======================================================

Asynchronous arrivals are checked at exit: the latest phase that a ``tcgen05.commit``'s
arrive-on (multicast or not) or a TMA load's complete_tx falls in on an mbarrier must be
known complete where the CTA holding that mbarrier exits (after the joining barrier),
else the arrival may land in the shared memory of a CTA that has exited: the ISA orders
neither a commit's arrival after another's (9.7.16.12.1) nor complete_tx after anything
the thread does (9.7.9.25.5.1). The ring's producer tail, the load role's last wait on
each empty stage, is what satisfies it for the last commits to the empty mbarriers. A
thread's own ``mbarrier_arrive`` (local, or ``cta = "even"``: release at cluster scope)
is performed before the thread passes the joining barrier, so it needs nothing.

The mbarrier protocol is checked too: a wait whose phase can never complete (too few
arrivals, or arrivals that only come after it: the roles deadlock), a phase that may
complete before a wait that must see it incomplete runs (the wait would then wait for the
phase after, 9.7.13.15.16: its arrivals must be ordered after the wait), and an
``mbarrier_arrive`` by several threads that starts phase j + 1 before its role knows phase
j complete (a thread running ahead would count towards phase j).

Model and limits, each refused with a located diagnostic rather than guessed: the arrivals
on one mbarrier come from one role (phases then follow that role's program order); the
threads of a role are taken as passing each point of its program together, as the one
program verifier takes the CTA; conditions, loop bounds and parities must evaluate (loops
of constant trip count); one ``tcgen05.partitions``, at the top level of the kernel, and no
TMEM or shared-memory access, commit, arrival or wait outside its roles. Not checked here:
a load executed again before its registers are read (9.7.16.6.4.5), and two generic-proxy
fills of one tile by different roles. A ``cta_group::2`` kernel runs each program once per
CTA of the pair (passes/verify_sync_pairs.py, which reuses this module's tracer and
executor). A stage of a TMEM
ring (``tmem_stage``) whose index evaluates has its own cells (RoleTracer.buffer_cells), so
a double-buffered accumulator's MMA into one stage and another role's loads of the other
do not conflict; otherwise the whole ring counts, as in the one-program verifier. A
stage of an mbarrier ring (``mbarrier_stage``) whose index evaluates is an mbarrier of
its own, of the ring's count (Run.mbarrier_name); one whose index does not is refused.

It shares no code with tcgen05-insert-sync: it reuses the one-program verifier's
evaluation of values and footprints (``tcgen05_verify_sync.Run``) and nothing else.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, FenceOp, LdOp, StOp, TmemBufferOp,
                                       SmemStageOp, TmemStageOp, WaitOp)
from tcgen05_lower.tma import BARRIERLESS, load_barrier
from tcgen05_lower.kernel_ir import (PARTITIONS_OP, defining_op, has_partitions,
                                     partition_roles, role_info)
from tcgen05_lower.passes.tcgen05_verify_sync import (
    ANY_TILE, FULL_LANES, LOADS, SINGLE_THREAD_OPS, TMA_LOAD, TMEM_COLUMNS, EXPECT_TX,
    Footprint, Run, Unsupported, _lanes, _placed, _where)

#: The two kinds of warpgroup access that tcgen05.wait completes (::ld, ::st).
LD, ST = LdOp.NAME, StOp.NAME
#: Ops that access TMEM or a shared-memory tile (an Instance each).
ACCESSES = SINGLE_THREAD_OPS + LOADS + (ST, "smem_fill", TMA_LOAD)
#: What the kernel's own program may do in a kernel with partitions.
KERNEL_OPS = ("alloc_mbarrier", "mbarrier_stage", "fence", "dealloc", "barrier", "smem_buffer", "tmem_buffer",
              "tmem_stage", "alloc", "relinquish_alloc_permit")
#: The name of the kernel's own program (what precedes and follows the partitions).
KERNEL = "(kernel)"


@dataclass
class Event:
    """One executed op of one role's program."""

    role: int
    index: int
    op: object
    kind: str
    inst: object = None  # the access (tcgen05_verify_sync.Instance)
    barrier: object = None
    parity: int = 0


@dataclass
class View:
    """What is ordered before one point of a role's program."""

    vc: dict = field(default_factory=dict)     # role -> events of it ordered before
    know: dict = field(default_factory=dict)   # mbarrier -> phases known complete
    rel: dict = field(default_factory=dict)    # (role, LD|ST) -> released below
    prox: dict = field(default_factory=dict)   # role -> fills proxy-fenced below

    def copy(self) -> "View":
        return View(dict(self.vc), dict(self.know), dict(self.rel), dict(self.prox))

    def join(self, other: "View") -> None:
        for mine, theirs in ((self.vc, other.vc), (self.know, other.know),
                             (self.rel, other.rel), (self.prox, other.prox)):
            for key, value in theirs.items():
                if value > mine.get(key, -1):
                    mine[key] = value


@dataclass
class Arrival:
    """Arrivals on an mbarrier: `count` of them by one event, with what it carries."""

    event: Event
    count: int
    upto: int  # arrivals on the mbarrier up to and including these
    view: View


@dataclass
class Cursor:
    """A role's progress through its trace."""

    name: str
    threads: int
    trace: list
    at: int = 0
    view: View = field(default_factory=View)
    acquired: View = field(default_factory=View)  # the view at its last after_thread_sync
    waited: dict = field(default_factory=lambda: {LD: -1, ST: -1})
    released: dict = field(default_factory=lambda: {LD: -1, ST: -1})
    proxied: int = -1
    commits: list = field(default_factory=list)  # event indices of its commits
    commit_at: list = field(default_factory=list)  # (barrier, phase) of each commit
    open_expect: dict = field(default_factory=dict)  # barrier -> phase of its expect_tx
    blocked: object = None


class RoleTracer(Run):
    """Runs each role's program alone and records its events (values, loops and
    footprints as tcgen05_verify_sync.Run evaluates them)."""

    def __init__(self, pass_, kernel):
        super().__init__(pass_, kernel)
        self.traces: list = []  # per role: [Event]
        self.names: list = []
        self.threads: list = []
        self.current = None
        self.counts: dict = {}  # mbarrier -> arrivals per phase
        self.partitions = None
        self.has_partitions = has_partitions(kernel)
        self.join_at = None

    def trace(self) -> None:
        if self.pair:
            raise Unsupported(self.kernel, "tcgen05-verify-sync does not check warp roles or "
                                           "hand-written mbarrier arrivals in a cta_group::2 "
                                           "kernel")
        self.start(KERNEL, d.kernel_info(self.kernel).threads)
        self.run()

    def start(self, name: str, threads: int) -> None:
        self.names.append(name)
        self.threads.append(threads)
        self.traces.append([])
        self.current = len(self.traces) - 1

    def execute(self, op) -> None:
        if op.name == PARTITIONS_OP:
            self.fork(op)
            return
        super().execute(op)

    def fork(self, op) -> None:
        """Runs every role's program into a trace of its own."""
        if self.partitions is not None or op.parent.operation != self.kernel.operation:
            raise Unsupported(op, "tcgen05-verify-sync checks one tcgen05.partitions at the "
                                  "top level of a kernel (not inside a loop or branch, not "
                                  "twice)")
        self.partitions = op
        kernel = self.current
        self.join_at = len(self.traces[kernel])
        for index, role_op in enumerate(partition_roles(op)):
            role = role_info(role_op, index)
            self.start(role.name, role.threads)
            self.block(role_op.regions[0].blocks[0])
        self.current = kernel

    def alternatives(self, op, blocks) -> None:
        raise Unsupported(op, "tcgen05-verify-sync follows the roles of a kernel with "
                              "partitions only through conditions it can evaluate: this "
                              "condition does not")

    def loop(self, op) -> None:
        if self.eval.value(op.operands[1]) is None and op.operands[1] not in self.eval.bound \
                and not defined_before(op.operands[1], self.partitions):
            raise Unsupported(op, "tcgen05-verify-sync checks the loops of a kernel with "
                                  "partitions only with an upper bound it can evaluate: "
                                  "the phases one role's loop completes must match the "
                                  "waits of another's")
        super().loop(op)

    def while_loop(self, op) -> None:
        self.in_while = op
        super().while_loop(op)

    def snapshot(self):
        raise Unsupported(getattr(self, "in_while", self.kernel),
                          "tcgen05-verify-sync follows the roles of a kernel with partitions "
                          "only through scf.while conditions it can evaluate")

    def register_reads(self, op) -> None:
        """(Not modeled across roles; see the module docstring.)"""

    def varies(self, value) -> bool:
        """A stage of a TMEM ring or of a shared-memory ring is evaluated at each
        execution (its index may follow a loop counter)."""
        op = defining_op(value)
        if op is not None and (TmemStageOp.matches(op) or SmemStageOp.matches(op)):
            return True
        return super().varies(value)

    def tiles(self, value) -> list:
        """Stage i of a shared-memory ring, when i evaluates to a stage of it, is a tile
        of its own: (the ring, i). The lowering places stage i at i times the stage's
        stride from the ring's base, strides that do not overlap (lowering/smem.py), so
        two stages share no byte. An index outside the ring may address any tile; an
        index that does not evaluate names the whole ring, as the one-program verifier
        takes every stage view."""
        op = defining_op(value)
        if op is None or not SmemStageOp.matches(op):
            return super().tiles(value)
        view = SmemStageOp(op)
        index = self.eval.value(view.stage)
        if index is None:
            return super().tiles(value)
        if not 0 <= index < d.type_info(view.tile.type).stages:
            return [ANY_TILE]
        return [ring if ring is ANY_TILE else (ring, index)
                for ring in super().tiles(view.tile)]

    def buffer_cells(self, value) -> list:
        """The cells of stage i of a planned TMEM ring when i evaluates, where the
        planner put it (``stage_layout``, ``stage_stride``: column_blocks, stage i at
        ``i * stride`` columns after stage 0; lane_pairs, stages 2j and 2j + 1 at columns
        ``j * stride`` on lane halves 0 and 16), the address the lowering computes
        (lowering/views.py, 9.7.16.1.1). An index past the last stage may address any
        cell. Otherwise (the index does not evaluate) the whole ring, as the
        one-program verifier takes it."""
        op = defining_op(value)
        if op is None or not TmemStageOp.matches(op):
            return super().buffer_cells(value)
        view = TmemStageOp(op)
        index = self.eval.value(view.stage)
        roots = self.roots(view.buffer)
        owner = defining_op(roots[0]) if len(roots) == 1 else None
        if index is None or not _placed(owner) or \
                not TmemBufferOp(owner).has(TmemBufferOp.stage_layout):
            return super().buffer_cells(value)
        buffer = TmemBufferOp(owner)
        stages = d.type_info(buffer.buffer.type).shape[0]
        if not 0 <= index < stages:
            return [(Footprint(0, TMEM_COLUMNS, FULL_LANES, known=False), False)]
        stride, columns = buffer.stage_stride, buffer.columns or 0
        if buffer.stage_layout == "lane_pairs":
            first = buffer.column_offset + (index // 2) * stride
            lanes = _lanes(16 * (index % 2), True)
        else:
            first = buffer.column_offset + index * stride
            lanes = _lanes(buffer.lane_offset or 0, bool(buffer.half_lanes))
        return [(Footprint(first, first + columns, lanes), False)]

    def tcgen05(self, op) -> None:
        name = d.op_name(op)
        if name is None:
            return
        role = self.current
        if role == 0 and self.has_partitions and name not in KERNEL_OPS:
            raise Unsupported(op, f"tcgen05-verify-sync does not model tcgen05.{name} outside "
                                  f"the roles of a kernel with partitions")
        events = self.traces[role]
        event = Event(role, len(events), op, name)
        if name in ACCESSES:
            event.inst = self.instance(op, name)
        elif name == "alloc_mbarrier":
            for key in self.mbarrier_keys(op):
                self.counts[key] = AllocMbarrierOp(op).count
            return
        elif name in ("commit", "mbarrier_arrive", EXPECT_TX, "mbarrier_wait"):
            event.barrier = self.known_mbarrier(op, op.operands[0])
            if name == "mbarrier_wait":
                if len(op.operands) < 2:
                    raise Unsupported(op, "a wait without a phase operand in a kernel with "
                                          "partitions (docs/partitions.md)")
                parity = self.eval.value(op.operands[1])
                if parity is None:
                    raise Unsupported(op, "tcgen05-verify-sync cannot evaluate the phase "
                                          "parity of this wait")
                event.parity = parity & 1
        if name == TMA_LOAD:
            barrier = load_barrier(op)
            if barrier is None:
                raise Unsupported(op, BARRIERLESS)
            event.barrier = self.known_mbarrier(op, barrier)
        elif name == "wait":
            event.kind = "wait_" + WaitOp(op).kind
        elif name == "fence":
            event.kind = "fence_" + FenceOp(op).kind
        events.append(event)


    def known_mbarrier(self, op, value):
        """The mbarrier `value` names (a stage of a ring whose index evaluates is one of
        its own: Run.mbarrier_name), one the kernel allocates."""
        barrier = self.mbarrier_name(op, value)
        if barrier not in self.counts:
            raise Unsupported(op, "tcgen05-verify-sync cannot tell which "
                                  "tcgen05.alloc_mbarrier this op's mbarrier is")
        return barrier


class Concurrent:
    """Executes the role traces together and reports what is unordered (module
    docstring)."""

    def __init__(self, tracer: RoleTracer):
        self.tracer = tracer
        self.cursors = [Cursor(name, threads, trace) for name, threads, trace in
                        zip(tracer.names, tracer.threads, tracer.traces)]
        self.arrivals: dict = {}  # mbarrier -> [Arrival]
        self.arriving: dict = {}  # mbarrier -> role
        self.waits: list = []  # (event, barrier, phase it must see incomplete)
        self.history: dict = {}  # (role, kind, cells, tiles, ..) -> the latest such access
        self.index: dict = {}  # (bucket, "r" | "w") -> the history keys there
        self.problems: dict = {}
        self.checked = 0
        self.steps = 0
        #: mbarrier (or copy) -> (phase, event) of the latest asynchronous arrival on it
        #: (a commit's arrive, a TMA load's complete_tx): check_in_flight.
        self.asynchronous: dict = {}

    # ------------------------------------------------------------------ driver

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

    def check_in_flight(self, exits: dict) -> None:
        """At the exit of the CTA that holds an mbarrier (its program's end, after the
        joining barrier: `exits`, CTA -> the view there), every asynchronous arrival on
        it must be known complete: a tcgen05.commit's arrive-on is performed when the
        tcgen05 ops before it complete, unordered with the arrivals of other commits
        (9.7.16.12.1), and a TMA load's complete_tx when its bytes land (9.7.9.25.5.1);
        one still in flight at exit lands in the shared memory of a CTA that has
        exited. A thread's own mbarrier_arrive (local, or remote with release at
        cluster scope) is performed before the thread passes the joining (cluster)
        barrier, and needs nothing. The phase of the latest arrival must be observed by
        a wait (the producer tail of a ring: docs/partitions.md). Not checked when a
        wait deadlocks (the kernel never exits; reported already)."""
        if any(cursor.blocked is not None for cursor in self.cursors):
            return
        missing: dict = {}
        for barrier, (phase, event) in self.asynchronous.items():
            view = exits.get(self.owner(barrier))
            if view is None or view.know.get(barrier, 0) > phase:
                continue
            missing.setdefault(event.op, []).append((barrier, phase, event))
        for op, entries in missing.items():
            event = entries[0][2]
            load = event.kind == TMA_LOAD
            what = "the complete_tx of tcgen05.tma_load" if load else \
                f"the arrival of {op.name}"
            which = "; ".join(f"phase {phase} (parity {phase & 1}) of the mbarrier "
                              f"{self.mbarrier_text(barrier)}"
                              for barrier, phase, _ in entries)
            self.problem(op, ("in flight",),
                         f"{what} in role '{self.cursors[event.role].name}' may still be "
                         f"in flight when the CTA holding its mbarrier exits: no wait "
                         f"observes {which} (an asynchronous arrival, "
                         f"{'9.7.9.25.5.1' if load else 'unordered with the arrivals of other commits, 9.7.16.12.1'}); "
                         f"missing an mbarrier wait for that phase before the join"
                         + ("" if load else " (a ring's producer tail: the load role "
                                            "waits once more on each empty stage after "
                                            "its loop)"))

    def mbarrier_text(self, barrier) -> str:
        """An mbarrier as messages name it: its alloc_mbarrier and ring stage."""
        stage = None
        if isinstance(barrier, tuple):   # (ring, stage) of an mbarrier ring
            barrier, stage = barrier
        owner = defining_op(barrier)
        where = f"allocated at {_where(owner)}" if owner is not None else "of the kernel"
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

    # ------------------------------------------------------------------ events

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

    # ------------------------------------------------------------------ checks

    @staticmethod
    def places(inst) -> list:
        """(bucket, "r" | "w") of what `inst` reads and writes: 32-column granules of TMEM
        and shared-memory tiles (a tile that may be any is its own bucket, which every
        tile meets)."""
        found = []
        for cells, mode in [(c, "r") for c in inst.tmem_reads] + \
                [(c, "w") for c in inst.tmem_writes]:
            for granule in range(cells.lo // 32, max(cells.lo, cells.hi - 1) // 32 + 1):
                found.append((("tmem", granule), mode))
        for tiles, mode in ((inst.tiles_read, "r"), (inst.tiles_written, "w")):
            for tile in tiles:
                found.append((("tile", ANY_TILE if tile is ANY_TILE else tile), mode))
        return found

    def record(self, event: Event) -> None:
        """Keeps, per role, the latest access of each kind (op name, and for an MMA its
        shape, for a TMA load its mbarrier) on the same cells and tiles: an access ordered
        after it is ordered after the earlier ones too, since what orders it (a commit
        after it, a tcgen05.wait, a fence, a later phase of the same mbarrier) comes later
        in the same role's program. So the history stays as large as the kernel's
        distinct accesses, whatever the loops and unrolling."""
        inst = event.inst
        cells = tuple((c.lo, c.hi, c.lanes) for c in inst.tmem_reads + inst.tmem_writes)
        tiles = tuple(inst.tiles_read) + tuple(inst.tiles_written)
        key = (event.role, event.kind, inst.shape_key, cells, tiles,
               event.barrier if event.kind == TMA_LOAD else None)
        if key not in self.history:
            for bucket, mode in self.event_places(event):
                self.index.setdefault((bucket, mode), {})[key] = None
                if bucket[0] == "tile":
                    self.index.setdefault((self.any_tile(bucket), mode), {})[key] = None
        self.history[key] = event

    def event_places(self, event: Event) -> list:
        """The (bucket, mode) places `event` accesses (one CTA: its instruction's)."""
        return self.places(event.inst)

    @staticmethod
    def any_tile(bucket) -> tuple:
        """The bucket standing for every tile of `bucket`'s memory (one CTA: all)."""
        return ("tile", "*")

    def candidates(self, inst) -> list:
        """The recorded accesses that may conflict with `inst` (one reads what the other
        writes, or both write), each once."""
        keys: dict = {}
        for (kind, what), mode in self.places(inst):
            wanted = ("w",) if mode == "r" else ("w", "r")
            buckets = [(kind, what)]
            if kind == "tile":
                buckets = [("tile", "*")] if what is ANY_TILE else \
                    [(kind, what), ("tile", ANY_TILE)]
            for bucket in buckets:
                for other in wanted:
                    keys.update(self.index.get((bucket, other), {}))
        return [self.history[key] for key in keys]

    def check(self, cursor: Cursor, later: Event) -> None:
        for earlier in self.candidates(later.inst):
            self.checked += 1
            conflict = self.tracer.overlap(earlier.inst, later.inst)
            if conflict is None:
                continue
            missing, section = self.missing(cursor, earlier, later)
            if missing is None:
                continue
            what, verb = conflict
            roles = (f"role '{cursor.name}'" if earlier.role == later.role else
                     f"role '{cursor.name}' and role '{self.cursors[earlier.role].name}'")
            self.problem(later.op, (earlier.op, missing),
                         f"{later.op.name} in role '{cursor.name}' {what} that "
                         f"{earlier.op.name} at {_where(earlier.op)} in role "
                         f"'{self.cursors[earlier.role].name}' {verb}, without ordering "
                         f"between {roles}: missing {missing} ({section})")

    def complete(self, earlier: Event, view: View) -> bool:
        """Whether the single-thread op or TMA load `earlier` is known complete in `view`."""
        if earlier.kind == TMA_LOAD:
            return earlier.parity < 0 or view.know.get(earlier.barrier, 0) > earlier.parity
        owner = self.cursors[earlier.role]
        seen = set()
        for position in range(bisect_right(owner.commits, earlier.index), len(owner.commits)):
            barrier, phase = owner.commit_at[position]
            if barrier in seen:
                continue
            seen.add(barrier)
            if view.know.get(barrier, 0) > phase:
                return True
        return False

    def missing(self, cursor: Cursor, earlier: Event, later: Event) -> tuple:
        """(what is missing, the ISA section), or (None, None) when ordered."""
        a, b = earlier.inst, later.inst
        same = earlier.role == later.role
        if earlier.kind == TMA_LOAD:
            if self.complete(earlier, cursor.view):
                return None, None
            return ("an mbarrier wait for the phase of the tcgen05.mbarrier_expect_tx that "
                    "the load joined", "PTX ISA 9.7.9.25.5.1, complete_tx")
        if a.single_thread:
            if same and b.single_thread and self.tracer.pipelined(a, b):
                return None, None
            if not (b.single_thread or b.warpgroup):
                if self.complete(earlier, cursor.view):
                    return None, None
                return ("tcgen05.commit after it -> an mbarrier wait for that commit's phase",
                        "9.7.16.6.5")
            section = "9.7.16.6.4.2" if b.single_thread else "9.7.16.6.4.4"
            if self.complete(earlier, cursor.acquired):
                return None, None
            if self.complete(earlier, cursor.view):
                return "tcgen05.fence::after_thread_sync after the mbarrier wait", section
            return ("tcgen05.commit after it -> an mbarrier wait for that commit's phase -> "
                    "tcgen05.fence::after_thread_sync"), section
        if a.warpgroup:
            kind = ST if earlier.kind == ST else LD
            if same and b.warpgroup:
                if cursor.waited[kind] > earlier.index:
                    return None, None
                return f"tcgen05.wait::{kind}", "9.7.16.6.4.2"
            if cursor.acquired.rel.get((earlier.role, kind), -1) > earlier.index:
                return None, None
            if cursor.view.rel.get((earlier.role, kind), -1) > earlier.index:
                return "tcgen05.fence::after_thread_sync after the synchronization", \
                    "9.7.16.6.4.4"
            if same:
                steps = [f"tcgen05.wait::{kind}", "tcgen05.fence::before_thread_sync",
                         "the role's barrier (tcgen05.barrier)",
                         "tcgen05.fence::after_thread_sync"]
                first = 2 if cursor.released[kind] > earlier.index else \
                    1 if cursor.waited[kind] > earlier.index else 0
                return " -> ".join(steps[first:]), "9.7.16.6.4.4"
            sync = f"mbarrier_arrive (role '{self.cursors[earlier.role].name}') -> mbarrier wait"
            return (f"tcgen05.wait::{kind} -> tcgen05.fence::before_thread_sync -> {sync} -> "
                    f"tcgen05.fence::after_thread_sync"), "9.7.16.6.4.4"
        # smem_fill (generic-proxy writes) -> an async-proxy read of the tile
        if not b.single_thread:
            return None, None
        if cursor.view.prox.get(earlier.role, -1) > earlier.index:
            return None, None
        sync = "the role's barrier" if same else \
            f"mbarrier_arrive (role '{self.cursors[earlier.role].name}') -> mbarrier wait"
        return f"fence.proxy.async -> {sync}", "9.7.16.6.5"

    def check_dealloc(self, cursor: Cursor, event: Event) -> None:
        for earlier in self.history.values():
            self.checked += 1
            inst = earlier.inst
            if earlier.kind in ("smem_fill", TMA_LOAD):
                continue
            if inst.single_thread:
                if self.complete(earlier, cursor.acquired):
                    continue
                missing = ("tcgen05.fence::after_thread_sync after the joining barrier"
                           if self.complete(earlier, cursor.view) else
                           "tcgen05.commit after it -> an mbarrier wait for its phase "
                           "before the joining barrier -> tcgen05.fence::after_thread_sync")
            else:
                kind = ST if earlier.kind == ST else LD
                if cursor.acquired.rel.get((earlier.role, kind), -1) > earlier.index:
                    continue
                missing = ("tcgen05.fence::after_thread_sync after the joining barrier"
                           if cursor.view.rel.get((earlier.role, kind), -1) > earlier.index
                           else f"tcgen05.wait::{kind} -> tcgen05.fence::before_thread_sync "
                                f"in role '{self.cursors[earlier.role].name}' -> the "
                                f"joining barrier -> tcgen05.fence::after_thread_sync")
            cells = (inst.tmem_writes or inst.tmem_reads)[0].text()
            self.problem(event.op, (earlier.op, missing),
                         f"tcgen05.dealloc frees {cells} that {earlier.op.name} at "
                         f"{_where(earlier.op)} in role '{self.cursors[earlier.role].name}' "
                         f"accesses, without ordering: missing {missing} (9.7.16.6.4.4)")

    def check_overruns(self) -> None:
        """A wait must run before the phase after the one it waits for can complete
        (module docstring)."""
        for event, barrier, ends in self.waits:
            count = self.tracer.counts[barrier]
            arrivals = self.arrivals.get(barrier, [])
            completing = next((a for a in arrivals if a.upto >= (ends + 1) * count), None)
            if completing is None or completing.view.vc.get(event.role, 0) > event.index:
                continue
            by = completing.event
            self.problem(event.op, ("overrun",),
                         f"phase {ends} of this wait's mbarrier may complete before the "
                         f"wait (for parity {event.parity}) in role "
                         f"'{self.cursors[event.role].name}' runs: its arrival "
                         f"{by.op.name} at {_where(by.op)} in role "
                         f"'{self.cursors[by.role].name}' is not ordered after the wait, "
                         f"which then waits for phase {ends + 1} (9.7.13.15.16)")

    def problem(self, op, key: tuple, message: str) -> None:
        self.problems.setdefault((op, key), (op, message))


def defined_before(value, partitions) -> bool:
    """Whether `value` bounds loops in several roles and is a kernel argument or defined
    in the kernel's body before the partitions op: then those roles run their loops the
    same run-time number of times, which the pass takes as UNKNOWN_TRIPS in each (the
    ring protocol of tcgen05_lower/synchronization/rings.py plans such loops from the
    same value); a bound that one role's loop alone has is refused (its phases could not
    be matched with another role's waits)."""
    if partitions is None:
        return False
    op = defining_op(value)
    if op is None:
        owner = value.owner.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if owner is None or owner.name != "func.func":
            return False
    elif op.block != partitions.block:
        return False
    return sum(any(inner.name == "scf.for" and inner.operands[1] == value
                   for inner in d.walk_ops(role)) for role in partition_roles(partitions)) > 1


def check_roles(pass_, kernel) -> tuple:
    """(problems [(op, message)], steps, pairs checked, long loops shortened) of a kernel
    with partitions or hand-written arrivals; raises Unsupported. A cta_group::2 kernel
    runs each program once per CTA of the pair (passes/verify_sync_pairs.py)."""
    if d.kernel_info(kernel).cta_group == 2:
        from tcgen05_lower.passes.verify_sync_pairs import check_pair_roles

        return check_pair_roles(pass_, kernel)
    tracer = RoleTracer(pass_, kernel)
    tracer.trace()
    concurrent = Concurrent(tracer)
    concurrent.run()
    return (list(concurrent.problems.values()), concurrent.steps, concurrent.checked,
            tracer.truncated)
