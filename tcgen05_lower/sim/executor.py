"""The machine that runs a PTX ``.entry``: every thread of one CTA, or of a CTA pair,
vectorized with NumPy.

Registers are arrays over the cluster's threads (global thread id ``g = rank * threads +
tid``): raw bits in ``uint64``, predicates in ``bool``; each instruction reads them with
its own type (``.b/.u/.s 16/32/64``, ``.f32/.f64``) as the PTX ISA's chapter 9 defines.

Scheduling: every thread has a program counter. Each step runs together the runnable
threads with the smallest PC (under a random schedule, sim/schedule.py, those of a random
warp at its smallest PC, with some other warps at the same PC); this reconverges divergent branches of structured code at
their join point and keeps warp-collective ``.sync.aligned`` instructions warp-converged
(checked: every live thread of a warp must take part, else SimError). ``barrier.sync a``
blocks a thread until every live thread of its CTA arrives at barrier a; ``barrier.sync
a, b`` (a named barrier of b threads) until b threads have arrived at it. A thread whose
``mbarrier.try_wait`` fails waits in place until some mbarrier changes (an arrive, a
commit's arrive, an init), then tries again; this is one of the behaviours the ISA allows
for the potentially-blocking try_wait followed by the spin loop the pipeline emits. When
no thread can run the ordering model completes pending asynchronous work
(``OrderingModel.progress``); when it has none either, the run is a deadlock and the error
names where each warp waits.

Everything that orders memory goes through ``ordering.OrderingModel``; the semantics of
tcgen05.mma/cp/shift/ld/st through ``tensor_core``. The machine's set-up for a launch
(``machine_setup``), its register and operand access (``machine_registers``) and its
scheduler with the fused straight-line stretches (``machine_stepping``) are mixins of
``Machine``; this module holds the state and the run loop.

Modelled as no-ops on purpose (they order nothing the model tracks):
``fence.mbarrier_init.release.cluster`` (an mbarrier init is visible to the whole cluster
at once here).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import ptx as P
# GLOBAL_BASE, GLOBAL_STRIDE, Buffer: read here by tests (their home is global_buffers)
from tcgen05_lower.sim.global_buffers import GLOBAL_BASE, GLOBAL_STRIDE, Buffer  # noqa: F401
from tcgen05_lower.sim.machine_registers import MachineRegisters
from tcgen05_lower.sim.machine_setup import MachineSetup
from tcgen05_lower.sim.machine_stepping import MachineStepping, fusible_runs
from tcgen05_lower.sim.state import CtaMemory, LimitExceeded, SimError
from tcgen05_lower.sim.words import (ALL, BAR, CBAR, EXIT, MASK, MBAR, RUN, SMEM_BASE,  # noqa: F401
                                     UINT, from_float, from_signed, mul_hi_u64, parse_type,
                                     to_float, to_signed)

#: EXIT as a byte of a status array's bytes (int8).
_EXIT_BYTE = bytes([EXIT])
_STATUS_TEXT = MappingProxyType({BAR: "barrier.sync", MBAR: "mbarrier wait",
                                 CBAR: "barrier.cluster.wait", RUN: "ready"})


@dataclass
class Launch:
    """How the kernel is launched: threads per CTA, CTAs in the cluster (``cluster``, of
    shape ``shape``: x, y, z; empty: all along x), dynamic smem, the grid in CTAs (x, y,
    z; each a multiple of the cluster's) and which cluster of it a Machine runs (its
    %clusterid)."""
    threads: int
    cluster: int = 1
    dynamic_smem: int = 0
    grid: tuple = (0, 1, 1)   # x = 0: one cluster
    cluster_id: tuple = (0, 0, 0)
    shape: tuple = ()

    @property
    def cluster_dims(self) -> tuple:
        """The cluster's CTAs along x, y and z (%cluster_nctaid)."""
        return tuple(self.shape) if self.shape else (self.cluster, 1, 1)

    @property
    def grid_ctas(self) -> tuple:
        cx, cy, cz = self.cluster_dims
        return (self.grid[0] or cx, self.grid[1] if self.grid[0] else cy,
                self.grid[2] if self.grid[0] else cz)


@dataclass
class RunStats:
    steps: int = 0
    warp_instructions: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


class Machine(MachineSetup, MachineRegisters, MachineStepping):
    """One launch of one PTX entry on one CTA or CTA pair.

    ``max_instructions`` (warp instructions) and ``deadline`` (a time.perf_counter()
    value) bound ``run()``: LimitExceeded when either is passed (api.Budget sets them)."""

    max_instructions: int | None = None
    deadline: float | None = None
    used_before = 0        # warp instructions earlier clusters of the grid executed
    #: A schedule.RandomSchedule (use_random_schedule), else None: lowest PC first.
    random = None
    limit_text = time_text = ""

    def __init__(self, module: P.Module, entry: P.Entry, launch: Launch, args: dict,
                 ordering_factory, tensor_core, schedule: str = "late", trace=None,
                 progress_stream=None):
        self.module, self.entry, self.launch = module, entry, launch
        self.tc = tensor_core
        #: issue_async's keywords: this run's cache of built MMAs where the tensor core
        #: keeps one (tensor_core.CACHES_MMAS; a stand-in tensor core need not).
        self.issue_kwargs = {"cache": {}} if getattr(tensor_core, "CACHES_MMAS", False) \
            else {}
        self.trace = trace
        self.progress_stream = progress_stream
        self.nthreads = launch.threads * launch.cluster
        n = self.nthreads
        self.tid = np.arange(n, dtype=np.int64) % launch.threads
        self.rank = np.arange(n, dtype=np.int64) // launch.threads
        self.warps_per_cta = -(-launch.threads // 32)
        self.warp_of = self.rank * self.warps_per_cta + self.tid // 32
        self.nwarps = self.warps_per_cta * launch.cluster
        self.warp_size = np.bincount(self.warp_of, minlength=self.nwarps)
        self._layout_shared(entry)
        self.ctas = [CtaMemory(r, self.smem[r]) for r in range(launch.cluster)]
        self.ordering = ordering_factory(self.ctas, launch.threads, schedule)
        self._bind_args(args)
        self.regs: dict[str, np.ndarray] = {}
        self._special_registers()
        self.pc = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int8)
        self.wait_epoch = np.zeros(n, dtype=np.int64)
        self.cluster_arrivals = np.zeros(n, dtype=np.int64)
        #: Of a thread waiting in barrier.sync (status BAR): the barrier's number and the
        #: thread count it expects (0: every live thread of the CTA).
        self.bar_id = np.zeros(n, dtype=np.int64)
        self.bar_expected = np.zeros(n, dtype=np.int64)
        self.epoch = 0
        self.stats = RunStats()
        from tcgen05_lower.sim import ops  # the instruction set lives there

        decode = ops.decoder()
        self.handlers = self._decoded(entry.instructions, decode)

    def use_random_schedule(self, seed: int) -> None:
        """Runs under the random schedule of ``seed`` (sim/schedule.py) instead of the
        lowest PC first: warp order, priorities, a starved warp and when the ordering
        model completes pending asynchronous operations (it must have been made with
        schedule "random")."""
        from tcgen05_lower.sim.schedule import RandomSchedule

        self.random = RandomSchedule(seed, self.nwarps, self.launch.cluster_id)
        self.ordering.choose = self.random.choose

    # -- the run loop ----------------------------------------------------------------------
    def run(self) -> RunStats:
        """Runs until every thread has exited; SimError on anything the ISA forbids."""
        start = time.perf_counter()
        last_report = start
        instrs = self.entry.instructions
        count = len(instrs)
        handlers = self.handlers
        stats = self.stats
        # the step's bookkeeping inline (``_count``) unless a subclass adds to it or a
        # trace is written; ``width``: the warps of ``idx`` when known, else None
        plain = type(self)._count is Machine._count and self.trace is None
        fusible = self._runs = fusible_runs(handlers)   # (``_fused`` reads it too)
        # what the run's settings are, read once: they are set before it and not changed
        late = self.random is None
        fuse = plain and late
        limit, deadline, progress = self.max_instructions, self.deadline, \
            self.progress_stream
        # The threads of the last step, all at this PC now, run next without looking: the
        # step was straight-line (it changed no thread's status and advanced only its own
        # threads), and every other runnable thread's PC is above this one (chain_limit)
        # so the lowest-PC-first choice is these threads again.
        together_at, together_idx, chain_limit, width = None, ALL, -1, None
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            while True:
                if together_at is not None and together_at < count and \
                        together_at < chain_limit:
                    m, idx = together_at, together_idx
                else:
                    m, idx, width, chain_limit = self._schedule(count)
                    if m < 0:
                        break
                if fuse and fusible[m] > 1:
                    after = self._fused(m, idx, fusible[m], chain_limit, width)
                    if after is not None:   # the PC the stretch (and its branches) led to
                        together_at, together_idx = after, idx
                        continue
                ins = instrs[m]
                if plain:
                    if width is None:
                        width = self._warps_in(idx)
                    stats.steps += 1
                    stats.warp_instructions += width
                    stats.counts[ins.opcode] = stats.counts.get(ins.opcode, 0) + width
                else:
                    self._count(ins, idx)
                if limit is not None and stats.warp_instructions > limit:
                    raise self._over_limit(ins, self.limit_text)
                if deadline is not None and stats.steps % 256 == 0 and \
                        time.perf_counter() > deadline:
                    raise self._over_limit(ins, self.time_text)
                handler = handlers[m]
                together_at = m + 1 if handler.straight and late else None
                together_idx = idx
                epoch = self.epoch
                try:
                    handler(ins, idx)
                except SimError as err:
                    if err.ptx_line is None:
                        err.ptx_line, err.ptx_text = ins.line, ins.text
                    raise
                # a straight (or local) step that woke no waiter changed only its threads'
                # PCs (and statuses): the next choice starts from the last one's PCs
                # (``_schedule``); after a local one the same threads may run on at once
                if epoch != self.epoch:
                    self._moved = None
                elif handler.straight:
                    self._moved = (idx, m + 1, None)
                elif handler.local:
                    if late:
                        together_at = self.together_after_local(idx)
                    self._moved = (idx, None, together_at)
                else:
                    self._moved = None
                if progress is not None and stats.steps % 4096 == 0:
                    now = time.perf_counter()
                    if now - last_report > 2.0:
                        last_report = now
                        print(f"tcgen05-sim: {stats.warp_instructions} warp instructions,"
                              f" {now - start:.1f} s{self._limits_text()}",
                              file=progress)
        self.stats.seconds = time.perf_counter() - start
        return self.stats

    #: What refers back to the machine: its handlers (closures over it) and what the
    #: stretches keep of them (``machine_stepping``). ``release`` drops these.
    _BACK_REFERENCES = ("handlers", "_plans", "_stretches", "_bra_at", "_runs")

    def release(self, stopped: bool = False) -> None:
        """Drops the handlers and what keeps them, once nothing runs the machine any
        more (api.simulate calls it after a cluster's results are taken): they are
        closures over the machine, so the machine, its ordering model and the parsed
        PTX they reach would otherwise be freed only by the cyclic garbage collector,
        whose full collections then scan every run's leftovers. The state a finished
        run reports (stats, buffers, ordering, the recorder) stays. ``stopped``: the run
        ended in an error, so nothing reads its state: the ordering model goes too, with
        the asynchronous work still pending in it (a TMA load's effect is a closure over
        the machine)."""
        for name in self._BACK_REFERENCES + (("ordering",) if stopped else ()):
            self.__dict__.pop(name, None)

    def _limits_text(self) -> str:
        """The budgets for the progress line, so a long run says when it will stop."""
        parts = []
        if self.max_instructions is not None:
            parts.append(f"{self.used_before + self.max_instructions:,} warp instructions")
        if self.deadline is not None:
            parts.append(f"{max(self.deadline - time.perf_counter(), 0):.0f} s left")
        return f" (limits: {', '.join(parts)})" if parts else ""

    def _over_limit(self, ins: P.Instr, limit: str) -> LimitExceeded:
        done = self.used_before + self.stats.warp_instructions
        return LimitExceeded(f"stopped after {done:,} warp instructions: {limit}; the "
                             f"kernel may never finish, or needs a higher limit",
                             ins.line, ins.text)

    def _count(self, ins: P.Instr, idx) -> None:
        self.stats.steps += 1
        nwarps = self._warps_in(idx)   # idx is sorted (the run loop's), so are its warps
        self.stats.warp_instructions += nwarps
        self.stats.counts[ins.opcode] = self.stats.counts.get(ins.opcode, 0) + nwarps
        if self.trace is not None:
            for w in (range(self.nwarps) if idx is ALL else np.unique(self.warp_of[idx])):
                self.trace.write(f"{self.stats.steps}\tcta {w // self.warps_per_cta}\t"
                                 f"warp {w % self.warps_per_cta}\tline {ins.line}\t"
                                 f"{ins.text.strip()}\n")

    def _deadlock(self) -> SimError:
        where = []
        for w in range(self.nwarps):
            members = np.flatnonzero((self.warp_of == w) & (self.status != EXIT))
            if members.size == 0:
                continue
            pcs = sorted(set(int(p) for p in self.pc[members]))
            places = ", ".join(
                f"line {self.entry.instructions[p].line} "
                f"({self._waiting_text(members[self.pc[members] == p][0])}: "
                f"{self.entry.instructions[p].text.strip()[:70]})" for p in pcs)
            where.append(f"CTA {w // self.warps_per_cta} warp {w % self.warps_per_cta} "
                         f"waits at {places}")
        return SimError("deadlock: no thread can run and no asynchronous operation is "
                        "pending\n  " + "\n  ".join(where))

    def _waiting_text(self, thread: int) -> str:
        """What a thread waits in, for the deadlock message: a barrier names its number and
        how many of the threads it expects have arrived."""
        status = int(self.status[thread])
        if status != BAR:
            return _STATUS_TEXT.get(status, "")
        barrier, count = int(self.bar_id[thread]), int(self.bar_expected[thread])
        in_cta = self.rank == self.rank[thread]
        arrived = int((in_cta & (self.status == BAR) & (self.bar_id == barrier)).sum())
        if count == 0:
            count = int((in_cta & (self.status != EXIT)).sum())
            return f"barrier.sync {barrier}: {arrived} of the CTA's {count} live threads arrived"
        return f"barrier.sync {barrier}, {count}: {arrived} of {count} threads arrived"

    def threads_of(self, idx) -> np.ndarray:
        return np.arange(self.nthreads) if idx is ALL else np.asarray(idx)

    # -- decoding ------------------------------------------------------------------------
    def _decoded(self, instructions: list, decode) -> list:
        """The handlers of `instructions` (`decode`: the run's ``ops.decoder()``), in one
        ``try``: SimError naming the line of the first unknown one."""
        handlers = []
        ins = None
        try:
            for ins in instructions:
                handlers.append(decode(self, ins))
        except SimError as err:
            if err.ptx_line is None:
                err.ptx_line, err.ptx_text = ins.line, ins.text
            raise
        return handlers

    # -- helpers for handlers ---------------------------------------------------------------
    def guarded(self, ins: P.Instr, idx):
        """The threads of ``idx`` whose guard predicate holds (all if unguarded)."""
        if ins.guard is None:
            return idx
        pred = self.reg(ins.guard, ins)[idx]
        if ins.guard_negated:
            pred = ~pred
        if idx is ALL:
            return ALL if pred.all() else np.flatnonzero(pred)
        return idx[pred]

    def check_warp_converged(self, ins: P.Instr, idx) -> None:
        """A ``.sync.aligned`` instruction: every live thread of each warp taking part
        executes it together, and its guard is the same across the warp."""
        if ins.guard is None and self.whole_live_warps(idx):
            return   # each warp of idx takes part with all its threads, all live
        if idx is ALL:
            active = self.warp_size
            warps_in = np.arange(self.nwarps)
        else:
            active = np.bincount(self.warp_of[idx], minlength=self.nwarps)
            warps_in = np.flatnonzero(active)
        alive = np.bincount(self.warp_of[self.status != EXIT], minlength=self.nwarps)
        bad = warps_in[active[warps_in] != alive[warps_in]]
        if bad.size:
            w = int(bad[0])
            raise SimError(f"{ins.opcode} is warp-collective (.sync.aligned) but only "
                           f"{int(active[w])} of the {int(alive[w])} live threads of warp "
                           f"{w % self.warps_per_cta} (CTA {w // self.warps_per_cta}) "
                           f"execute it together")
        if ins.guard is not None:
            pred = self.reg(ins.guard, ins)[idx]
            warps = self.warp_of[idx]
            on = np.bincount(warps, weights=pred, minlength=self.nwarps)
            mixed = warps_in[(on[warps_in] != 0) & (on[warps_in] != active[warps_in])]
            if mixed.size:
                w = int(mixed[0])
                raise SimError(f"the guard {ins.guard} of the warp-collective {ins.opcode} "
                               f"differs between threads of warp {w % self.warps_per_cta}")

    def whole_live_warps(self, idx) -> bool:
        """Whether the threads ``idx`` (ALL or sorted unique ids, as the run loop gives
        them) are whole warps none of whose threads has exited: every CTA's threads a
        multiple of 32 (warp w is then threads 32 w .. 32 w + 31 of the cluster) and
        ``idx`` all of them, a run of consecutive threads from a warp's first to a
        warp's last, or ids that are such warps. False says nothing (the caller's
        general code decides)."""
        if self.launch.threads % 32:
            return False
        at = self.contiguous(idx)
        if type(at) is not slice:
            # sorted ids: whole warps when each 32 of them in turn are one warp's, from
            # its lane 0 (sorted and unique: 31 apart means consecutive)
            if len(at) % 32:
                return False
            rows = at.reshape(-1, 32)
            if np.count_nonzero(rows[:, 0] % 32) or \
                    np.count_nonzero(rows[:, 31] - rows[:, 0] != 31):
                return False
        elif at.start is not None and (at.start % 32 or at.stop % 32):
            return False
        return _EXIT_BYTE not in self.status[at].tobytes()   # (int8: a byte each)

    def warps(self, idx) -> list[np.ndarray]:
        """The global thread ids of ``idx`` grouped by warp."""
        threads = self.threads_of(idx)
        if threads.size == 0:
            return []
        warps = self.warp_of[threads]
        cuts = np.flatnonzero(np.diff(warps)) + 1
        return np.split(threads, cuts)

    # -- synchronization ------------------------------------------------------------------
    def release_barriers(self, line: int) -> None:
        """Lets a CTA's threads leave barrier.sync a{, b} once the barrier is complete: b
        threads have arrived at barrier a, or, without b, every live thread of the CTA
        (bar / barrier, PTX ISA 9.7.13.1: "Operand b specifies the number of threads
        participating in the barrier ... all threads in the CTA" without it; each CTA has
        16 barriers, 0-15, and a completed barrier is reinitialized for reuse). Threads of
        other warps, waiting at other barriers or running, are not involved. A
        cluster's threads leave barrier.cluster.wait once every live thread arrived."""
        for r in range(self.launch.cluster):
            in_cta = self.rank == r
            waiting = in_cta & (self.status == BAR)
            if not waiting.any():
                continue
            live = in_cta & (self.status != EXIT)
            for barrier in np.unique(self.bar_id[waiting]):
                at = waiting & (self.bar_id == barrier)
                counts = self.bar_expected[at]
                count = int(counts[0])
                if np.count_nonzero(counts != count):   # (a set only for the report)
                    expected = set(int(x) for x in counts)
                    raise SimError(f"barrier.sync {barrier}: its threads give different "
                                   f"thread counts ({', '.join(map(str, sorted(expected)))}, "
                                   f"0 for every thread of the CTA)")
                arrived = int(np.count_nonzero(at))
                if count == 0:
                    if arrived < int(np.count_nonzero(live)):
                        continue
                elif arrived < count:
                    continue
                elif arrived > count:
                    raise SimError(f"barrier.sync {barrier}, {count}: {arrived} threads "
                                   f"arrived, more than the {count} it expects")
                threads = np.flatnonzero(at)
                self.ordering.barrier(threads, line)
                self.status[threads] = RUN
                self.pc[threads] += 1
        self.release_cluster_wait()

    def release_cluster_wait(self) -> None:
        live = self.status != EXIT
        if not live.any():
            return
        done = self.cluster_arrivals[live].min()
        waiting = np.flatnonzero((self.status == CBAR) & (self.cluster_arrivals <= done))
        self.status[waiting] = RUN

    def exit_threads(self, idx, line: int) -> None:
        self.status[idx] = EXIT
        for rank in np.unique(self.rank[idx]):
            if (self.status[self.rank == rank] == EXIT).all():
                self.ordering.cta_exited(int(rank))
        self.release_barriers(line)
