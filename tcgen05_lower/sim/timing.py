"""A timing model of one SM running the simulated CTA (or, for a CTA pair, two SMs):
an estimate for comparing strategies, not a prediction of absolute cycles.

How it works (two passes, so the functional simulator is untouched)
-------------------------------------------------------------------
1. Recording. The functional run (``simulate(..., timing=True)``) uses
   ``RecordingMachine`` and ``RecordingOrdering``, subclasses of the executor's Machine and
   of the ordering model that only watch: for every warp they record each warp
   instruction it issued (its PTX instruction, the threads of the warp that were active)
   and, from the ordering model, the synchronization it took part in: which mbarrier
   phase each arrival, commit and successful ``mbarrier.try_wait`` belonged to, and which
   instance of ``barrier.sync`` a warp arrived at. A ``try_wait`` that failed is not
   recorded (the spin loop is the functional schedule's, not the machine's). The values
   computed, the races found and the instruction counts are those of a run without
   ``timing``.
2. Replay. ``replay(trace)`` runs the recorded per-warp instruction streams through an
   event-driven model with the resources and latencies of ``PARAMETERS``:
   - four warp schedulers per SM (warp w on scheduler w mod 4), each issuing one warp
     instruction per cycle; a warp issues in order, when the registers it reads are ready
     (a scoreboard: each destination is ready ``latency`` cycles after issue);
   - the tensor pipe (one per SM; a cta_group::2 MMA holds both SMs' pipes): MMAs, copies
     and shifts run one after another in issue order, each for the longer of its math time
     (FLOPs over the rate of its kind) and the time to read its shared-memory operands,
     and complete ``mma_latency`` cycles after that; ``tcgen05.commit`` arrives on its
     mbarrier when every asynchronous op its thread issued before it has completed;
   - one TMEM port per lane quarter (per warp of the warpgroup) for tcgen05.ld / st;
   - the SM's port to the L2 and its share of DRAM bandwidth (MemoryContext: the SMs
     active in the wave share both; a tile several loads of the wave read costs DRAM
     once) and the shared-memory pipe for ld/st.shared;
   - TMA loads (``cp.async.bulk.tensor``): asynchronous; the issuing warp goes on at
     once, the load's bytes arrive ``l2_latency`` (a hit) to ``tma_latency`` (a miss)
     after its issue at the earliest and stream through the SM's L2 port behind its
     earlier requests; its complete_tx
     counts towards the mbarrier phase it completed in the functional run when its last
     byte lands (so a wait on that phase stalls until then, and until the phase's
     arrivals, ``mbarrier.arrive.expect_tx`` among them, have arrived);
   - an mbarrier wait stalls its warp until the phase it waited for in the functional run
     has completed in model time (all arrivals of that phase); ``barrier.sync`` until every
     warp of the CTA arrived; ``wait::ld`` / ``wait::st`` until the warp's tcgen05.ld / st
     completed.
   A CTA of a grid is replayed on its own SM; the clusters of a grid run in waves of
   ``sms`` SMs, one wave after another (Recording: every cluster recorded, or cluster
   (0, 0, 0) standing for all of them in a timing-only estimate).

What it reports: cycles and microseconds at ``clock_ghz``, the busy fraction of the tensor
pipe, of the TMEM ports and of the SM's DRAM share, each warp's stall cycles by reason
(mbarrier wait, barrier, wait::ld, wait::st, register dependency, issue slot), and a
Chrome trace-event JSON (chrome://tracing, https://ui.perfetto.dev) with one track per
warp and one per hardware unit.

Not modelled: L1, the L2 as a cache (sets, eviction; only shares of bandwidth and reuse
within a wave; a multicast reads it once), bank conflicts, instruction fetch, the register file's
ports, dual issue, other CTAs sharing the SM, clock changes, the tensor pipe's internal
pipelining beyond "one op at a time, then a fixed latency".
"""

from __future__ import annotations

import dataclasses
import types
import json
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.executor import BAR, Machine
from tcgen05_lower.sim.ordering import OrderingModel
# The parameters and the MMA cost live in timing_parameters; re-exported by name here.
from tcgen05_lower.sim.timing_parameters import (  # noqa: F401
    _DENSE_K, _LDST_BYTES, PARAMETERS, MmaCost, Parameter, mma_cycles, param)


# -- the trace --------------------------------------------------------------------------------

#: Bytes of a sector, the unit in which global memory accesses move between the SM and
#: the L2 (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory": "memory
#: accesses ... are serviced in 32-byte sectors" on devices of compute capability 6.0+).
SECTOR_BYTES = 32


@dataclass
class Step:
    """One warp instruction as the replay sees it."""
    kind: str                       # see _classify
    line: int = 0
    text: str = ""
    srcs: tuple = ()
    dsts: tuple = ()
    nbytes: int = 0                 # memory bytes the warp moves
    asyncs: list = field(default_factory=list)   # [(thread, rank, "mma"|"cp"|"shift", MmaCost|None)]
    commits: list = field(default_factory=list)  # [(thread, [(rank, addr, generation, phase)])]
    arrivals: list = field(default_factory=list)  # [(rank, addr, generation, phase)]
    #: TMA loads the step issued: [(thread, rank, bytes, [(rank, addr, generation, phase)])],
    #: the tag list being the mbarrier phase its complete_tx counted towards
    tmas: list = field(default_factory=list)
    wait: tuple | None = None       # (rank, addr, generation, phase) of an mbarrier wait
    barrier: int = -1               # the instance of barrier.sync (or cluster barrier)
    rank: int = 0
    #: ld.global: the 128-byte lines the warp's access touches (the L2's unit of reuse);
    #: st.global: the 32-byte sectors it writes (the unit it moves through the L2 port)
    lines: tuple = ()
    #: the PTX opcode with its qualifiers ("tcgen05.mma.cta_group::1.kind::f16"), for names
    opcode: str = ""


@dataclass
class ClusterTrace:
    """The recorded run of one CTA or CTA pair: per warp, its steps."""
    warps_per_cta: int
    ctas: int
    warps: list = field(default_factory=list)  # list[list[Step]]
    #: warp index within its CTA -> the name of its role (tcgen05.partitions), if known
    roles: dict = field(default_factory=dict)


# -- recording ----------------------------------------------------------------------------------

_BLOCKING_ALWAYS = frozenset({"st", "bra", "ret", "exit", "barrier", "bar", "fence"})


def _regs_of(op) -> list[str]:
    if isinstance(op, P.Reg):
        return [op.name]
    if isinstance(op, P.Vec):
        return [r for item in op.items for r in _regs_of(item)]
    if isinstance(op, P.Addr) and isinstance(op.base, P.Reg):
        return [op.base.name]
    return []


def classify(ins: P.Instr) -> tuple[str, tuple, tuple, int]:
    """(kind, source registers, destination registers, bytes per active thread)."""
    parts = ins.parts
    base = parts[0]
    ops = list(ins.operands)
    has_dest = not (base in _BLOCKING_ALWAYS or
                    (base == "tcgen05" and parts[1] not in ("ld",)) or
                    (base == "mbarrier" and parts[1] in ("init", "expect_tx")))
    dsts = tuple(_regs_of(ops[0])) if has_dest and ops and \
        isinstance(ops[0], (P.Reg, P.Vec)) else ()
    rest = ops[1:] if dsts else ops
    srcs = tuple(r for op in rest for r in _regs_of(op))
    if ins.guard:
        srcs += (ins.guard,)
    width = 0
    for p in parts:
        if p[:1] in "busf" and p[1:].isdigit():
            width = int(p[1:]) // 8
    vec = next((int(p[1:]) for p in parts if p in ("v2", "v4", "v8")), 1)
    nbytes = width * vec
    if base in ("ld", "st"):
        space = "global" if "global" in parts else "shared" if any(
            p.startswith("shared") for p in parts) else "param" if "param" in parts else "local"
        if base == "ld":
            kind = {"global": "ld_global", "shared": "ld_shared"}.get(space, "ld_param")
        else:
            kind = {"global": "st_global", "shared": "st_shared"}.get(space, "alu")
        return kind, srcs, dsts, nbytes
    if base == "tcgen05":
        op = parts[1]
        if op in ("ld", "st"):
            shape = next(p for p in parts if p in _LDST_BYTES)
            num = int(next(p for p in parts if p[:1] == "x" and p[1:].isdigit())[1:])
            return ("tmem_" + op), srcs, dsts, _LDST_BYTES[shape] * num
        if op in ("mma", "cp", "shift"):
            return "async", srcs, dsts, 0
        if op == "commit":
            return "commit", srcs, dsts, 0
        if op in ("wait::ld", "wait::st"):
            return "wait_" + op[-2:], srcs, dsts, 0
        if op in ("alloc", "dealloc"):
            return "alloc", srcs, dsts, 0
        return "alu", srcs, dsts, 0   # fences, relinquish: ordering only
    if base == "cp" and parts[1:4] == ["async", "bulk", "tensor"]:
        return "tma", srcs, dsts, 0
    if base in ("barrier", "bar"):
        if parts[1] == "cluster":
            return ("cluster_" + parts[2]), srcs, dsts, 0
        return "barrier", srcs, dsts, 0
    if base == "mbarrier":
        if parts[1] == "try_wait":
            return "mbar_wait", srcs, dsts, 0
        if parts[1].startswith("arrive"):
            return "mbar_arrive", srcs, dsts, 0
        return "alu", srcs, dsts, 0
    if base == "fence" and "proxy" in ".".join(parts):
        return "fence_proxy", srcs, dsts, 0
    if base in ("ex2", "sqrt", "rcp", "div", "lg2", "sin", "cos", "rsqrt", "tanh"):
        return "mufu", srcs, dsts, 0
    if base in ("ret", "exit"):
        return "exit", srcs, dsts, 0
    return "alu", srcs, dsts, 0


#: The first instance number a barrier release gives its steps (Recorder.waiting_barrier),
#: apart from the provisional ones counted at arrival.
RELEASED_BASE = 1 << 40


class Recorder:
    """Collects the steps of every warp during a functional run."""

    def __init__(self, nwarps: int, warps_per_cta: int, ctas: int):
        self.trace = ClusterTrace(warps_per_cta, ctas, [[] for _ in range(nwarps)])
        self.current: dict[int, Step] = {}         # warp -> the step it is executing
        self.mma_info: dict[int, MmaCost] = {}     # thread -> its MMA being issued
        self.generation: dict[tuple, int] = {}     # (rank, addr) -> mbarrier.init count
        #: barrier.sync arrivals per (thread, barrier number): the k-th arrival of a
        #: thread at barrier a is instance k of barrier a (a named barrier's threads are
        #: its own). Counted per thread, not per warp: a warp whose threads diverged
        #: arrives in several steps, all at the same instance.
        self.barriers: dict = {}
        #: (warp, barrier number, instance) of the barrier steps recorded: the first step
        #: of a warp at an instance is the one the replay waits in; a diverged warp's
        #: later steps at the same instance are plain instructions.
        self.barrier_steps: set = set()
        self.cluster_arrivals = [0] * nwarps
        #: warp -> its barrier step not yet released; each release of a barrier gets its
        #: own instance number (from RELEASED_BASE on), shared by the warps it releases:
        #: counting arrivals per thread misnames instances when a barrier number is used
        #: with different thread counts (Triton's bar.sync 0 and bar.sync 0, 128)
        self.waiting_barrier: dict[int, Step] = {}
        self.releases = RELEASED_BASE
        self.pending_waits: list[tuple[int, Step]] = []
        #: warps whose last try_wait failed: the branch back of their spin loop is the
        #: functional schedule's too, and is not recorded
        self.spinning: set[int] = set()

    def flush_waits(self) -> None:
        """Appends the try_wait steps that succeeded (their wait is set)."""
        for w, step in self.pending_waits:
            if step.wait is not None:
                self.trace.warps[w].append(step)
            else:
                self.spinning.add(w)
        self.pending_waits = []

    def step_of_thread(self, thread: int) -> Step | None:
        return self.current.get(thread // 32)


class RecordingOrdering(OrderingModel):
    """The ordering model, unchanged, telling the recorder what each warp synchronized on."""

    recorder: Recorder | None = None

    def _tag(self, rank: int, address: int) -> tuple:
        bar = self.mbarriers[(rank, address)]
        return (rank, address, self.recorder.generation.get((rank, address), 0), bar.phase)

    def mbarrier_init(self, thread, rank, address, count, line):
        super().mbarrier_init(thread, rank, address, count, line)
        key = (rank, address)
        self.recorder.generation[key] = self.recorder.generation.get(key, 0) + 1

    def issue(self, thread, op, line):
        super().issue(thread, op, line)
        if op.kind in ("mma", "cp", "shift"):
            step = self.recorder.step_of_thread(thread)
            if step is not None:
                rank = thread // self.threads_per_cta
                step.asyncs.append((thread, rank, op.kind,
                                    self.recorder.mma_info.pop(thread, None)))

    def commit(self, thread, rank, mbarrier, cta_mask, line):
        event = (thread, [])
        step = self.recorder.step_of_thread(thread)
        if step is not None:
            step.commits.append(event)
        self._event = event
        before = len(self.pending_commits)
        super().commit(thread, rank, mbarrier, cta_mask, line)
        if len(self.pending_commits) > before:
            self._commit_events[id(self.pending_commits[-1])] = event
        self._event = None

    _event = None

    @property
    def _commit_events(self) -> dict:
        if "_events" not in self.__dict__:
            self.__dict__["_events"] = {}
        return self.__dict__["_events"]

    def _complete_commit(self, entry):
        event = self._commit_events.pop(id(entry), None) or self._event
        if event is not None:
            _, _, mbarrier, targets, *_ = entry
            event[1].extend(self._tag(r, mbarrier) for r in targets)
        super()._complete_commit(entry)

    def tma_load(self, thread, rank, addresses, write, nbytes, mbarrier, line,
                 mbarrier_rank=None):
        event = (thread, rank, nbytes, [], getattr(write, "source", None))
        step = self.recorder.step_of_thread(thread)
        if step is not None:
            step.tmas.append(event)
        self._tma_event = event
        before = len(self.pending_commits)
        super().tma_load(thread, rank, addresses, write, nbytes, mbarrier, line,
                         mbarrier_rank=mbarrier_rank)
        if len(self.pending_commits) > before:
            self._commit_events[id(self.pending_commits[-1])] = event
        self._tma_event = None

    _tma_event = None

    def _complete_tma(self, entry):
        # complete_tx counts towards the mbarrier's current phase (9.7.13.15.2)
        event = self._commit_events.pop(id(entry), None) or self._tma_event
        if event is not None:
            bar_rank = entry.rank if entry.mbarrier_rank is None else entry.mbarrier_rank
            event[3].append(self._tag(bar_rank, entry.mbarrier))
        super()._complete_tma(entry)

    def mbarrier_arrive(self, thread, rank, address, count, line, **scope):
        tag = self._tag(rank, address) if (rank, address) in self.mbarriers else None
        token = super().mbarrier_arrive(thread, rank, address, count, line, **scope)
        step = self.recorder.step_of_thread(thread)
        if step is not None and tag is not None:
            step.arrivals.append(tag)
        return token

    def mbarrier_try_wait_parity(self, thread, rank, address, parity, line, **scope):
        ok = super().mbarrier_try_wait_parity(thread, rank, address, parity, line, **scope)
        if ok:
            step = self.recorder.step_of_thread(thread)
            if step is not None and step.wait is None:
                bar = self.mbarriers[(rank, address)]
                step.wait = (rank, address, self.recorder.generation.get((rank, address), 0),
                             bar.phase - 1)
        return ok


class BudgetReached(Exception):
    """A recording run stopped after its instruction budget (RecordingMachine.budget)."""


class RecordingMachine(Machine):
    """The executor, unchanged, recording each warp instruction it runs. With ``budget``
    set, it stops (BudgetReached) after that many warp instructions: the trace so far is
    a prefix of the run, enough to see which tiles the CTA loads first."""

    budget: int | None = None

    def __init__(self, module, entry, launch, args, ordering_factory, tensor_core,
                 schedule="late", trace=None, progress_stream=None):
        warps_per_cta = -(-launch.threads // 32)
        recorder = Recorder(warps_per_cta * launch.cluster, warps_per_cta, launch.cluster)

        recording = RecordingOrdering
        if getattr(ordering_factory, "functional", False):   # simulate(functional_only=)
            from tcgen05_lower.sim.functional import FunctionalOrdering
            recording = type("FunctionalRecordingOrdering",
                             (RecordingOrdering, FunctionalOrdering), {})

        def factory(ctas, threads, schedule_):
            ordering = recording(ctas, threads, schedule_)
            ordering.recorder = recorder
            return ordering

        self.recorder = recorder
        super().__init__(module, entry, launch, args, factory, tensor_core, schedule,
                         trace=trace, progress_stream=progress_stream)
        #: id(instruction) -> classify(instruction), looked up once per step
        self._static = {id(ins): classify(ins) for ins in entry.instructions}

    def release_barriers(self, line: int) -> None:
        """The executor's release; each barrier it releases (a CTA's barrier number) is
        one instance for the warps it releases (Recorder.waiting_barrier)."""
        waiting = np.flatnonzero(self.status == BAR)
        super().release_barriers(line)
        released = waiting[self.status[waiting] != BAR]
        rec = self.recorder
        if not released.size or not rec.waiting_barrier:
            return
        keys = self.rank[released] * 16 + self.bar_id[released]
        for key in np.unique(keys):
            instance = rec.releases
            rec.releases += 1
            for w in np.unique(self.warp_of[released[keys == key]]):
                step = rec.waiting_barrier.pop(int(w), None)
                if step is not None:
                    step.barrier = instance

    def _count(self, ins, idx) -> None:
        super()._count(ins, idx)
        if self.budget is not None and self.stats.warp_instructions > self.budget:
            raise BudgetReached()
        rec = self.recorder
        if rec.pending_waits:
            rec.flush_waits()
        kind, srcs, dsts, nbytes = self._static[id(ins)]
        act = self.guarded(ins, idx)
        threads = self.threads_of(idx)
        # the step's threads are sorted (the run loop's flatnonzero), so are their warps:
        # each warp's threads are one slice of them
        of = self.warp_of[threads]
        cuts = [0, threads.size] if of[0] == of[-1] else \
            [0, *(np.flatnonzero(of[1:] != of[:-1]) + 1).tolist(), threads.size]
        if act is idx:        # no guard, or a guard every thread passes
            active = None
        else:
            active = np.zeros(self.nthreads, bool)
            active[act] = True
        rec.current = {}
        for begin, stop in zip(cuts, cuts[1:]):
            w = int(of[begin])
            if w in rec.spinning:
                rec.spinning.discard(w)
                if ins.parts[0] == "bra":
                    continue
            mine = threads[begin:stop]
            if active is not None:
                mine_active = mine[active[mine]]
                n_active = mine_active.size
            else:
                mine_active, n_active = mine, mine.size
            rank = w // self.warps_per_cta
            step = Step(kind, ins.line, ins.text.strip(), srcs, dsts,
                        nbytes * (n_active if kind.startswith(("ld_", "st_")) else
                                  (1 if n_active and kind.startswith("tmem") else 0)),
                        rank=rank, opcode=ins.opcode)
            if kind == "ld_global" and n_active:
                step.lines = self._lines(ins, mine_active)
            elif kind == "st_global" and n_active:
                step.lines = self._sectors(ins, mine_active, nbytes)
            if kind == "mbar_wait":
                rec.current[w] = step   # appended if the wait succeeds (flush_waits)
                rec.pending_waits.append((w, step))
                continue
            if kind == "barrier" and n_active and ins.parts[1] == "warp":
                step.barrier = rec.releases   # bar.warp.sync: the warp's own instance
                rec.releases += 1
            elif kind == "barrier" and n_active:
                number = ins.operands[0].value if ins.operands and \
                    isinstance(ins.operands[0], P.Imm) else 0
                arriving = [int(t) for t in mine_active]
                count = rec.barriers.get((arriving[0], number), 0)
                for t in arriving:
                    rec.barriers[(t, number)] = count + 1
                if (w, number, count) not in rec.barrier_steps:
                    rec.barrier_steps.add((w, number, count))
                    step.barrier = count * 16 + number   # 16 barriers per CTA (9.7.13.1)
                    # until the release names the instance (RecordingOrdering.barrier)
                    rec.waiting_barrier[w] = step
            elif kind == "cluster_arrive" and n_active:
                step.barrier = rec.cluster_arrivals[w]
                rec.cluster_arrivals[w] += 1
            elif kind == "cluster_wait" and n_active:
                # The wait pairs with the warp's latest arrive. A wait that blocks runs
                # again when the cluster barrier releases it: one step, not two.
                instance = rec.cluster_arrivals[w] - 1
                steps = rec.trace.warps[w]
                if steps and steps[-1].kind == "cluster_wait" and \
                        steps[-1].barrier == instance:
                    rec.current[w] = steps[-1]
                    continue
                step.barrier = instance
            rec.trace.warps[w].append(step)
            rec.current[w] = step
        if kind == "async" and ins.parts[1] == "mma":
            for g in self.threads_of(act):
                rec.mma_info[int(g)] = self._mma_cost(ins, int(g))

    def _lines(self, ins, threads) -> tuple:
        """The 128-byte lines an ld.global of ``threads`` reads (the L2's unit of reuse)."""
        addr = next((op for op in ins.operands if isinstance(op, P.Addr)), None)
        if addr is None:
            return ()
        try:
            where = self.address(addr, threads, ins)
        except Exception:   # the functional model reports a bad address itself
            return ()
        return tuple(int(x) for x in np.unique(np.asarray(where, np.uint64) // 128))

    def _sectors(self, ins, threads, width: int) -> tuple:
        """The 32-byte sectors an st.global of ``threads``, `width` bytes each, writes."""
        addr = next((op for op in ins.operands if isinstance(op, P.Addr)), None)
        if addr is None or not width:
            return ()
        try:
            where = np.asarray(self.address(addr, threads, ins), np.uint64)
        except Exception:   # the functional model reports a bad address itself
            return ()
        first, last = where // SECTOR_BYTES, (where + np.uint64(width - 1)) // SECTOR_BYTES
        return tuple(int(x) for x in np.unique(np.concatenate([first, last])))

    def _mma_cost(self, ins, g: int) -> MmaCost | None:
        from tcgen05_lower.sim import block_scale, tensor_core
        parts = ins.parts
        kind = next(p for p in parts if p.startswith("kind::")).split("::")[1]
        group = int(next(p for p in parts if p.startswith("cta_group::"))[-1])
        sparse = "sp" in parts
        ops = ins.operands
        try:
            op = ops[4 if sparse else 3]
            idesc = int(self.read(op, np.array([g]), 32, ins).reshape(-1)[0]) \
                if isinstance(op, P.Reg) else self.imm_bits(op, 32)
            decode = block_scale.decode_instr_descriptor if kind in \
                block_scale.BLOCK_SCALED_KINDS else tensor_core.decode_instr_descriptor
            info = decode(idesc, kind)
        except Exception:   # the functional model reports a bad descriptor itself
            return None
        return MmaCost(kind, info.m, info.n, group, sparse, isinstance(ops[1], P.Addr))

    def run(self):
        stats = super().run()
        self.recorder.flush_waits()
        return stats


# -- the replay -----------------------------------------------------------------------------

STALLS = ("mbarrier wait", "barrier", "wait::ld", "wait::st", "register dependency",
          "issue slot")


@dataclass
class ClusterTiming:
    cycles: float
    tensor_busy: float          # cycles the tensor pipe(s) were occupied, summed over SMs
    tensor_math: float          # of which math at the kind's peak rate
    tmem_busy: float            # TMEM port cycles, summed over ports
    dram_bytes: float           # bytes that missed in L2
    dram_busy: float            # cycles of the SM's DRAM share those bytes took
    stalls: dict                # "CTA r warp w" -> {reason: cycles}
    events: list                # Chrome trace events (cycles)
    ctas: int
    warp_instructions: int
    stall_lines: dict = field(default_factory=dict)   # (PTX line, reason) -> cycles, all warps
    l2_bytes: float = 0.0       # bytes of global loads and stores (through the L2)
    l2_busy: float = 0.0        # cycles of the SM's L2 port those bytes took
    #: bytes the L2 read for them: a multicast load's once for all its receiving CTAs
    l2_read_bytes: float = 0.0


@dataclass
class TimingResult:
    """The model's estimate for a launch."""
    cycles: float
    clock_ghz: float
    utilisation: dict           # unit -> fraction of the time busy
    stalls: dict                # warp -> {reason: cycles} (the first cluster's warps)
    clusters: list              # ClusterTiming per cluster of the grid
    waves: int
    how: str = ""               # how the estimate was made
    sms: int = 148
    recording: object = None    # the Recording it was replayed from (Recording.replay)

    @property
    def microseconds(self) -> float:
        return self.cycles / (self.clock_ghz * 1e3)

    def summary(self) -> str:
        util = ", ".join(f"{k} {v:.1%}" for k, v in self.utilisation.items())
        lines = [f"  timing (model, for comparing strategies): {self.cycles:,.0f} cycles = "
                 f"{self.microseconds:.3f} us at {self.clock_ghz} GHz"
                 + (f", {len(self.clusters)} clusters in {self.waves} wave(s)"
                    if len(self.clusters) > 1 else ""),
                 f"  utilisation: {util}"]
        if self.how:
            lines.insert(1, f"  estimate: {self.how}")
        for warp, reasons in self.stalls.items():
            shown = ", ".join(f"{r} {c:,.0f}" for r, c in reasons.items() if c)
            lines.append(f"  stalls {warp}: {shown or 'none'}")
        return "\n".join(lines)

    def chrome_trace(self) -> dict:
        """Chrome trace-event JSON: one process per cluster, one thread (track) per warp
        and per hardware unit; times in microseconds at clock_ghz."""
        scale = 1.0 / (self.clock_ghz * 1e3)
        events = []
        distinct = list({id(cluster): cluster for cluster in self.clusters}.values())
        for c, cluster in enumerate(distinct):   # a timing-only estimate repeats replays
            names = {}
            for ev in cluster.events:
                tid = names.setdefault(ev["track"], len(names))
                events.append({"name": ev["name"], "ph": "X", "pid": c, "tid": tid,
                               "ts": ev["start"] * scale,
                               "dur": max(ev["end"] - ev["start"], 0.0) * scale,
                               "cat": ev.get("cat", ""), "args": ev.get("args", {})})
            events.append({"name": "process_name", "ph": "M", "pid": c, "tid": 0,
                           "args": {"name": f"cluster {c}"}})
            for track, tid in names.items():
                events.append({"name": "thread_name", "ph": "M", "pid": c, "tid": tid,
                               "args": {"name": track}})
                events.append({"name": "thread_sort_index", "ph": "M", "pid": c, "tid": tid,
                               "args": {"sort_index": tid}})
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"clock_ghz": self.clock_ghz, "cycles": self.cycles}}

    def write_chrome_trace(self, path) -> None:
        with open(path, "w") as f:
            json.dump(self.chrome_trace(), f)


def memory_keys(trace: ClusterTrace) -> dict:
    """{key: [loads, bytes per load]} of the trace's global loads: a TMA load's key is its
    tensor and box coordinates, an ld.global's each 128-byte line it touches (its bytes
    shared equally among them). Loads of unknown identity (hand-built traces) have none."""
    keys: dict = {}
    for steps in trace.warps:
        for step in steps:
            for _, _, nbytes, _, *key in step.tmas:
                if key and key[0] is not None:
                    entry = keys.setdefault(key[0], [0, float(nbytes)])
                    entry[0] += 1
            if step.kind == "ld_global" and step.lines:
                share = step.nbytes / len(step.lines)
                for line in step.lines:
                    entry = keys.setdefault(line, [0, share])
                    entry[0] += 1
    return keys


@dataclass(frozen=True)
class MemoryContext:
    """The launch around one replayed CTA (or pair), as its memory requests see it:
    ``active_sms`` SMs share the DRAM and L2 bandwidth, and ``miss`` maps a load's key
    (memory_keys) to the fraction of its bytes that comes from DRAM; the rest hit in L2.
    A key not in ``miss`` misses wholly."""
    active_sms: int = 1
    miss: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    how: str = "alone"

    def miss_of(self, key) -> float:
        return 1.0 if key is None else self.miss.get(key, 1.0)

    def miss_of_lines(self, lines) -> float:
        if not lines:
            return 1.0
        return sum(self.miss.get(line, 1.0) for line in lines) / len(lines)

    @staticmethod
    def shared(loads: dict, active_sms: int, overrides: dict | None = None,
               how: str = "") -> "MemoryContext":
        """``loads``: {key: [loads in the wave, bytes per load]}. A key loaded n times in
        the wave costs DRAM its bytes once: each load misses 1/n of them. When the
        wave's distinct bytes U exceed the L2's capacity C, a reload hits only C/U of the
        time (the rest misses)."""
        footprint = sum(nbytes for _, nbytes in loads.values())
        keep = min(1.0, param("l2_bytes", overrides) / footprint) if footprint else 1.0
        miss = {key: 1.0 / n + (1.0 - 1.0 / n) * (1.0 - keep)
                for key, (n, _) in loads.items()}
        return MemoryContext(active_sms, MappingProxyType(miss), how)

    @staticmethod
    def alone(trace: ClusterTrace, overrides: dict | None = None) -> "MemoryContext":
        """The trace's CTAs alone on the GPU: only they are active, and a tile they load
        several times comes from DRAM once."""
        return MemoryContext.shared(memory_keys(trace), trace.ctas, overrides,
                                    "the CTAs recorded, alone on the GPU")


def multicast_copies(tmas: list) -> dict:
    """{(thread, key): copies} of a step's TMA loads with a key: a thread's
    ``.multicast::cluster`` load is recorded as one copy per receiving CTA, all with the
    load's key (sim/tma.py), and an ordinary load as one."""
    copies: dict = {}
    if len(tmas) > 1:
        for thread, _, _, _, *key in tmas:
            if key and key[0] is not None:
                copies[(thread, key[0])] = copies.get((thread, key[0]), 0) + 1
    return copies


def opcode_of(step: Step) -> str:
    """The step's PTX opcode with its qualifiers (the recorded one; else the first word
    of its text that is not part of a `{ .reg ...;` preamble), for trace names."""
    if step.opcode:
        return step.opcode
    for part in step.text.replace("{", ";").replace("}", ";").split(";"):
        words = part.split()
        while words and (words[0].startswith("@") or words[0].startswith(".")):
            words = words[1:]
        if words:
            return words[0]
    return step.kind


def role_of(steps: list) -> str:
    """What a warp does, from its instructions (the PTX has no role names): "TMA loads",
    "MMA" (issues tcgen05.mma), "epilogue" (tcgen05.ld), several joined, or ""."""
    does = []
    if any(s.tmas for s in steps):
        does.append("TMA loads")
    if any(a[2] == "mma" for s in steps for a in s.asyncs):
        does.append("MMA")
    if any(s.kind == "tmem_ld" for s in steps):
        does.append("epilogue")
    return ", ".join(does)


def step_args(step: Step, role: str) -> dict:
    """Chrome trace args of a warp's step: its PTX line and text, the warp's role, the
    mbarrier phase (and parity) it waited for, the bytes it moved or loaded by TMA. The
    PTX carries no MLIR locations, so none are given."""
    args = {"PTX line": step.line, "PTX": step.text[:200]}
    if role:
        args["role"] = role
    if step.wait is not None:
        args["mbarrier"] = f"CTA {step.wait[0]} {step.wait[1]:#x}"
        args["phase"] = step.wait[3]
        args["parity"] = step.wait[3] & 1
    tma_bytes = sum(t[2] for t in step.tmas)
    if tma_bytes or step.nbytes:
        args["bytes"] = tma_bytes or step.nbytes
    keys = [t[4] for t in step.tmas if len(t) > 4 and t[4] is not None]
    if keys:
        args["tile"] = ", ".join(f"{k[0]}[{k[1]}, {k[2]}]" for k in keys)
    return args


class _Warp:
    def __init__(self, index: int, steps: list, scheduler: tuple, name: str):
        self.index, self.steps, self.scheduler, self.name = index, steps, scheduler, name
        self.pc = 0
        self.next_issue = 0.0       # earliest issue of the next step (in-order, 1/cycle)
        self.ready: dict[str, tuple[float, str]] = {}   # register -> (time, producer kind)
        self.ld_done = 0.0
        self.st_done = 0.0
        self.gate: tuple | None = None   # ("bar", rank, k) or ("cbar", k)
        self.stalls = dict.fromkeys(STALLS, 0.0)
        self.done_at = 0.0
        self.run_start: float | None = None
        self.run_end = 0.0
        self.run_count = 0
        self.global_loads: list[float] = []   # issue times of the warp's global loads


class _Discard(list):
    """An event list that keeps nothing (replays whose Chrome trace nobody reads)."""

    def append(self, item) -> None:
        pass


def replay(trace: ClusterTrace, overrides: dict | None = None,
           memory: "MemoryContext | None" = None, keep_events: bool = True) -> ClusterTiming:
    """Runs the recorded warps through the model (see the module docstring). ``memory``:
    the launch around the trace (SMs active, which bytes hit in L2); by default the trace's
    CTAs alone on the GPU, each distinct load missing once (MemoryContext.alone).
    ``keep_events``: False leaves the Chrome trace events out (less memory)."""
    p = lambda name: param(name, overrides)   # noqa: E731
    if memory is None:
        memory = MemoryContext.alone(trace, overrides)
    active = max(memory.active_sms, trace.ctas)
    port_rate = p("l2_sm_bytes_per_cycle")
    l2_share = p("l2_bytes_per_cycle") / active
    dram_rate = p("dram_bytes_per_cycle") / active
    wpc = trace.warps_per_cta
    warps = [_Warp(i, steps, (i // wpc, i % wpc % int(p("schedulers"))),
                   f"CTA {i // wpc} warp {i % wpc}")
             for i, steps in enumerate(trace.warps)]
    for w in warps:
        w.role = trace.roles.get(w.index % wpc) or role_of(w.steps)
        w.track = f"{w.name} ({w.role})" if w.role else w.name
    events: list[dict] = [] if keep_events else _Discard()
    # how many arrivals each mbarrier phase gets, and which warps take part in each barrier
    expected: dict[tuple, int] = {}
    participants: dict[tuple, int] = {}
    for w in warps:
        for s in w.steps:
            for tag in s.arrivals:
                expected[tag] = expected.get(tag, 0) + 1
            for _, tags in s.commits:
                for tag in tags:
                    expected[tag] = expected.get(tag, 0) + 1
            for _, _, _, tags, *_ in s.tmas:
                for tag in tags:
                    expected[tag] = expected.get(tag, 0) + 1
            if s.kind == "barrier" and s.barrier >= 0:
                key = ("bar", s.rank, s.barrier)
                participants[key] = participants.get(key, 0) + 1
            if s.kind == "cluster_arrive" and s.barrier >= 0:
                key = ("cbar", s.barrier)
                participants[key] = participants.get(key, 0) + 1
    arrived: dict[tuple, list] = {}      # tag or barrier key -> [count, latest time]
    slots: dict[tuple, set] = {}
    tensor_free = [0.0] * trace.ctas
    tmem_free: dict[tuple, float] = {}
    dram_free = [0.0] * trace.ctas
    smem_free = [0.0] * trace.ctas
    async_done: dict[int, float] = {}    # thread -> completion of its latest async op
    tensor_busy = tensor_math = tmem_busy = dram_bytes = dram_busy = 0.0
    l2_bytes = l2_busy = l2_read_bytes = 0.0
    end = 0.0
    instructions = 0

    def request(rank: int, ready: float, nbytes: float, miss: float, miss_latency: float,
                name: str, l2_read: float = 1.0) -> tuple[float, float]:
        """A global access of ``nbytes`` through the SM's L2 port, ``miss`` of them from
        DRAM: (first byte, last byte). Its first bytes come l2_latency after ``ready`` (a
        miss: miss_latency), its bytes stream at the slowest of the SM's L2 port, its
        share of the L2's total bandwidth for the ``l2_read`` fraction of the bytes the L2
        reads for it (a copy of a multicast to r CTAs: 1 / r, the L2 reads the tile once
        for all of them) and, for the missing bytes, its DRAM share, behind the port's
        earlier requests."""
        nonlocal dram_bytes, dram_busy, l2_bytes, l2_busy, l2_read_bytes
        l2_time = max(nbytes / port_rate, nbytes * l2_read / l2_share)
        dram_time = nbytes * miss / dram_rate
        dur = max(l2_time, dram_time)
        l2_read_bytes += nbytes * l2_read
        latency = p("l2_latency") + miss * (miss_latency - p("l2_latency"))
        begin = max(ready + latency, dram_free[rank])
        dram_free[rank] = begin + dur
        dram_bytes += nbytes * miss
        dram_busy += dram_time
        l2_bytes += nbytes
        l2_busy += l2_time
        if dur:
            events.append({"track": f"CTA {rank} memory (L2 port)", "name": name,
                           "start": begin, "end": begin + dur, "cat": "memory",
                           "args": {"bytes": nbytes, "from DRAM": round(nbytes * miss)}})
        return begin, begin + dur

    arrivals = [0]   # how many arrive() calls so far: a blocked warp's earliest may change

    def arrive(key, t):
        arrivals[0] += 1
        entry = arrived.setdefault(key, [0, 0.0])
        entry[0] += 1
        entry[1] = max(entry[1], t)

    def complete(key, need) -> float | None:
        entry = arrived.get(key)
        if need is None or entry is None or entry[0] < need:
            return None
        return entry[1]

    def earliest(w: _Warp) -> tuple[float, str] | None:
        """When w's next step can issue and what held it, or None while blocked on an
        event not yet known."""
        step = w.steps[w.pc]
        t, why = w.next_issue, "issue slot"
        if w.gate is not None:
            need = participants.get(w.gate)
            released = complete(w.gate, need)
            if released is None:
                return None
            released += p("barrier_latency")
            if released > t:
                t, why = released, "barrier"
        if step.wait is not None:
            # phase -1: a wait on the parity of the phase before the first, which succeeds
            # at once (the mbarrier's initial state)
            done = 0.0 if step.wait[3] < 0 else complete(step.wait, expected.get(step.wait))
            if done is None:
                return None
            done += p("mbarrier_wait_latency")
            if done > t:
                t, why = done, "mbarrier wait"
        if step.kind == "wait_ld" and w.ld_done > t:
            t, why = w.ld_done, "wait::ld"
        if step.kind == "wait_st" and w.st_done > t:
            t, why = w.st_done, "wait::st"
        for r in step.srcs:
            ready = w.ready.get(r)
            if ready is not None and ready[0] > t:
                t, why = ready[0], "register dependency"
        return t, why

    def flush_run(w: _Warp) -> None:
        if w.run_count:
            events.append({"track": w.track, "name": f"{w.run_count} instructions",
                           "start": w.run_start, "end": w.run_end, "cat": "issue"})
        w.run_start, w.run_count = None, 0

    stall_lines: dict[tuple, float] = {}
    live = [w for w in warps if w.steps]
    # earliest(w) per warp, kept until w issues or, while it is None (w blocked on an
    # event not yet known), until the next arrival: a time it gives is final, since a
    # phase or barrier instance is complete only once its last arrival is in
    known: dict[int, tuple] = {}     # warp index -> (arrivals when computed, earliest)
    while live:
        best = None
        for w in live:
            cached = known.get(w.index)
            if cached is None or (cached[1] is None and cached[0] != arrivals[0]):
                cached = (arrivals[0], earliest(w))
                known[w.index] = cached
            got = cached[1]
            if got is not None and (best is None or got[0] < best[1]):
                best = (w, got[0], got[1])
        if best is None:
            where = "; ".join(f"{w.name} at line {w.steps[w.pc].line}" for w in live)
            raise RuntimeError(f"timing replay: no warp can proceed ({where})")
        w, t, why = best
        slot = slots.setdefault(w.scheduler, set())
        t = float(np.ceil(t))
        start = t
        while t in slot:
            t += 1
        slot.add(t)
        # the cycles until the warp could issue are its reason's (a wait, a dependency);
        # only the cycles after that, while other warps of its scheduler held the slot,
        # are the issue slot's
        held = max(start - w.next_issue, 0.0) if why != "issue slot" else 0.0
        for reason, cycles in ((why, held), ("issue slot", t - w.next_issue - held)):
            if cycles <= 0:
                continue
            w.stalls[reason] += cycles
            key = (w.steps[w.pc].line, reason)
            stall_lines[key] = stall_lines.get(key, 0.0) + cycles
        if held > 0:
            flush_run(w)
            events.append({"track": w.track, "name": why, "start": w.next_issue,
                           "end": start, "cat": "stall"})
        step = w.steps[w.pc]
        w.gate = None
        known.pop(w.index, None)
        instructions += 1
        latency, blocking = _execute(step, p)
        w.next_issue = t + 1
        # per-kind effects
        k = step.kind
        rank = step.rank
        if k == "ld_global" or k == "st_global":
            # the SM's share of DRAM serves requests one after another: a load's data comes
            # back global_latency after its (hoisted) issue, at the earliest, and after the
            # data of the requests before it; a store only occupies the share
            if k == "ld_global":
                w.global_loads.append(t)
                ahead = int(p("global_loads_in_flight"))
                hoisted = w.global_loads[max(len(w.global_loads) - 1 - ahead, 0)]
                _, last = request(rank, hoisted, step.nbytes, memory.miss_of_lines(step.lines),
                                  p("global_latency"), "ld.global")
                latency = max(last - t, 1.0)
            else:
                # a store is written back to DRAM (its bytes miss); the kernel has not
                # finished before its stores have reached memory. Through the SM's L2
                # port it moves whole 32-byte sectors (a warp's 4-byte stores to 32
                # rows: 32 sectors for 128 bytes), to DRAM only its bytes (the L2 merges
                # the writes to a sector before it writes the sector back)
                moved = len(step.lines) * SECTOR_BYTES if step.lines else step.nbytes
                _, last = request(rank, t - p("l2_latency"), moved,
                                  step.nbytes / moved if moved else 1.0,
                                  p("l2_latency"), "st.global")
                latency = 0
                end = max(end, last)
        elif k in ("ld_shared", "st_shared"):
            begin = max(t, smem_free[rank])
            dur = step.nbytes / p("smem_bytes_per_cycle")
            smem_free[rank] = begin + dur
            latency = (begin + dur - t) + p("shared_latency") if k == "ld_shared" else 0
        elif k in ("tmem_ld", "tmem_st"):
            port = (rank, w.index % wpc % 4)
            begin = max(t, tmem_free.get(port, 0.0))
            dur = step.nbytes / p("tmem_bytes_per_cycle")
            tmem_free[port] = begin + dur
            tmem_busy += dur
            done = begin + dur + p("tmem_ld_latency" if k == "tmem_ld" else "tmem_st_latency")
            if k == "tmem_ld":
                w.ld_done = max(w.ld_done, done)
                latency = done - t
            else:
                w.st_done = max(w.st_done, done)
            if dur:
                events.append({"track": f"CTA {rank} TMEM port {port[1]}",
                               "name": f"{w.name}: {opcode_of(step)}",
                               "start": begin, "end": begin + dur, "cat": "tmem"})
            end = max(end, done)
        for thread, arank, akind, cost in step.asyncs:
            ranks = [arank, arank + 1] if cost is not None and cost.cta_group == 2 \
                and arank + 1 < trace.ctas else [arank]
            begin = max([t + p("mma_issue_latency")] + [tensor_free[r] for r in ranks])
            if akind == "mma" and cost is not None:
                dur, math = mma_cycles(cost, overrides)
                label = (f"mma.{cost.kind} M{cost.m} N{cost.n}"
                         f"{' cta_group::2' if cost.cta_group == 2 else ''}")
            else:   # cp / shift: a shared-memory read (cp) or a TMEM shift
                dur, math = (4096 / p("smem_bytes_per_cycle"), 0.0) if akind == "cp" \
                    else (16.0, 0.0)
                label = akind
            for r in ranks:
                tensor_free[r] = begin + dur
                tensor_busy += dur
                tensor_math += math
                events.append({"track": f"CTA {r} tensor pipe", "name": label,
                               "start": begin, "end": begin + dur, "cat": "tensor"})
            done = begin + dur + p("mma_latency")
            async_done[thread] = max(async_done.get(thread, 0.0), done)
            end = max(end, done)
        copies = multicast_copies(step.tmas)
        for thread, trank, nbytes, tags, *key in step.tmas:
            # cp.async.bulk.tensor: asynchronous; its bytes through the SM's L2 port
            # (request), complete_tx of them on the mbarrier when the last byte has landed;
            # a multicast's copies share one read of the L2
            source = key[0] if key else None
            _, last = request(trank, t, nbytes, memory.miss_of(source),
                              p("tma_latency"), f"TMA {nbytes} B",
                              1.0 / copies.get((thread, source), 1))
            for tag in tags:
                arrive(tag, last)
            end = max(end, last)
        for thread, tags in step.commits:
            at = max(t, async_done.get(thread, 0.0)) + p("commit_latency")
            for tag in tags:
                arrive(tag, at)
            end = max(end, at)
        for tag in step.arrivals:
            arrive(tag, t + p("mbarrier_arrive_latency"))
        if k == "barrier" and step.barrier >= 0:
            key = ("bar", rank, step.barrier)
            arrive(key, t)
            w.gate = key
        elif k == "cluster_arrive" and step.barrier >= 0:
            arrive(("cbar", step.barrier), t)
        elif k == "cluster_wait" and step.barrier >= 0:
            w.gate = ("cbar", step.barrier)
        if blocking:
            w.next_issue = t + latency
        for d in step.dsts:
            w.ready[d] = (t + latency, k)
        if w.run_start is None:
            w.run_start = t
        w.run_end = t + 1
        w.run_count += 1
        if k in ("tmem_ld", "mbar_wait", "barrier", "commit", "async", "wait_ld", "wait_st",
                 "tma"):
            flush_run(w)
            events.append({"track": w.track, "name": opcode_of(step), "start": t,
                           "end": t + 1, "cat": "sync", "args": step_args(step, w.role)})
        w.pc += 1
        w.done_at = w.next_issue
        end = max(end, w.next_issue)
        if w.pc >= len(w.steps):
            flush_run(w)
            live.remove(w)
    ctas = trace.ctas
    return ClusterTiming(cycles=end, tensor_busy=tensor_busy, tensor_math=tensor_math,
                         tmem_busy=tmem_busy, dram_bytes=dram_bytes, dram_busy=dram_busy,
                         stalls={w.name: {r: c for r, c in w.stalls.items()} for w in warps},
                         events=events, ctas=ctas, warp_instructions=instructions,
                         stall_lines=stall_lines, l2_bytes=l2_bytes, l2_busy=l2_busy,
                         l2_read_bytes=l2_read_bytes)


_LATENCY = MappingProxyType({"alu": ("alu_latency", False), "mufu": ("mufu_latency", False),
                             "ld_param": ("param_latency", False),
                             "fence_proxy": ("fence_proxy_latency", True),
                             "alloc": ("alloc_latency", True),
                             "mbar_arrive": ("mbarrier_arrive_latency", False)})


def _execute(step: Step, p) -> tuple[float, bool]:
    """(latency of the step's results, whether the warp waits for them before issuing
    again) by kind; memory kinds are refined by the caller."""
    name, blocking = _LATENCY.get(step.kind, (None, False))
    return (p(name) if name else 1.0), blocking


def combine(clusters: list[ClusterTiming], sms_per_cluster: int = 1,
            overrides: dict | None = None, waves: list | None = None,
            how: str = "") -> TimingResult:
    """The launch: clusters run in waves of (sms / CTAs per cluster) in launch order (or
    ``waves``, lists of indices into ``clusters``); each wave takes its slowest cluster's
    cycles. Utilisation is over the SMs of each wave for that wave's time."""
    if waves is None:
        per_wave = max(int(param("sms", overrides)) // max(sms_per_cluster, 1), 1)
        waves = [range(i, min(i + per_wave, len(clusters)))
                 for i in range(0, len(clusters), per_wave)]
    cycles = 0.0
    sm_cycles = 0.0
    for wave in waves:
        slowest = max(clusters[i].cycles for i in wave)
        cycles += slowest
        sm_cycles += slowest * sum(clusters[i].ctas for i in wave)
    sm_cycles = sm_cycles or 1.0
    util = {
        "tensor pipe": sum(c.tensor_busy for c in clusters) / sm_cycles,
        "tensor math": sum(c.tensor_math for c in clusters) / sm_cycles,
        "TMEM ports": sum(c.tmem_busy for c in clusters) / (4 * sm_cycles),
        "L2 port": sum(c.l2_busy for c in clusters) / sm_cycles,
        "DRAM share": sum(c.dram_busy for c in clusters) / sm_cycles,
    }
    return TimingResult(cycles=cycles, clock_ghz=param("clock_ghz", overrides),
                        utilisation=util, stalls=clusters[0].stalls if clusters else {},
                        clusters=clusters, waves=len(waves), how=how,
                        sms=int(param("sms", overrides)))


# -- record once, replay many -------------------------------------------------------------------

#: The largest grid, in clusters, a timing-only estimate walks (its waves are replayed from
#: a few recorded CTAs, but each cluster's place in its wave is still visited once).
TIMING_ONLY_MAX_CLUSTERS = 1 << 20
#: Warp instructions recorded of each neighbour of cluster (0, 0, 0) in a timing-only
#: estimate: enough for their first loads of every buffer (Recording.key_classes).
TIMING_ONLY_NEIGHBOUR_INSTRUCTIONS = 50_000


@dataclass
class Recording:
    """A recorded launch: the traces of the clusters the functional run simulated (ids
    ``cluster_ids``, (x, y, z) in clusters) out of a grid of ``grid`` clusters of
    ``cluster_size`` CTAs. ``replay(overrides)`` estimates the launch under any
    parameters without simulating again. When only some clusters were recorded
    (tcgen05-sim --timing-only), cluster (0, 0, 0) stands for every cluster, and its
    neighbours (1, 0, 0) and (0, 1, 0), when recorded, tell which of its loads other
    clusters share: a tile it loads that (1, 0, 0) loads too is shared along its row of
    the grid (same y, z), one (0, 1, 0) loads too along its column (same x, z)."""
    traces: list
    cluster_ids: list
    grid: tuple
    cluster_size: int = 1
    #: the cluster ids whose trace is a prefix of their run (an instruction budget)
    partial: list = field(default_factory=list)
    #: {buffer: "row" | "column" | "all" | "own"} given instead of recorded neighbours (a
    #: what-if: the recorded CTA as every tile of a grid); buffers as in _buffer_of
    buffer_classes: dict = field(default_factory=dict)

    @property
    def total_clusters(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def complete(self) -> bool:
        """Every cluster recorded, each for its whole run."""
        return len(self.traces) == self.total_clusters and not self.partial

    def launch_order(self) -> list:
        """Cluster ids in the order their CTAs are assumed to start: x fastest, then y,
        then z (the launch order of a grid; the waves are consecutive runs of it)."""
        gx, gy, gz = self.grid
        return [(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)]

    def replay(self, overrides: dict | None = None) -> TimingResult:
        """The launch's estimate under ``overrides`` (parameter name -> value)."""
        check_overrides(overrides)
        per_wave = max(int(param("sms", overrides)) // max(self.cluster_size, 1), 1)
        if self.complete:
            return self._replay_all(per_wave, overrides)
        from tcgen05_lower.sim import timing_wave
        if timing_wave.covers_one_wave(self, per_wave):
            return timing_wave.replay_one_wave(self, per_wave, overrides)
        return self._replay_representative(per_wave, overrides)

    def _replay_all(self, per_wave: int, overrides) -> TimingResult:
        timings = []
        for i in range(0, len(self.traces), per_wave):
            wave = self.traces[i:i + per_wave]
            loads: dict = {}
            for trace in wave:
                for key, (n, nbytes) in memory_keys(trace).items():
                    entry = loads.setdefault(key, [0, nbytes])
                    entry[0] += n
            ctx = MemoryContext.shared(loads, sum(t.ctas for t in wave), overrides)
            timings += [replay(trace, overrides, ctx) for trace in wave]
        how = (f"every one of the {len(self.traces)} clusters simulated and replayed, in "
               f"waves of {per_wave} sharing L2 and DRAM"
               if len(self.traces) > 1 else "the CTA" + ("s" if self.cluster_size > 1
                                                          else "") +
               " simulated and replayed alone on the GPU")
        return combine(timings, self.cluster_size, overrides, how=how)

    def key_classes(self) -> dict:
        """{key: "row" | "column" | "all" | "own"} for the loads of cluster (0, 0, 0):
        shared with (1, 0, 0) (row), with (0, 1, 0) (column), both, or neither. A
        neighbour recorded only in part (``partial``) shows its first loads: a buffer (a
        TMA load's tensor, an ld.global's array) most of whose bytes among them cluster
        (0, 0, 0) loads too counts as shared whole, the others as not shared."""
        loads = {cid: memory_keys(t) for cid, t in zip(self.cluster_ids, self.traces)}
        own = set(loads[(0, 0, 0)])
        if self.buffer_classes:
            return {key: self.buffer_classes.get(_buffer_of(key), "own") for key in own}

        def shared_with(cid) -> set:
            theirs = loads.get(cid)
            if theirs is None:
                return set()
            if cid not in self.partial:
                return own & set(theirs)
            seen: dict = {}
            for key, (n, nbytes) in theirs.items():
                entry = seen.setdefault(_buffer_of(key), [0.0, 0.0])
                entry[0] += nbytes
                entry[1] += nbytes if key in own else 0.0
            groups = {g for g, (total, common) in seen.items() if common > total / 2}
            return {key for key in own if _buffer_of(key) in groups}

        along_x = shared_with((1, 0, 0))
        along_y = shared_with((0, 1, 0))
        return {key: ("all" if key in along_x and key in along_y else
                      "row" if key in along_x else "column" if key in along_y else "own")
                for key in own}

    def _replay_representative(self, per_wave: int, overrides) -> TimingResult:
        base = self.traces[self.cluster_ids.index((0, 0, 0))]
        loads = memory_keys(base)
        classes = self.key_classes()
        ctas = base.ctas
        cache: dict = {}
        timings, waves = [], []
        order = self.launch_order()
        bytes_of = {c: sum(n_b[1] for k, n_b in loads.items() if classes[k] == c)
                    for c in ("row", "column", "all", "own")}
        for i in range(0, len(order), per_wave):
            wave = order[i:i + per_wave]
            rows: dict = {}
            cols: dict = {}
            for x, y, z in wave:
                rows[(y, z)] = rows.get((y, z), 0) + 1
                cols[(x, z)] = cols.get((x, z), 0) + 1
            footprint = (len(rows) * bytes_of["row"] + len(cols) * bytes_of["column"]
                         + bytes_of["all"] + len(wave) * bytes_of["own"])
            keep = min(1.0, param("l2_bytes", overrides) / footprint) if footprint else 1.0
            # every cluster of the wave is replayed as one with the wave's average
            # sharing: of a row-shared buffer the wave loads len(rows) distinct tiles for
            # its len(wave) clusters, so a load of one misses len(rows) / len(wave)
            sharers = {"row": len(wave) / len(rows), "column": len(wave) / len(cols),
                       "all": len(wave), "own": 1}
            sig = (len(wave), len(rows), len(cols), keep)
            if sig not in cache:
                miss = {}
                for key, (n, _) in loads.items():
                    total = n * sharers[classes[key]]
                    miss[key] = 1.0 / total + (1.0 - 1.0 / total) * (1.0 - keep)
                ctx = MemoryContext(len(wave) * ctas, MappingProxyType(miss), "wave")
                cache[sig] = len(timings)
                timings.append(replay(base, overrides, ctx, keep_events=not timings))
            indices = [cache[sig]] * len(wave)
            waves.append(indices)
        all_timings = [timings[i] for wave in waves for i in wave]
        flat, pos = [], 0
        for wave in waves:
            flat.append(list(range(pos, pos + len(wave))))
            pos += len(wave)
        recorded = ", ".join(str(c) + (" (its first instructions)" if c in self.partial
                                        else "") for c in self.cluster_ids)
        shared = ("as given: " + ", ".join(f"{b} by {c}" for b, c in
                                           sorted(self.buffer_classes.items()))
                  if self.buffer_classes else "as the recorded neighbours show")
        how = (f"timing only: cluster(s) {recorded} simulated, cluster (0, 0, 0) replayed "
               f"for each of the {len(order)} clusters in {len(waves)} wave(s) of "
               f"{per_wave} (launch order, x fastest), its loads shared in L2 with the "
               f"clusters of its wave in the same row (same y) or column (same x) "
               f"{shared}, each wave's clusters replayed as one with the wave's average "
               f"sharing; {len(cache)} distinct replays")
        return combine(all_timings, self.cluster_size, overrides, waves=flat, how=how)


def _tuples(value):
    """JSON lists back to the tuples the replay uses as keys."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _step_to_json(step: Step) -> dict:
    out = {"kind": step.kind}
    for name in ("line", "text", "srcs", "dsts", "nbytes", "arrivals", "wait", "barrier",
                 "rank", "lines", "opcode"):
        value = getattr(step, name)
        if value != _STEP_DEFAULTS.get(name, []):  # list fields default to []
            out[name] = value
    if step.asyncs:
        out["asyncs"] = [[t, r, k, None if c is None else
                          [c.kind, c.m, c.n, c.cta_group, c.sparse, c.a_in_tmem]]
                         for t, r, k, c in step.asyncs]
    if step.commits:
        out["commits"] = step.commits
    if step.tmas:
        out["tmas"] = step.tmas
    return out


def _step_from_json(d: dict) -> Step:
    step = Step(d["kind"], d.get("line", 0), d.get("text", ""), _tuples(d.get("srcs", [])),
                _tuples(d.get("dsts", [])), d.get("nbytes", 0),
                arrivals=[_tuples(t) for t in d.get("arrivals", [])],
                wait=_tuples(d["wait"]) if d.get("wait") is not None else None,
                barrier=d.get("barrier", -1), rank=d.get("rank", 0),
                lines=_tuples(d.get("lines", [])), opcode=d.get("opcode", ""))
    step.asyncs = [(t, r, k, None if c is None else MmaCost(*c))
                   for t, r, k, c in d.get("asyncs", [])]
    step.commits = [(t, [_tuples(tag) for tag in tags]) for t, tags in d.get("commits", [])]
    step.tmas = [(t, r, n, [_tuples(tag) for tag in tags], *(_tuples(k) for k in key))
                 for t, r, n, tags, *key in d.get("tmas", [])]
    return step


#: A Step's default value of each field with a plain default (the others are lists that
#: default to []): a constant mapping, where a module-level Step would be state shared
#: between runs.
_STEP_DEFAULTS = types.MappingProxyType({
    f.name: f.default for f in dataclasses.fields(Step)
    if f.default is not dataclasses.MISSING})


def save_recording(recording: Recording, path) -> None:
    """Writes a Recording as gzipped JSON (load_recording reads it back)."""
    import gzip
    data = {"grid": recording.grid, "cluster_size": recording.cluster_size,
            "cluster_ids": recording.cluster_ids, "partial": recording.partial,
            "traces": [{"warps_per_cta": t.warps_per_cta, "ctas": t.ctas,
                        "roles": t.roles,
                        "warps": [[_step_to_json(s) for s in w] for w in t.warps]}
                       for t in recording.traces]}
    with gzip.open(path, "wt") as f:
        json.dump(data, f, separators=(",", ":"))


def load_recording(path) -> Recording:
    """A Recording written by save_recording: replay it with ``.replay(overrides)``."""
    import gzip
    with gzip.open(path, "rt") as f:
        data = json.load(f)
    traces = [ClusterTrace(t["warps_per_cta"], t["ctas"],
                           [[_step_from_json(s) for s in w] for w in t["warps"]],
                           roles={int(k): v for k, v in t.get("roles", {}).items()})
              for t in data["traces"]]
    return Recording(traces, [tuple(c) for c in data["cluster_ids"]], tuple(data["grid"]),
                     data["cluster_size"], [tuple(c) for c in data.get("partial", [])])


def _buffer_of(key):
    """The buffer a load key belongs to: a TMA key's tensor, an ld.global line's array
    (the simulator places each array argument in its own 2^36-byte window)."""
    return key[0] if isinstance(key, tuple) else (key * 128) >> 36


#: Parameters a what-if may set to 0: latencies (the rest are rates, counts and capacities
#: the model divides by).
_MAY_BE_ZERO = frozenset(name for name in PARAMETERS if name.endswith("latency"))


def check_overrides(overrides: dict | None) -> None:
    """ValueError naming the known parameters for an unknown name or a value that is not
    a positive number."""
    for name, value in (overrides or {}).items():
        if name not in PARAMETERS:
            raise ValueError(f"unknown timing parameter {name!r}; known: "
                             f"{', '.join(PARAMETERS)}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"timing parameter {name}={value!r} is not a number") from None
        if number != number or number in (float("inf"), float("-inf")) or number < 0:
            raise ValueError(f"timing parameter {name}={value!r} must be a finite number "
                             f"of at least 0")
        if number == 0 and name not in _MAY_BE_ZERO:
            raise ValueError(f"timing parameter {name}={value!r} must be positive (it is a "
                             f"rate, a count or a capacity)")


def parse_timing_params(items) -> dict:
    """``["l2_latency=300", ...]`` -> {"l2_latency": 300.0}; ValueError (naming the known
    parameters) for a bad item."""
    overrides = {}
    for item in items or ():
        name, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--timing-param {item}: expected NAME=VALUE; known: "
                             f"{', '.join(PARAMETERS)}")
        overrides[name.strip()] = value.strip()
    check_overrides(overrides)
    return {k: float(v) for k, v in overrides.items()}


# -- calibration ------------------------------------------------------------------------------

def single_warp(steps: list[Step]) -> ClusterTrace:
    """A trace of one CTA whose warp 0 runs ``steps`` (for calibration and tests)."""
    return ClusterTrace(warps_per_cta=1, ctas=1, warps=[steps])


def calibration(overrides: dict | None = None) -> list[dict]:
    """The model's figures for single operations beside the published figures they were
    calibrated on (docs/timing.md prints this table)."""
    rows = []
    largest = [("f16", 128, 256, 1), ("tf32", 128, 256, 1), ("f8f6f4", 128, 256, 1),
               ("i8", 128, 256, 1), ("mxf8f6f4", 128, 256, 1), ("mxf4", 128, 256, 1),
               ("mxf4nvf4", 128, 256, 1), ("f16", 256, 256, 2)]
    published = {"f16": "2.25 PFLOP/s dense", "tf32": "1.1 PFLOP/s dense",
                 "f8f6f4": "4.5 PFLOP/s dense", "i8": "4.5 POPS dense",
                 "mxf8f6f4": "4.5 PFLOP/s dense", "mxf4": "9 PFLOP/s dense",
                 "mxf4nvf4": "9 PFLOP/s dense"}
    clock = param("clock_ghz", overrides)
    sms = param("sms", overrides)
    for kind, m, n, group in largest:
        cost = MmaCost(kind, m, n, group)
        pipe, _ = mma_cycles(cost, overrides)
        flops = 2.0 * m * n * _DENSE_K[kind]
        rate = flops / pipe * (sms / group) * clock * 1e9    # per GPU, all SMs busy
        single = replay(single_warp([Step("async", asyncs=[(0, 0, "mma", cost)]),
                                     Step("alu")]) if group == 1 else
                        ClusterTrace(1, 2, [[Step("async", asyncs=[(0, 0, "mma", cost)])],
                                            []]), overrides).cycles
        rows.append({"operation": f"tcgen05.mma.cta_group::{group}.kind::{kind} "
                                  f"M={m} N={n} K={_DENSE_K[kind]}",
                     "model": f"{pipe:.0f} cycles in the pipe ({rate / 1e15:.2f} PFLOP/s "
                              f"over {sms:.0f} SMs); {single:.0f} cycles issue to result",
                     "published": published[kind] + (" (2 SMs per MMA)" if group == 2 else ""),
                     "source": "NVIDIA B200 datasheet [1]; 148 SMs, 1.86 GHz [2]"
                               + ("; 2-SM MMA scaling [4]" if group == 2 else "")})
    for shape, num in (("32x32b", 128), ("16x64b", 128), ("16x128b", 64), ("16x256b", 32),
                       ("16x32bx2", 128)):
        nbytes = _LDST_BYTES[shape] * num
        cyc = replay(single_warp([Step("tmem_ld", nbytes=nbytes, dsts=("%r1",)),
                                  Step("wait_ld")]), overrides).cycles
        rows.append({"operation": f"tcgen05.ld.{shape}.x{num} ({nbytes} B per warp)",
                     "model": f"{cyc:.0f} cycles to wait::ld",
                     "published": "none per instruction (TMEM 16 TB/s read [3], unit unclear)",
                     "source": "assumption: 128 B/cycle per lane quarter, 32-cycle latency"})
    tile = 128 * 64 * 2
    landed, released = tma_tile_cycles(tile, overrides)
    rows.append({"operation": "TMA load of a 128x64 bf16 tile (16 KiB): mbarrier.arrive."
                              "expect_tx, cp.async.bulk.tensor, mbarrier.try_wait",
                 "model": f"{landed:.0f} cycles issue to complete_tx; {released:.0f} to "
                          f"the successful wait",
                 "published": "no per-tile figure; 420-cycle miss latency [3], 8 TB/s [1]",
                 "source": "tma_latency (= the miss latency [3]) + 16 KiB through the "
                           "SM's L2 port (l2_sm_bytes_per_cycle, an assumption), the SM "
                           "alone on the GPU"})
    # today's path: smem_fill, 128 threads x 8 ld.global.v4 (16 B) then st.shared.v4
    steps = [[Step("ld_global", nbytes=32 * 16, dsts=(f"%r{i}",)) for i in range(8)] +
             [Step("st_shared", nbytes=32 * 16, srcs=(f"%r{i}",)) for i in range(8)]
             for _ in range(4)]
    fill = replay(ClusterTrace(4, 1, steps), overrides).cycles
    rows.append({"operation": "the same tile by smem_fill (4 warps x 8 ld.global.v4 + "
                              "st.shared.v4, the path emitted today)",
                 "model": f"{fill:.0f} cycles", "published": "420-cycle miss latency [3], "
                 "8 TB/s [1]", "source": "global_latency, L2 port, 8 loads in flight"})
    return rows


def tma_tile_cycles(nbytes: int, overrides: dict | None = None) -> tuple[float, float]:
    """(cycles from issuing a TMA load of ``nbytes`` to its complete_tx on the mbarrier,
    cycles from that issue to the successful wait on the phase), by replaying one warp that
    arrives with expect_tx, issues the load and waits."""
    tag = (0, 0, 1, 0)
    steps = [Step("mbar_arrive", arrivals=[tag]),
             Step("tma", tmas=[(0, 0, nbytes, [tag])]),
             Step("mbar_wait", wait=tag)]
    timing = replay(single_warp(steps), overrides)
    landed = max(ev["end"] for ev in timing.events if ev["cat"] == "memory")
    issued = 1.0    # the load is the warp's second instruction, issued at cycle 1
    return landed - issued, timing.cycles - 1 - issued


def calibration_markdown(overrides: dict | None = None) -> str:
    lines = ["| operation | model | published figure | source |", "|---|---|---|---|"]
    for row in calibration(overrides):
        lines.append(f"| {row['operation']} | {row['model']} | {row['published']} | "
                     f"{row['source']} |")
    return "\n".join(lines)


def parameters_markdown() -> str:
    lines = ["| parameter | value | unit | source |", "|---|---:|---|---|"]
    for name, prm in PARAMETERS.items():
        value = f"{prm.value:.2f}" if isinstance(prm.value, float) and \
            prm.value != int(prm.value) else f"{prm.value:g}"
        lines.append(f"| `{name}` | {value} | {prm.unit} | {prm.source} |")
    return "\n".join(lines)
