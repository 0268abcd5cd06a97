"""The models tcgen05-verify-sync (passes/tcgen05_verify_sync.py, a thin driver over this
package) checks a planned kernel with: that every dependence between tcgen05 operations
is ordered, and what is missing where it is not.

This pass shares no code with tcgen05-insert-sync and works differently: instead of
summarizing loops, it *runs* the kernel's control skeleton. Loop bounds, ``scf.if``
conditions, column operands and mbarrier parities are evaluated from the arith ops that
compute them; every execution of an asynchronous op is one instance with its own
progress, and every sync op advances the instances it applies to. An mbarrier is modeled
the way ``mbarrier.try_wait.parity`` behaves: a wait returns at once when the parity it
names is not that of the phase the thread believes is current, so a wait with the wrong
parity, or one that skips a phase, completes nothing. A stage of an mbarrier ring
(``mbarrier_stage``) is its own mbarrier when its index evaluates (``mbarrier_name``).

Who runs what (Table 46, and the lowering): mma, cp, shift and commit are issued by one
thread; ld, ld_red, st and wait by each warp of the warpgroup on its own lane quarter
(9.7.16.8.1), so two of them touching one cell are issued by the same warp; smem_fill,
fences, barriers and mbarrier waits by every thread.

What a later op needs from an earlier op it conflicts with (the same TMEM cells, at least
one writing; a shared-memory tile written through the generic proxy and read by mma/cp,
either way round):

- single-thread op -> single-thread op: nothing for the pipelined pairs of 9.7.16.6.2
  (mma -> mma on the same accumulator with the same shape, cp -> mma, shift -> mma,
  mma -> shift, shift -> cp.4x256b); otherwise completion observed through an mbarrier
  wait on a commit issued after it, then tcgen05.fence::after_thread_sync (9.7.16.6.4.2);
- single-thread op -> warpgroup op: the same (9.7.16.6.4.4);
- single-thread op -> smem_fill of a tile it reads: completion (9.7.16.6.5);
- warpgroup op -> warpgroup op: tcgen05.wait::ld / ::st (9.7.16.6.4.2);
- warpgroup op -> single-thread op: wait, then fence::before_thread_sync, a barrier and
  fence::after_thread_sync, in that order (9.7.16.6.4.4);
- smem_fill -> mma/cp reading the tile: fence.proxy.async, then a barrier (9.7.16.6.5);
- tcgen05.ld executed again: its earlier execution completed (wait::ld) or its registers
  read since (9.7.16.6.4.5);
- tcgen05.dealloc: every TMEM access before it ordered as for a single-thread consumer.

CTA pairs (cta_group::2): the single-thread ops are issued in the even CTA, everything
else runs in both. A commit arrives at the mbarriers of the CTAs its ``multicast_mask``
names, a plain commit at the issuing CTA's only (9.7.16.12.1), and a wait runs in the
CTAs its mbarrier's commits arrive at (the lowering). So completion seen through a plain
commit orders a later single-thread op but not what the odd CTA runs: a warpgroup op,
smem_fill or dealloc after it needs a commit whose mask names both CTAs (0b11).

TMA loads (``tma_load``, issued by one thread, writing a tile through the async proxy)
complete on their mbarrier: the ``mbarrier_expect_tx`` before them is one arrival (like a
commit) whose phase also waits for their bytes (PTX ISA 9.7.13.15), so a load is complete
once a wait observes the phase of the most recent expect_tx on its mbarrier before it; a
load with no expect_tx in the current phase of its mbarrier (none since the last wait) is
an error. What a TMA load needs, and needs to be after:

- tma_load -> mma/cp reading the tile, smem_fill or another tma_load writing it: an
  mbarrier wait for the phase its expect_tx arrives in (complete_tx, 9.7.9.25.5.1);
- mma/cp reading the tile -> tma_load overwriting it: completion, commit -> mbarrier
  wait (the async-proxy reads end before the async-proxy writes begin);
- an expect_tx follows the barrier rule of a commit below.

And the mbarrier protocol: a wait must name a phase that a commit issued before it
completes (otherwise it never returns), and a barrier must separate a wait from the next
commit to the same mbarrier (otherwise the commit may complete the phase after the one a
slower thread still waits for, and that thread then waits for a phase that never comes).

Every problem is one error at the later op, naming the earlier op's location (line and
column in the same file) and the missing mechanism, e.g. ``tcgen05.ld reads TMEM columns
[0, 32) that tcgen05.mma at line 20:3 writes, without ordering: missing tcgen05.commit ->
mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)``.

Tracked waits: an ``mbarrier_wait`` without a phase operand names the parity of the
phase that the most recent tcgen05.commit to that mbarrier (9.7.16.12.1; in the program
order of this run) completes, (commits so far - 1) mod 2, as the lowering counts it; the
pass knows it without evaluating anything. Before any commit that is parity 1, the phase
before the first, which a fresh mbarrier reports complete at once: no error, but nothing
completes. From that parity on it is a wait like any other; e.g. after two commits with
no wait between, the parity names the phase before the one the thread believes current,
so it returns at once and completes nothing.

Control flow: ``scf.for``, ``scf.if``, ``scf.index_switch`` and ``scf.while`` run as the
kernel would: a branch or case whose condition evaluates is the one taken, an
``scf.while`` whose condition evaluates runs until it is false, and every op inside is
checked on every iteration run. Values flow through region results, iter_args and block
arguments: an integer keeps its value (or becomes unknown), a TMEM buffer, shared-memory
tile, fragment or mbarrier keeps what it names, so a load of an ``scf.if`` result reads
the cells of the buffer that the branch taken yielded. A branch or switch on a value that
does not evaluate runs every way from the same state and keeps the weakest result: an
execution on several ways is as far ordered as on the least ordered one, one on a single
way is kept as it is; a result names every value any way yielded (an op on a buffer that
may be one of several is checked against the cells of each, and two mmas are the
pipelined "same accumulator" only if any choice of their buffers gives one buffer or
disjoint cells), an integer result the ways disagree on is unknown, and
a ``ub.poison`` (what lift-cf-to-scf yields on a way that does not use the value) counts
only when nothing else is possible. An ``scf.while`` whose condition does not evaluate
may exit there: the first such condition and each of the next three are possible exits
(so exits after 0, 1, 2 and 3 runs of the body when none evaluates), the fourth one is
taken, and the weakest of those exits is kept the same way; the loop's results are
every value those exits forward. A condition that evaluates to true after 8 runs of the
body counts as not evaluating from then on (exits after 8, 9, 10 and 11 runs): a long
``scf.while`` is shortened like a long ``scf.for``.

When the ways leave an mbarrier with different numbers of commits or completed phases, a
wait with a phase operand on it is an error (its parity is right on some ways only). A
tracked wait stays exact: it depends only on how far the thread's phase and each op's
commit lie behind the most recent commit, so the ways are aligned on that. The alignment
keeps phase boundaries and parities for one arrival per phase, and otherwise when the
difference in commits is a multiple of the arrivals (of twice the arrivals, when that
number is even); when it is not, any later use of the mbarrier is an error.

Loops of more than 8 iterations run 4 or 5 of them (the same parity, so every mbarrier
phase wraps as in the full run, and the first iteration, the steady state and the last
are all seen; in a kernel with mbarrier rings of S stages, 4 + (trips - 4) mod 2 lcm(S),
so that each stage gets as many uses, modulo 2, as in the full run and a wait after the
loop with a constant parity, a ring's producer tail, names the same phase: Run.shortened); an upper bound that does not evaluate is taken as three iterations. The
results of a loop not run to its real trip count name every value its iter_args took
(integers among them are unknown). Limits (reported as errors): region ops other than
those four (e.g. ``scf.execute_region``) around tcgen05 ops, kernels with several blocks
(cf branches: run ``lift-cf-to-scf`` first, as the default pipeline does), lower bounds,
steps and explicit phase parities that do not evaluate, an op whose mbarrier may be one
of several, and kernels that would run more than 2,000,000 ops (an ``scf.while`` whose
condition stays true runs into that budget).

Kernels with warp roles (``tcgen05.partitions``) or hand-written mbarrier arrivals are not
one program order: with ``partitions=check`` (the default) they are checked as concurrent
programs by ``roles.py`` (its docstring and docs/partitions.md; in a cta_group::2 kernel
once per CTA of the pair, ``pairs.py``);
``partitions=refuse`` refuses them, ``partitions=skip`` passes them on unchecked.

Apart from the dialect's accessors, this package uses no code of tcgen05-insert-sync
(tcgen05_lower.synchronization): it is an independent check of what that pass plans.

The package owns three models, each in modules by concern:

- one CTA, one program order: ``cta`` (``Run``, the driver of a run) composed of
  ``cta_control_flow`` (values, loops, branches, joins), ``cta_effects`` (what each
  tcgen05 and mbarrier op does), ``cta_footprints`` (the cells and tiles of an access)
  and ``cta_checks`` (what orders two conflicting accesses); ``model`` holds the
  vocabulary they share (footprints, instances, mbarrier states, the evaluator);
- roles running concurrently: ``role_trace`` (each role's program traced into events),
  ``roles`` (``Concurrent``) composed of ``role_schedule`` (interleavings, arrivals,
  waits, deadlocks) and ``role_checks`` (conflicts between the programs);
- the two CTAs of a pair: ``pairs`` (each program run once per CTA);
- loops with a run-time bound: ``runtime_bounds`` (the roles run once per trip count of
  the mbarriers' phase period);

and ``concurrent.check_roles`` picks the concurrent model of a kernel.
"""

from tcgen05_lower.sync_check.concurrent import check_roles
from tcgen05_lower.sync_check.cta import Run
from tcgen05_lower.sync_check.model import Unsupported

__all__ = ["Run", "Unsupported", "check_roles"]
