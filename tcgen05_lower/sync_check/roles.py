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
CTA of the pair (pairs.py, which reuses this module's tracer and
executor). A stage of a TMEM
ring (``tmem_stage``) whose index evaluates has its own cells (RoleTracer.buffer_cells), so
a double-buffered accumulator's MMA into one stage and another role's loads of the other
do not conflict; otherwise the whole ring counts, as in the one-program verifier. A
stage of an mbarrier ring (``mbarrier_stage``) whose index evaluates is an mbarrier of
its own, of the ring's count (Run.mbarrier_name); one whose index does not is refused.

It shares no code with tcgen05-insert-sync: it reuses the one-program verifier's
evaluation of values and footprints (``cta.Run``) and nothing else.
"""

from __future__ import annotations

from tcgen05_lower.sync_check.role_checks import ConcurrentChecks
from tcgen05_lower.sync_check.role_schedule import ConcurrentSchedule
from tcgen05_lower.sync_check.role_trace import Cursor, RoleTracer


class Concurrent(ConcurrentSchedule, ConcurrentChecks):
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
