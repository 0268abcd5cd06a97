"""tcgen05-insert-sync: order every dependence between tcgen05 operations with the
cheapest canonical pattern of PTX ISA 9.7.16.6.4.

Runs after tcgen05-plan-tmem: dependences are found on TMEM *cells* (lane halves x
columns of the planned buffers, so two buffers that share cells depend on each other) and
on shared-memory tiles (``smem_fill`` writes them through the generic proxy, ``mma`` and
``cp`` read them through the async proxy, 9.7.16.6.5).

Execution model
---------------
A kernel is one program run by every thread of the CTA (or of the CTA pair). Following
Table 46 and the lowering: ``mma``, ``cp``, ``shift`` and ``commit`` are issued by one
thread ("the issuer"); ``ld``, ``ld_red``, ``st`` and ``wait`` by every warp of the
warpgroup, each on the lane quarter it owns (9.7.16.8.1), so two messages that touch the
same cell come from the same warp; ``smem_fill``, fences, barriers and mbarrier waits
by every thread.

Rules (producer -> consumer, when they touch the same cells or tile)
--------------------------------------------------------------------
========================  =====================================================  ==========
issuer op -> issuer op    nothing if pipelined (mma -> mma with the same           9.7.16.6.2,
                          accumulator and shape, cp -> mma, shift -> mma,           .6.4.1
                          shift -> cp.4x256b, mma -> shift); otherwise commit ->
                          mbarrier wait -> fence::after_thread_sync               .6.4.2 ex 2
issuer op -> ld/st        commit -> mbarrier wait -> fence::after_thread_sync     .6.4.4 ex 2
issuer op -> smem_fill    commit -> mbarrier wait (the async-proxy reads are      9.7.16.6.5
                          complete before the generic writes start)
ld/st -> ld/st            wait::ld / wait::st (same warp)                         .6.4.2 ex 1
ld/st -> issuer op        wait::ld/st -> fence::before_thread_sync -> barrier     .6.4.4 ex 1
                          -> fence::after_thread_sync
smem_fill -> mma/cp       fence.proxy.async -> barrier                            9.7.16.6.5
issuer op -> tma_load     commit -> mbarrier wait (the refill of a tile: its       9.7.16.6.5
                          async-proxy reads end before the TMA writes begin)
ld -> ld again            wait::ld first, unless the registers it wrote were      .6.4.5
                          read in between (true register dependencies are
                          respected; only an overwrite races the load)
anything -> dealloc       as for an issuer-op consumer (every access complete
                          and ordered before warp 0 frees the columns)
========================  =====================================================  ==========

TMA loads (``tma_load``, docs/tma.md) are consumers only: the pass orders the reads of
their tile still in flight before them, and keeps the kernel's own TMA protocol
(``mbarrier_expect_tx``, the wait on its mbarrier before the tile is read) as written,
adding nothing for it; tcgen05-verify-sync checks that protocol. A planned wait may wait
on a commit the kernel wrote (on its mbarrier, phase tracked at run time).

Pattern 9.7.16.6.4.3 (pipelined pair, different issuing threads) cannot arise: one
thread issues every mma, cp and shift, so a pipelined pair is always pattern .6.4.1.
The barrier of the cross-thread patterns is ``tcgen05.barrier`` (barrier.sync), an
execution-ordering instruction in the sense of 9.7.16.6.3.

Placement (strategy ``minimal``)
--------------------------------
One walk in program order keeps, for every asynchronous op whose effects may not be
ordered yet, how far it is: covered by a commit, complete, released by
fence::before_thread_sync, synchronized by a barrier, acquired by
fence::after_thread_sync, made visible by fence.proxy.async. A consumer that needs more
gets exactly the missing steps, merged into one group in the order waits, fences, proxy
fence, barrier, fence::after_thread_sync:

- before a loop or an ``scf.if``, for the dependences between work issued before it and
  anything inside it (so a wait for earlier work runs once, not in every iteration);
- otherwise right before the consumer (each wait as late as possible);
- commits right after the last producer they must cover (projected into the consumer's
  block), so that work issued later is not waited for: in a persistent kernel the MMAs of
  the next tile run while the epilogue reads the other accumulator. One commit covers
  every MMA before it; a consumer whose producers a commit already covers only waits, on
  that commit's mbarrier, unless that would also wait for later work it does not need;
- a loop-carried dependence (a consumer early in the body, a producer later in the body)
  gets its commit after the last op of the body that the body needs in its next
  iteration, and its wait before the consumer; the first iteration then waits for the
  phase before the first one, which a fresh mbarrier reports complete. When the first
  thing after the loop needs the same completion, the group goes at the end of the body
  instead, so that the last iteration's wait serves the code after the loop and no
  second wait is needed there (with only index arithmetic before the consumer, that is
  the same moment anyway).

Decisions inside a loop rest on what the previous iteration leaves in flight, so each
loop is walked until that settles (first without a previous iteration, then from what
the walk leaves at the end of the body; a loop known to run once has no previous
iteration, one known to run twice or more ends after an iteration that started where
the previous one ended). A later decision can make an earlier one unnecessary (a commit
placed for a later consumer, the loop's own waits serving its first iteration): every
such wait, fence and barrier is then checked again by a walk that applies all planned
ops, and dropped when all needs are met without it (a need met right where its consumer
is cannot become redundant: everything planned later sits at or after that point). So under ``minimal`` no inserted op can
be deleted with the kernel still ordered (tests/test_mutation_sync.py checks this with
tcgen05-verify-sync on every example and corpus kernel).

Branches and scf.while
----------------------
``scf.if`` and ``scf.index_switch`` run one of their regions: each is walked from the
state before the op, and the states at their ends meet (the weaker status of each op).
``scf.while`` runs ``before``, then ``after`` and
``before`` again any number of times, with no induction variable to tell iterations
apart or count commits. Inside it, every asynchronous op is completed right after it is
issued (as strategy ``conservative`` does, once per run of ops that one commit, one
wait::ld/st or one proxy fence completes together); those completions are candidates that the
final pruning walk drops when no dependence needs them, so what remains is needed, but a
wait sits right after its producer rather than right before its consumer. Kernels
written with cf branches are lifted to scf by ``lift-cf-to-scf``, the first pass of the
default pipeline.

Buffers chosen at run time
--------------------------
A TMEM value that control flow chooses (an scf.if / scf.index_switch result, what
lift-cf-to-scf makes of a block argument; an scf.for or scf.while iteration argument or
result) stands for every cell of every buffer that can reach it. Two MMAs of one shape
are the pipelined "same accumulator" pair when, whichever buffers their accumulators
are, those are the same buffer or share no cell (then they do not depend on each other);
a value the pass cannot trace never is. The checking walk (end of "Placement") knows one
thing more: in a loop's first iteration, its iteration arguments are their initial
values. So a wait that the planning walk put before a loop of ping-pong accumulators,
for an MMA of the first iteration that is in fact on the other buffer, is dropped.

Strategy ``conservative`` completes every asynchronous op right after it is issued
(commit -> mbarrier wait -> fence::after_thread_sync, wait::ld/st, fence.proxy.async ->
barrier), then adds the cross-thread steps the dependences still need.

mbarriers
---------
Every commit site has an mbarrier (``alloc_mbarrier {count = 1}``: each commit is one
arrive::one, so each commit completes one phase). Sites share one where their phases are
known statically (``synchronization/insertion.py``, shared_mbarriers): commits and waits in
straight-line code of the kernel's entry block, each site's waits before the next site's
commit with a barrier between, in a cta_group::1 kernel; the wait for the j-th commit of
such a chain names parity j mod 2 (the straight-line tiles of the compile benchmark use
one mbarrier in all). Every other site keeps its own. Initialization by one
thread with fence.mbarrier_init and a barrier is the lowering's. A wait waits for the
most recent commit to its mbarrier; its parity is (commits executed before it - 1) mod 2,
computed from the induction variables of the enclosing loops and the trip counts of the
loops around the commit (constant factors folded). Where that count is not a function
of induction variables (a commit inside an scf.while, or in a branch inside a loop, or a
trip count not known at the wait), the wait has no parity operand: the lowering counts
the commits to that mbarrier at run time, in every thread (tcgen05.mbarrier_wait). Two
rules keep a parity wait
unambiguous, and the pass keeps both: every commit is waited for before the next commit
to the same mbarrier (a commit and its first wait sit in one block, so they alternate),
and a barrier separates every wait from the next commit to that mbarrier (otherwise
thread 0 could complete two phases while a slow warp still waits for the first, and that
warp would then wait for a phase that never comes); the pass adds that barrier where the
code has none.

Every inserted op carries a ``reason`` naming the dependence it serves (``(next
iteration)`` for loop-carried ones); ``report=true`` lists them per kernel. Cost: a loop
body is walked a bounded number of times per walk of its enclosing body (a few times 2^d
for a body d loops deep), and each op the final pruning considers costs a checking walk
of the kernel-level op that holds it (and of the next ones, until the state is what it
was with the op in place): linear in the kernel for bodies of bounded size
(benchmarks/compile/REPORT.md measures it).

Warp roles
----------
The roles of a ``tcgen05.partitions`` op run concurrently, so the walk above (one program
order) does not apply to them: a kernel with roles that write no synchronization is
planned by ``tcgen05_lower/synchronization/roles.py`` (the cross-role producer/consumer
dependences and the standard full/empty mbarrier protocol, docs/partitions.md,
"Synchronization that tcgen05-insert-sync writes"), and when its roles issue TMA loads by
``tcgen05_lower/synchronization/rings.py`` (TMA-fed shared-memory rings, accumulator
rings, persistent tile loops: mbarrier rings, expect_tx, parities from the loops' use
counters, and the TMA loads' mbarrier operand written in); ``minimal`` and
``conservative`` write the same protocol there (it is already the minimum). A kernel whose roles write
synchronization of their own, or that arrives on mbarriers itself
(``tcgen05.mbarrier_arrive``), is refused by both with a located diagnostic.

Strategy ``none`` adds nothing and keeps the kernel's own synchronization as written: the
strategy for kernels that write their synchronization (roles, TMA protocols, rings).
Strategy ``loads`` keeps it and plans only the TMA loads that name no mbarrier, read by a
software-pipelined MMA role (``synchronization/pipelined_loads.py``); strategy
``handoffs`` plans those loads and the TMEM handoffs between the MMA role and the roles
that load and store its buffers, for a kernel that writes none
(``synchronization/role_handoffs.py``; examples/ws_attention_fwd_bf16.mlir).

Not supported (located diagnostics): kernels with several blocks (run lift-cf-to-scf
first), and region ops other than scf.for, scf.while, scf.if and scf.index_switch around
tcgen05 ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower import dialect as d
from tcgen05_lower import tma
from tcgen05_lower.dialect.ops import wrap
from tcgen05_lower.kernel_ir import (OpDict, has_partitions, unplanned_buffer,
                                     user_synchronized)
from tcgen05_lower.pass_infra import ModulePass, Option, PassResult
from tcgen05_lower.synchronization.common import STRATEGIES, SyncError, kind_of
from tcgen05_lower.synchronization.insertion import (choose_commit_masks, materialize,
                                                     separate_phases)
from tcgen05_lower.synchronization.pipelined_loads import LOADS, plan_pipelined_loads
from tcgen05_lower.synchronization.planner import Planner
from tcgen05_lower.synchronization.role_handoffs import HANDOFFS, plan_role_handoffs
from tcgen05_lower.synchronization.ring_depth import (AUTO_STAGES, KERNEL_STAGES,
                                                      RING_STAGES_KIND, ring_stages_option)
from tcgen05_lower.synchronization.roles import plan_roles


#: The strategy that adds nothing (kernels that write their own synchronization).
NONE = "none"


#: Report columns: label -> predicate on an inserted op.
COUNTED = (
    ("commit", lambda n, k: n == "tcgen05.commit"),
    ("mbarrier_wait", lambda n, k: n == "tcgen05.mbarrier_wait"),
    ("wait::ld", lambda n, k: n == "tcgen05.wait" and k == "ld"),
    ("wait::st", lambda n, k: n == "tcgen05.wait" and k == "st"),
    ("fence::before", lambda n, k: n == "tcgen05.fence" and k == "before_thread_sync"),
    ("fence::after", lambda n, k: n == "tcgen05.fence" and k == "after_thread_sync"),
    ("fence.proxy.async", lambda n, k: n == "tcgen05.fence_proxy_async"),
    ("barrier", lambda n, k: n == "tcgen05.barrier"),
)


@dataclass(frozen=True)
class SyncOp:
    """An op tcgen05-insert-sync added, as plain data: its name, its ``kind`` attribute
    (None if it has none) and its ``reason``."""

    name: str
    kind: str | None
    reason: str | None

    @classmethod
    def of(cls, op) -> "SyncOp":
        return cls(op.name, kind_of(op), wrap(op).reason)


#: The arrivals the pass writes for warp roles only (synchronization/roles.py, rings.py):
#: a column of the counts when there are any, so the one-program counts keep their
#: columns.
ARRIVE = "mbarrier_arrive"
EXPECT_TX = "mbarrier_expect_tx"


def count_sync_ops(ops) -> dict:
    """How many inserted ops of each kind (the report's and the benchmark's columns), of
    SyncOp records or of the ops themselves; ``mbarrier_arrive`` only when there are
    arrivals (warp roles)."""
    counts = {label: 0 for label, _ in COUNTED}
    arrivals = expects = 0
    for op in ops:
        kind = op.kind if isinstance(op, SyncOp) else kind_of(op)
        arrivals += op.name == "tcgen05." + ARRIVE
        expects += op.name == "tcgen05." + EXPECT_TX
        for label, matches in COUNTED:
            if matches(op.name, kind):
                counts[label] += 1
    if arrivals:
        counts[ARRIVE] = arrivals
    if expects:
        counts[EXPECT_TX] = expects
    counts["total"] = sum(counts[label] for label, _ in COUNTED) + arrivals + expects
    return counts


@dataclass
class InsertSyncResult(PassResult):
    """Per kernel name, the ops the run added, in program order."""

    inserted: dict[str, list[SyncOp]] = field(default_factory=dict)


class Tcgen05InsertSync(ModulePass):
    name = "tcgen05-insert-sync"
    description = "Insert the canonical tcgen05 synchronization for every dependence"
    options = (
        Option("strategy", str, "minimal", "sync placement: only what dependences need "
               "(minimal), completion after every async op (conservative), or none: keep "
               "the kernel's own synchronization and add nothing (the strategy for "
               "kernels that write their synchronization, e.g. warp roles with "
               "mbarriers; docs/partitions.md), or loads: keep it and plan the TMA loads "
               "that name no mbarrier (synchronization/pipelined_loads.py), or handoffs: "
               "those loads and the TMEM handoffs between the MMA role and the roles "
               "that load and store its buffers (synchronization/role_handoffs.py)",
               STRATEGIES + (NONE, LOADS, HANDOFFS)),
        Option("report", bool, False, "print the sync ops added, with their reasons"),
        Option("ring-stages", ring_stages_option, KERNEL_STAGES,
               "depth of the shared-memory rings that the TMA loads of a kernel with warp "
               "roles fill: kernel (as declared), a number N >= 1 (the rings retyped to N "
               "stages, their stage indices the pass's own), or auto (the deepest, at most "
               "the rings' uses, that fits the 227 KiB of dynamic shared memory with the "
               "kernel's other tiles); other kernels keep theirs", kind=RING_STAGES_KIND,
               keywords=(KERNEL_STAGES, AUTO_STAGES), aliases=("ring_stages",)),
    )

    result_class = InsertSyncResult

    def apply(self, module) -> None:
        """Plans and inserts the synchronization of every kernel of `module`."""
        for kernel in d.kernels(module):
            unplanned = unplanned_buffer(kernel, self.name)
            if unplanned:
                self.error(*unplanned)
                continue
            name = d.kernel_info(kernel).name
            if self.option("strategy") == NONE:
                barrierless = tma.barrierless_load(kernel)
                if barrierless is not None:
                    self.error(barrierless, f"tcgen05-insert-sync{{strategy=none}} adds no "
                                            f"synchronization, and {tma.BARRIERLESS}")
                    continue
                self.result.inserted[name] = []
                if self.option("report"):
                    print(f"tcgen05-insert-sync: kernel @{name} strategy=none added 0 ops: "
                          f"the kernel's own synchronization is kept as written",
                          file=self.report_stream)
                continue
            if has_partitions(kernel) or self.option("strategy") in (LOADS, HANDOFFS):
                try:
                    added, mbarriers = self.plan_partitions(kernel)
                except SyncError as exc:
                    self.fail(exc.op, exc.message)
                order = {op: i for i, op in enumerate(d.walk_ops(kernel))}
                added.sort(key=lambda op: order[op])
                self.result.inserted[name] = [SyncOp.of(op) for op in added]
                if self.option("report"):
                    self.print_report(name, added, len(mbarriers), mbarriers)
                continue
            refused = user_synchronized(kernel)
            if refused is not None:
                self.error(refused, f"tcgen05-insert-sync{{strategy={self.option('strategy')}}}"
                                    f" does not insert synchronization across concurrently "
                                    f"running roles, nor around a hand-written "
                                    f"tcgen05.mbarrier_arrive, yet: write the kernel's "
                                    f"synchronization by hand (docs/partitions.md) and run "
                                    f"tcgen05-insert-sync{{strategy=none}}")
                continue
            planner = Planner(kernel, self.option("strategy"))
            try:
                planner.run()
                added = materialize(kernel, planner)
                added += separate_phases(kernel)
                choose_commit_masks(kernel, added)
            except SyncError as exc:
                self.fail(exc.op, exc.message)
            name = d.kernel_info(kernel).name
            order = OpDict((op, i) for i, op in enumerate(d.walk_ops(kernel)))
            added.sort(key=lambda op: order[op])
            self.result.inserted[name] = [SyncOp.of(op) for op in added]
            if self.option("report"):
                barriers = len({a.barrier for a in planner.enabled() if a.barrier is not None})
                self.print_report(name, added, barriers)

    def plan_partitions(self, kernel) -> tuple[list, list]:
        """(added ops, mbarriers) of a kernel with warp roles: strategy=loads plans its
        TMA loads only (synchronization/pipelined_loads.py), the others its whole
        protocol (synchronization/roles.py, rings.py)."""
        if self.option("strategy") == LOADS:
            return plan_pipelined_loads(kernel)
        if self.option("strategy") == HANDOFFS:
            return plan_role_handoffs(kernel)
        return plan_roles(kernel, self.option("strategy"), self.option("ring-stages"))

    def print_report(self, name: str, added: list, barriers: int,
                     purposes: list = ()) -> None:
        """Prints what was added to one kernel, with the reasons."""
        counts = count_sync_ops(added)
        labels = [label for label, _ in COUNTED] + [ARRIVE, EXPECT_TX]
        summary = ", ".join(f"{counts[label]} {label}" for label in labels
                            if counts.get(label))
        lines = [f"tcgen05-insert-sync: kernel @{name} strategy={self.option('strategy')} "
                 f"added {counts['total']} ops ({summary or 'none'}), "
                 f"{barriers} mbarriers"]
        for count, purpose in purposes:
            lines.append(f"  {f'mbarrier (count {count})':36} {purpose}")
        for op in added:
            kind = kind_of(op)
            label = op.name + (f"::{kind}" if kind else "")
            lines.append(f"  {label:36} {wrap(op).reason}")
        print("\n".join(lines), file=self.report_stream)
