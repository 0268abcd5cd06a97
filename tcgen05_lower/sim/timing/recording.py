"""Recording: the executor and the ordering model, unchanged, watched by subclasses that
write down every warp instruction and the synchronization behind it (Recorder)."""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim import copy_cost
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.executor import BAR, Machine
from tcgen05_lower.sim.ordering import OrderingModel
from tcgen05_lower.sim.timing.trace import SECTOR_BYTES, ClusterTrace, Step, classify
from tcgen05_lower.sim.timing_parameters import MmaCost

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
                cost = copy_cost.record(op) if op.kind == copy_cost.KIND else \
                    self.recorder.mma_info.pop(thread, None)
                step.asyncs.append((thread, rank, op.kind, cost))

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
