"""vote.sync (PTX ISA, parallel synchronization and communication instructions, vote):
``vote.sync.{any,all}.pred d, a, membermask``, the forms tcgen05.frag_vote lowers to
(.uni, .ballot and a negated {!}a are refused as unknown). Each thread of membermask
contributes its predicate a; d is, in every one of them, whether a is true in some
(any) or all (all) of them. .sync: every thread executes it with
its own lane in membermask and waits for the others of the mask that have not exited,
so the simulator asks for the converged warp (every live thread executes it) and for
every executing thread's lane in the mask; the vote is over the executing threads."""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.state import SimError

_MODES = ("any", "all")


def vote_handler(ins: P.Instr, unknown):
    """The handler factory of one vote.sync instruction (``unknown(ins, why)``: the
    error for a form this module does not run)."""
    parts = ins.parts
    if parts[1:] not in [["sync", mode, "pred"] for mode in _MODES]:
        raise unknown(ins)
    mode = parts[2]

    def make(m, ins):
        if len(ins.operands) != 3:
            raise unknown(ins, "vote.sync takes d, a, membermask")
        d, a, mask = ins.operands   # the parser refuses a negated {!}a

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                lanes = (m.tid[threads] % 32).astype(np.uint64)
                members = (m.read(mask, act, 32, ins) * np.ones(threads.size, np.uint64)
                           ).astype(np.uint64)
                if not np.all((members >> lanes) & np.uint64(1)):
                    raise SimError("vote.sync: a thread is not in its own membermask",
                                   ins.line, ins.text)
                votes = m.read(a, act, 1, ins).astype(bool)
                warps = threads // 32
                result = np.zeros(threads.size, np.uint64)
                for warp in np.unique(warps):
                    mine = warps == warp
                    executing = np.uint64(0)
                    for lane in lanes[mine]:
                        executing |= np.uint64(1) << lane
                    ballot = np.uint64(0)
                    for lane, vote in zip(lanes[mine], votes[mine]):
                        if vote:
                            ballot |= np.uint64(1) << lane
                    result[mine] = _result(mode, ballot, executing)
                m.write(d.name, threads, result, 1, ins)
            m.advance(idx)
        return run
    return make


def _result(mode: str, ballot, executing):
    """any: some executing lane voted for; all: every one did."""
    if mode == "any":
        return np.uint64(ballot != 0)
    return np.uint64(ballot == executing)
