"""The control-flow and warp- and CTA-level synchronization instructions of the
simulator's instruction set (``ops``): bra, brx.idx, ret / exit (PTX ISA 9.7.12),
barrier / bar.sync, barrier.cluster, bar.warp.sync (9.7.13.1, 9.7.13.2), and the warp
collectives shfl.sync, elect.sync and setmaxnreg.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ops_support import _unknown
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import ALL, BAR, CBAR, EXIT

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine


# -- control flow --------------------------------------------------------------------------
def _bra(ins: P.Instr):
    if ins.parts[1:] not in ([], ["uni"]):
        raise _unknown(ins)

    def make(m, ins):
        (target,) = ins.operands
        name = target.name
        if name not in m.entry.labels:
            raise SimError(f"unknown label {name}", ins.line, ins.text)
        dest = m.entry.labels[name]

        def run(ins, idx):
            taken = m.guarded(ins, idx)
            if ins.guard is None:
                m.pc[idx] = dest
                return
            threads = m.threads_of(idx)
            go = np.zeros(m.nthreads, bool)
            go[taken] = True
            sel = go[threads]
            m.pc[threads[sel]] = dest
            m.pc[threads[~sel]] += 1
        return run
    return make


def _brx(ins: P.Instr):
    """``brx.idx{.uni} index, tlist`` (PTX ISA 9.7.12.4, brx.idx): each thread
    jumps to the index-th label of the ``.branchtargets`` list tlist; an index past the
    list is undefined behaviour, reported."""
    if ins.parts[1:] not in (["idx"], ["idx", "uni"]):
        raise _unknown(ins)

    def make(m, ins):
        if len(ins.operands) != 2 or not isinstance(ins.operands[1], P.Sym):
            raise _unknown(ins, "brx.idx takes an index and a .branchtargets label")
        index, tlist = ins.operands
        targets = m.entry.branch_targets.get(tlist.name)
        if targets is None:
            raise SimError(f"{tlist.name} names no .branchtargets list", ins.line, ins.text)
        missing = [t for t in targets if t not in m.entry.labels]
        if missing:
            raise SimError(f"unknown label {missing[0]} in {tlist.name}", ins.line, ins.text)
        dests = np.array([m.entry.labels[t] for t in targets], np.int64)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            threads = m.threads_of(idx)
            go = np.zeros(m.nthreads, bool)
            go[act] = True
            taken = threads[go[threads]]
            if taken.size:
                k = np.asarray(m.read(index, taken, 32, ins), np.uint64) \
                    * np.ones(taken.size, np.uint64)
                if np.any(k >= np.uint64(len(dests))):
                    raise SimError(f"brx.idx index {int(k.max())} is past the {len(dests)} "
                                   f"targets of {tlist.name}", ins.line, ins.text)
                m.pc[taken] = dests[k.astype(np.int64)]
            m.pc[threads[~go[threads]]] += 1
        return run
    return make


def _ret(ins: P.Instr):
    if len(ins.parts) != 1:
        raise _unknown(ins)

    def make(m, ins):
        def run(ins, idx):
            act = m.guarded(ins, idx)
            threads = m.threads_of(idx)
            go = np.zeros(m.nthreads, bool)
            go[act] = True
            m.pc[threads[~go[threads]]] += 1
            m.exit_threads(threads[go[threads]], ins.line)
        return run
    return make


# -- thread synchronization ------------------------------------------------------------------
def _barrier(ins: P.Instr):
    parts = ins.parts
    if parts[0] == "bar" and parts[1:] in (["sync"], ["cta", "sync"]) or \
            parts[1:] in (["sync"], ["sync", "aligned"], ["cta", "sync"],
                          ["cta", "sync", "aligned"]):
        # bar{.cta}.sync a{, b} is barrier{.cta}.sync.aligned a{, b} (9.7.13.1): barrier a
        # (0-15) of the CTA, b threads taking part (a multiple of the warp size), every
        # thread of the CTA without b.
        def make(m, ins):
            if not 1 <= len(ins.operands) <= 2:
                raise _unknown(ins, "barrier.sync a{, b}")

            def run(ins, idx):
                if "aligned" in ins.parts or ins.parts[0] == "bar":
                    m.check_warp_converged(ins, idx)
                act = m.guarded(ins, idx)
                threads = m.threads_of(idx)
                skip = np.ones(m.nthreads, bool)
                skip[act] = False
                m.pc[threads[skip[threads]]] += 1
                arriving = m.threads_of(act)
                if arriving.size:
                    barrier = _uniform(m, ins, ins.operands[0], act, "barrier number a")
                    if not 0 <= barrier <= 15:
                        raise SimError(f"barrier number {barrier} is not in 0..15 (9.7.13.1)")
                    count = 0
                    if len(ins.operands) == 2:
                        count = _uniform(m, ins, ins.operands[1], act, "thread count b")
                        if count <= 0 or count % 32:
                            raise SimError(f"barrier.sync {barrier}, {count}: the thread "
                                           f"count must be a positive multiple of the warp "
                                           f"size (9.7.13.1)")
                    m.bar_id[arriving] = barrier
                    m.bar_expected[arriving] = count
                m.status[act] = BAR
                m.release_barriers(ins.line)
            return run
        return make
    if parts[:3] == ["bar", "warp", "sync"] and len(parts) == 3:
        return _bar_warp_sync
    if parts[1] == "cluster" and parts[2] in ("arrive", "wait") and \
            set(parts[3:]) <= {"aligned", "release", "acquire", "relaxed"}:
        arrive = parts[2] == "arrive"

        def make(m, ins):
            def run(ins, idx):
                if "aligned" in ins.parts:
                    m.check_warp_converged(ins, idx)
                act = m.guarded(ins, idx)
                if arrive:
                    live = m.status != EXIT
                    before = m.cluster_arrivals[live].min()
                    m.cluster_arrivals[act] += 1
                    m.advance(idx)
                    if m.cluster_arrivals[live].min() > before:
                        m.ordering.barrier(np.flatnonzero(live), ins.line)
                        m.epoch += 1
                    m.release_cluster_wait()
                    return
                m.advance(idx)
                live = m.status != EXIT
                done = m.cluster_arrivals[live].min()
                mine = m.threads_of(act)
                blocked = mine[m.cluster_arrivals[mine] > done]
                m.pc[blocked] -= 1
                m.status[blocked] = CBAR
            return run
        return make
    raise _unknown(ins)


def _bar_warp_sync(m: Machine, ins: P.Instr):
    """``bar.warp.sync membermask`` (PTX ISA 9.7.13.2): the threads of membermask in the
    warp wait for each other, and the barrier orders their memory accesses. The simulator
    steps a warp's live threads together, so it asks for the converged warp, every
    executing lane in the mask; the ordering is a barrier among those threads."""
    if len(ins.operands) != 1:
        raise _unknown(ins, "bar.warp.sync takes one membermask")

    def run(ins, idx):
        m.check_warp_converged(ins, idx)
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            mask = (m.read(ins.operands[0], act, 32, ins) * np.ones(threads.size, np.uint64)
                    ).astype(np.uint64)
            lanes = (m.tid[threads] % 32).astype(np.uint64)
            if not np.all((mask >> lanes) & np.uint64(1)):
                raise SimError("bar.warp.sync: a thread is not in its own membermask",
                               ins.line, ins.text)
            for warp in m.warps(threads):
                m.ordering.barrier(warp, ins.line)
        m.advance(idx)
    return run


def _uniform(m, ins: P.Instr, operand, act, what: str) -> int:
    """The value of an immediate or register operand that must be the same in every
    thread of `act`."""
    if isinstance(operand, P.Imm):
        return int(operand.value)
    values = np.unique(np.asarray(m.read(operand, act, 32, ins)).reshape(-1))
    if values.size != 1:
        raise SimError(f"the {what} of {ins.opcode} differs between its threads "
                       f"({', '.join(str(int(v)) for v in values[:4])})")
    return int(values[0])


def _shfl(ins: P.Instr):
    if ins.parts[1:3] != ["sync", "bfly"] and ins.parts[1:3] not in (
            ["sync", "up"], ["sync", "down"], ["sync", "idx"]) or ins.parts[-1] != "b32" \
            or len(ins.parts) != 4:
        raise _unknown(ins)
    mode = ins.parts[2]

    def make(m, ins):
        ops_ = ins.operands
        if len(ops_) != 5:
            raise _unknown(ins, "shfl with a predicate destination")
        d, a, b, c, mask = ops_
        dname = d.name.split("|")[0]

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                membermask = m.read(mask, act, 32, ins) * np.ones(threads.size, np.uint64)
                lanes = m.tid[threads] % 32
                present = np.zeros(m.nthreads, bool)
                present[threads] = True
                need = (membermask >> lanes.astype(np.uint64)) & np.uint64(1)
                if not np.all(need):
                    raise SimError("shfl.sync: a thread is not in its own membermask")
                src_lane = _shfl_source(mode, lanes, m.read(b, act, 32, ins),
                                        m.read(c, act, 32, ins))
                src = threads - lanes + src_lane
                if not np.all(present[src]):
                    raise SimError("shfl.sync reads a lane that does not execute it")
                values = m.read(a, ALL, 32, ins)[src]
                m.write(dname, threads, values, 32, ins)
            m.advance(idx)
        return run
    return make


def _elect(ins: P.Instr):
    """elect.sync d|p, membermask (PTX ISA, parallel synchronization instructions): one
    thread of membermask is elected, d gets its laneid, p is true on it alone. The ISA
    elects "deterministically, i.e. the same leader thread is elected for the same
    membermask every time" without saying which: here the lowest lane of the mask. Every
    live thread of the warp must execute it together (.sync waits for all of membermask;
    the simulator asks for the converged warp) and be in the mask."""
    if ins.parts[1:] != ["sync"]:
        raise _unknown(ins)

    def make(m, ins):
        if len(ins.operands) != 2 or not isinstance(ins.operands[0], P.DestPair):
            raise _unknown(ins, "elect.sync takes d|p, membermask")
        pair, mask = ins.operands
        full = _full_mask(m, ins, mask)
        lane0 = []   # per thread: whether its lane is 0 (made at the first use)

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            at = m.contiguous(idx) if full else None
            if at is not None and (type(at) is slice or len(at)):   # (a slice: not empty)
                if not lane0:
                    lane0.append(m.tid % 32 == 0)
                m.write(pair.second.name, at, lane0[0][at], 1, ins)
                if pair.first is not None:
                    m.write(pair.first.name, at, np.uint64(0), 32, ins)
                m.advance(idx)
                return
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                membermask = (m.read(mask, act, 32, ins) * np.ones(threads.size, np.uint64)
                              ).astype(np.uint64)
                lanes = (m.tid[threads] % 32).astype(np.uint64)
                if not np.all((membermask >> lanes) & np.uint64(1)):
                    raise SimError("elect.sync: a thread is not in its own membermask",
                                   ins.line, ins.text)
                # The lowest lane of the mask; the warp is converged, so it executes.
                low = np.zeros(threads.size, np.uint64)
                remaining = membermask.copy()
                while np.any((remaining & np.uint64(1)) == 0):
                    step = (remaining & np.uint64(1)) == 0
                    low[step] += np.uint64(1)
                    remaining[step] >>= np.uint64(1)
                m.write(pair.second.name, threads, lanes == low, 1, ins)
                if pair.first is not None:
                    m.write(pair.first.name, threads, low, 32, ins)
            m.advance(idx)
        return run
    return make


def _full_mask(m, ins: P.Instr, mask) -> bool:
    """Whether an elect.sync elects lane 0 of each warp whatever its threads: no guard
    and every lane in the mask (an immediate with its low 32 bits set), so each thread
    is in it and lane 0 is the lowest lane (the warp is converged: it executes)."""
    return ins.guard is None and isinstance(mask, P.Imm) and \
        m.imm_bits(mask, 32) & 0xFFFFFFFF == 0xFFFFFFFF


def _setmaxnreg(ins: P.Instr):
    """setmaxnreg.{inc,dec}.sync.aligned.u32 n (PTX ISA, setmaxnreg): the warp's register
    budget, which the simulator (registers unbounded) does not model; it checks the
    operand (a multiple of 8 in 24..256) and that the warp executes it converged
    (.sync.aligned). That all warps of a warpgroup execute the same instruction is the
    lowering's to keep (lowering.partitions places it so)."""
    if ins.parts[1:] not in (["inc", "sync", "aligned", "u32"],
                             ["dec", "sync", "aligned", "u32"]):
        raise _unknown(ins)

    def make(m, ins):
        if len(ins.operands) != 1 or not isinstance(ins.operands[0], P.Imm):
            raise _unknown(ins, "setmaxnreg takes one immediate register count")
        count = ins.operands[0].value
        if not (24 <= count <= 256 and count % 8 == 0):
            raise SimError(f"setmaxnreg: {count} is not a multiple of 8 in 24..256",
                           ins.line, ins.text)

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            m.advance(idx)
        return run
    return make


def _shfl_source(mode, lane, b, c):
    """The source lane of shfl.sync (9.7.10.x pseudocode)."""
    lane = lane.astype(np.int64)
    b = np.asarray(b, np.int64) & 0x1F
    c = np.asarray(c, np.int64)
    cval, segmask = c & 0x1F, (c >> 8) & 0x1F
    max_lane = (lane & segmask) | (cval & ~segmask)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - b
        ok = j >= max_lane
    elif mode == "down":
        j = lane + b
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ b
        ok = j <= max_lane
    else:
        j = min_lane | (b & ~segmask)
        ok = j <= max_lane
    return np.where(ok, j, lane)
