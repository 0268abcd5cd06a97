"""The replay: the recorded warps of one CTA or CTA pair through the model's schedulers,
tensor pipe, TMEM ports, memory and synchronization (the package docstring says how)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

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
