"""The replay: the recorded warps of one CTA or CTA pair through the model's schedulers,
tensor pipe, TMEM ports, memory and synchronization (the package docstring says how)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import copy_cost
from tcgen05_lower.sim.timing.memory import MemoryContext, multicast_copies
from tcgen05_lower.sim.timing.trace import SECTOR_BYTES, ClusterTrace, Step, opcode_of, role_of, step_args
from tcgen05_lower.sim.timing_parameters import mma_cycles, param

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
    """Runs the recorded warps through the model (see the package docstring). ``memory``:
    the launch around the trace (SMs active, which bytes hit in L2); by default the trace's
    CTAs alone on the GPU, each distinct load missing once (MemoryContext.alone).
    ``keep_events``: False leaves the Chrome trace events out (less memory)."""
    if memory is None:
        memory = MemoryContext.alone(trace, overrides)
    return _Replay(trace, overrides, memory, keep_events).run()


class _Replay:
    """The event model of one replay. Each turn the warp that can issue first (``next``)
    issues its next step (``issue``): the step's cycle is booked (``take_slot``,
    ``book_stalls``), then its effects run as small steps, each on the unit it occupies:
    a global access on the SM's L2 port and DRAM share (``request``), shared memory,
    a TMEM port, the tensor pipe (``async_ops``), TMA loads, commits, mbarrier arrivals
    and barriers (``synchronize``). An arrival (``arrive``) completes an mbarrier phase or
    a barrier instance once all of its recorded arrivals are in (``complete``)."""

    def __init__(self, trace: ClusterTrace, overrides, memory: MemoryContext,
                 keep_events: bool):
        self.trace, self.overrides, self.memory = trace, overrides, memory
        p = self.p
        active = max(memory.active_sms, trace.ctas)
        self.port_rate = p("l2_sm_bytes_per_cycle")
        self.l2_share = p("l2_bytes_per_cycle") / active
        self.dram_rate = p("dram_bytes_per_cycle") / active
        wpc = self.wpc = trace.warps_per_cta
        self.warps = [_Warp(i, steps, (i // wpc, i % wpc % int(p("schedulers"))),
                            f"CTA {i // wpc} warp {i % wpc}")
                      for i, steps in enumerate(trace.warps)]
        for w in self.warps:
            w.role = trace.roles.get(w.index % wpc) or role_of(w.steps)
            w.track = f"{w.name} ({w.role})" if w.role else w.name
        self.events: list[dict] = [] if keep_events else _Discard()
        self.expected, self.participants = _expected_arrivals(self.warps)
        self.arrived: dict[tuple, list] = {}   # tag or barrier key -> [count, latest time]
        self.arrivals = 0      # arrive() calls so far: a blocked warp's earliest may change
        self.slots: dict[tuple, set] = {}
        self.tensor_free = [0.0] * trace.ctas
        self.tmem_free: dict[tuple, float] = {}
        self.dram_free = [0.0] * trace.ctas
        self.smem_free = [0.0] * trace.ctas
        self.async_done: dict[int, float] = {}   # thread -> completion of its latest async op
        self.tensor_busy = self.tensor_math = self.tmem_busy = 0.0
        self.dram_bytes = self.dram_busy = 0.0
        self.l2_bytes = self.l2_busy = self.l2_read_bytes = 0.0
        self.end = 0.0
        self.instructions = 0
        self.stall_lines: dict[tuple, float] = {}
        # earliest(w) per warp, kept until w issues or, while it is None (w blocked on an
        # event not yet known), until the next arrival: a time it gives is final, since a
        # phase or barrier instance is complete only once its last arrival is in
        self.known: dict[int, tuple] = {}   # warp index -> (arrivals when computed, earliest)

    def p(self, name: str) -> float:
        return param(name, self.overrides)

    # -- the loop ------------------------------------------------------------------------------
    def run(self) -> ClusterTiming:
        live = [w for w in self.warps if w.steps]
        while live:
            w, t, why = self.next(live)
            self.issue(w, t, why)
            if w.pc >= len(w.steps):
                self.flush_run(w)
                live.remove(w)
        return ClusterTiming(
            cycles=self.end, tensor_busy=self.tensor_busy, tensor_math=self.tensor_math,
            tmem_busy=self.tmem_busy, dram_bytes=self.dram_bytes, dram_busy=self.dram_busy,
            stalls={w.name: {r: c for r, c in w.stalls.items()} for w in self.warps},
            events=self.events, ctas=self.trace.ctas, warp_instructions=self.instructions,
            stall_lines=self.stall_lines, l2_bytes=self.l2_bytes, l2_busy=self.l2_busy,
            l2_read_bytes=self.l2_read_bytes)

    def next(self, live: list) -> tuple:
        """(warp, time, what held it) of the warp that can issue first (the first of
        ``live`` on a tie); RuntimeError when none can."""
        best = None
        for w in live:
            cached = self.known.get(w.index)
            if cached is None or (cached[1] is None and cached[0] != self.arrivals):
                cached = (self.arrivals, self.earliest(w))
                self.known[w.index] = cached
            got = cached[1]
            if got is not None and (best is None or got[0] < best[1]):
                best = (w, got[0], got[1])
        if best is None:
            where = "; ".join(f"{w.name} at line {w.steps[w.pc].line}" for w in live)
            raise RuntimeError(f"timing replay: no warp can proceed ({where})")
        return best

    def earliest(self, w: _Warp) -> tuple[float, str] | None:
        """When w's next step can issue and what held it, or None while blocked on an
        event not yet known."""
        step = w.steps[w.pc]
        t, why = w.next_issue, "issue slot"
        if w.gate is not None:
            released = self.complete(w.gate, self.participants.get(w.gate))
            if released is None:
                return None
            released += self.p("barrier_latency")
            if released > t:
                t, why = released, "barrier"
        if step.wait is not None:
            # phase -1: a wait on the parity of the phase before the first, which succeeds
            # at once (the mbarrier's initial state)
            done = 0.0 if step.wait[3] < 0 else \
                self.complete(step.wait, self.expected.get(step.wait))
            if done is None:
                return None
            done += self.p("mbarrier_wait_latency")
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

    # -- one step --------------------------------------------------------------------------------
    def issue(self, w: _Warp, t: float, why: str) -> None:
        """w issues its next step at t (or the first free cycle of its scheduler after)."""
        t = self.take_slot(w, t, why)
        step = w.steps[w.pc]
        w.gate = None
        self.known.pop(w.index, None)
        self.instructions += 1
        latency, blocking = _execute(step, self.p)
        w.next_issue = t + 1
        k = step.kind
        if k == "ld_global" or k == "st_global":
            latency = self.global_access(w, step, t)
        elif k in ("ld_shared", "st_shared"):
            latency = self.shared_access(step, t)
        elif k in ("tmem_ld", "tmem_st"):
            latency = self.tmem_access(w, step, t, latency)
        self.async_ops(step, t)
        self.tma_loads(step, t)
        self.commits(step, t)
        self.synchronize(w, step, t)
        if blocking:
            w.next_issue = t + latency
        for d in step.dsts:
            w.ready[d] = (t + latency, k)
        self.trace_step(w, step, t)
        w.pc += 1
        w.done_at = w.next_issue
        self.end = max(self.end, w.next_issue)

    def take_slot(self, w: _Warp, t: float, why: str) -> float:
        """The cycle w issues in: the first at or after t its scheduler's slot is free;
        the cycles w waited are booked as its stalls."""
        slot = self.slots.setdefault(w.scheduler, set())
        t = float(np.ceil(t))
        start = t
        while t in slot:
            t += 1
        slot.add(t)
        self.book_stalls(w, t, start, why)
        return t

    def book_stalls(self, w: _Warp, t: float, start: float, why: str) -> None:
        """The cycles until the warp could issue (start) are its reason's (a wait, a
        dependency); only the cycles after that, while other warps of its scheduler held
        the slot, are the issue slot's."""
        held = max(start - w.next_issue, 0.0) if why != "issue slot" else 0.0
        for reason, cycles in ((why, held), ("issue slot", t - w.next_issue - held)):
            if cycles <= 0:
                continue
            w.stalls[reason] += cycles
            key = (w.steps[w.pc].line, reason)
            self.stall_lines[key] = self.stall_lines.get(key, 0.0) + cycles
        if held > 0:
            self.flush_run(w)
            self.events.append({"track": w.track, "name": why, "start": w.next_issue,
                                "end": start, "cat": "stall"})

    # -- the units a step occupies ---------------------------------------------------------------
    def request(self, rank: int, ready: float, nbytes: float, miss: float,
                miss_latency: float, name: str, l2_read: float = 1.0) -> tuple[float, float]:
        """A global access of ``nbytes`` through the SM's L2 port, ``miss`` of them from
        DRAM: (first byte, last byte). Its first bytes come l2_latency after ``ready`` (a
        miss: miss_latency), its bytes stream at the slowest of the SM's L2 port, its
        share of the L2's total bandwidth for the ``l2_read`` fraction of the bytes the L2
        reads for it (a copy of a multicast to r CTAs: 1 / r, the L2 reads the tile once
        for all of them) and, for the missing bytes, its DRAM share, behind the port's
        earlier requests."""
        l2_time = max(nbytes / self.port_rate, nbytes * l2_read / self.l2_share)
        dram_time = nbytes * miss / self.dram_rate
        dur = max(l2_time, dram_time)
        self.l2_read_bytes += nbytes * l2_read
        latency = self.p("l2_latency") + miss * (miss_latency - self.p("l2_latency"))
        begin = max(ready + latency, self.dram_free[rank])
        self.dram_free[rank] = begin + dur
        self.dram_bytes += nbytes * miss
        self.dram_busy += dram_time
        self.l2_bytes += nbytes
        self.l2_busy += l2_time
        if dur:
            self.events.append({"track": f"CTA {rank} memory (L2 port)", "name": name,
                                "start": begin, "end": begin + dur, "cat": "memory",
                                "args": {"bytes": nbytes, "from DRAM": round(nbytes * miss)}})
        return begin, begin + dur

    def global_access(self, w: _Warp, step: Step, t: float) -> float:
        """ld.global / st.global: the latency of its result. The SM's share of DRAM serves
        requests one after another: a load's data comes back global_latency after its
        (hoisted) issue, at the earliest, and after the data of the requests before it;
        a store only occupies the share."""
        p = self.p
        if step.kind == "ld_global":
            w.global_loads.append(t)
            ahead = int(p("global_loads_in_flight"))
            hoisted = w.global_loads[max(len(w.global_loads) - 1 - ahead, 0)]
            _, last = self.request(step.rank, hoisted, step.nbytes,
                                   self.memory.miss_of_lines(step.lines),
                                   p("global_latency"), "ld.global")
            return max(last - t, 1.0)
        # a store is written back to DRAM (its bytes miss); the kernel has not finished
        # before its stores have reached memory. Through the SM's L2 port it moves whole
        # 32-byte sectors (a warp's 4-byte stores to 32 rows: 32 sectors for 128 bytes),
        # to DRAM only its bytes (the L2 merges the writes to a sector before it writes
        # the sector back)
        moved = len(step.lines) * SECTOR_BYTES if step.lines else step.nbytes
        _, last = self.request(step.rank, t - p("l2_latency"), moved,
                               step.nbytes / moved if moved else 1.0,
                               p("l2_latency"), "st.global")
        self.end = max(self.end, last)
        return 0

    def shared_access(self, step: Step, t: float) -> float:
        """ld.shared / st.shared through the SM's shared-memory pipe: the load's latency."""
        rank = step.rank
        begin = max(t, self.smem_free[rank])
        dur = step.nbytes / self.p("smem_bytes_per_cycle")
        self.smem_free[rank] = begin + dur
        return (begin + dur - t) + self.p("shared_latency") if step.kind == "ld_shared" \
            else 0

    def tmem_access(self, w: _Warp, step: Step, t: float, latency: float) -> float:
        """tcgen05.ld / st through the TMEM port of the warp's lane quarter: the load's
        latency (a store keeps ``latency``); wait::ld / wait::st wait for them."""
        k = step.kind
        port = (step.rank, w.index % self.wpc % 4)
        begin = max(t, self.tmem_free.get(port, 0.0))
        dur = step.nbytes / self.p("tmem_bytes_per_cycle")
        self.tmem_free[port] = begin + dur
        self.tmem_busy += dur
        done = begin + dur + self.p("tmem_ld_latency" if k == "tmem_ld" else "tmem_st_latency")
        if k == "tmem_ld":
            w.ld_done = max(w.ld_done, done)
            latency = done - t
        else:
            w.st_done = max(w.st_done, done)
        if dur:
            self.events.append({"track": f"CTA {step.rank} TMEM port {port[1]}",
                                "name": f"{w.name}: {opcode_of(step)}",
                                "start": begin, "end": begin + dur, "cat": "tmem"})
        self.end = max(self.end, done)
        return latency

    def async_ops(self, step: Step, t: float) -> None:
        """The MMAs, copies and shifts the step issued, one after another on the tensor
        pipe (both SMs' for a cta_group::2 MMA)."""
        p = self.p
        for thread, arank, akind, cost in step.asyncs:
            ranks = [arank, arank + 1] if cost is not None and cost.cta_group == 2 \
                and arank + 1 < self.trace.ctas else [arank]
            begin = max([t + p("mma_issue_latency")] + [self.tensor_free[r] for r in ranks])
            if akind == "mma" and cost is not None:
                dur, math = mma_cycles(cost, self.overrides)
                label = (f"mma.{cost.kind} M{cost.m} N{cost.n}"
                         f"{' cta_group::2' if cost.cta_group == 2 else ''}")
            else:   # cp / shift: a shared-memory read (cp, sim/copy_cost.py) or a shift
                dur, math = (copy_cost.cycles(cost, self.overrides) if cost is not None else
                             4096 / p("smem_bytes_per_cycle"), 0.0) if akind == "cp" \
                    else (16.0, 0.0)
                label = akind
            for r in ranks:
                self.tensor_free[r] = begin + dur
                self.tensor_busy += dur
                self.tensor_math += math
                self.events.append({"track": f"CTA {r} tensor pipe", "name": label,
                                    "start": begin, "end": begin + dur, "cat": "tensor"})
            done = begin + dur + p("mma_latency")
            self.async_done[thread] = max(self.async_done.get(thread, 0.0), done)
            self.end = max(self.end, done)

    def tma_loads(self, step: Step, t: float) -> None:
        """cp.async.bulk.tensor: asynchronous; its bytes through the SM's L2 port
        (request), complete_tx of them on the mbarrier when the last byte has landed; a
        multicast's copies share one read of the L2."""
        copies = multicast_copies(step.tmas)
        for thread, trank, nbytes, tags, *key in step.tmas:
            source = key[0] if key else None
            _, last = self.request(trank, t, nbytes, self.memory.miss_of(source),
                                   self.p("tma_latency"), f"TMA {nbytes} B",
                                   1.0 / copies.get((thread, source), 1))
            for tag in tags:
                self.arrive(tag, last)
            self.end = max(self.end, last)

    def commits(self, step: Step, t: float) -> None:
        """tcgen05.commit: arrives when every asynchronous op its thread issued before it
        has completed."""
        for thread, tags in step.commits:
            at = max(t, self.async_done.get(thread, 0.0)) + self.p("commit_latency")
            for tag in tags:
                self.arrive(tag, at)
            self.end = max(self.end, at)

    def synchronize(self, w: _Warp, step: Step, t: float) -> None:
        """mbarrier arrivals; barrier.sync and barrier.cluster arrive at their instance
        and (but a cluster arrive) gate the warp until it is complete."""
        for tag in step.arrivals:
            self.arrive(tag, t + self.p("mbarrier_arrive_latency"))
        k = step.kind
        if k == "barrier" and step.barrier >= 0:
            key = ("bar", step.rank, step.barrier)
            self.arrive(key, t)
            w.gate = key
        elif k == "cluster_arrive" and step.barrier >= 0:
            self.arrive(("cbar", step.barrier), t)
        elif k == "cluster_wait" and step.barrier >= 0:
            w.gate = ("cbar", step.barrier)

    # -- events and the Chrome trace ----------------------------------------------------------
    def arrive(self, key, t: float) -> None:
        self.arrivals += 1
        entry = self.arrived.setdefault(key, [0, 0.0])
        entry[0] += 1
        entry[1] = max(entry[1], t)

    def complete(self, key, need) -> float | None:
        """When the phase or barrier instance ``key`` completed (its last arrival), or None
        before ``need`` arrivals."""
        entry = self.arrived.get(key)
        if need is None or entry is None or entry[0] < need:
            return None
        return entry[1]

    def flush_run(self, w: _Warp) -> None:
        if w.run_count:
            self.events.append({"track": w.track, "name": f"{w.run_count} instructions",
                                "start": w.run_start, "end": w.run_end, "cat": "issue"})
        w.run_start, w.run_count = None, 0

    def trace_step(self, w: _Warp, step: Step, t: float) -> None:
        """The step in the warp's run of plain instructions, or (a synchronization or
        asynchronous step) an event of its own."""
        if w.run_start is None:
            w.run_start = t
        w.run_end = t + 1
        w.run_count += 1
        if step.kind in ("tmem_ld", "mbar_wait", "barrier", "commit", "async", "wait_ld",
                         "wait_st", "tma"):
            self.flush_run(w)
            self.events.append({"track": w.track, "name": opcode_of(step), "start": t,
                                "end": t + 1, "cat": "sync", "args": step_args(step, w.role)})


def _expected_arrivals(warps: list) -> tuple[dict, dict]:
    """({mbarrier phase: arrivals it gets}, {barrier instance: warps taking part})."""
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
    return expected, participants


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
