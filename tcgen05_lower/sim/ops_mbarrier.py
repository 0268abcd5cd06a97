"""The mbarrier instructions and fences of the simulator's instruction set (``ops``):
mbarrier.init, inval, arrive (with expect_tx, and on a shared::cluster address) and
try_wait.parity (PTX ISA 9.7.13.15), fence.proxy.async and fence.mbarrier_init
(9.7.13.4). Their effects on phases and on ordering are the ordering model's
(sim/ordering.py); these handlers read the operands and call it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ops_support import _check_mbarrier_address, _shared_target, _unknown
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import ALL, MBAR

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine


def _mbarrier(ins: P.Instr):
    parts = ins.parts
    op = parts[1]
    mods = set(parts[2:])
    spaces = {"shared::cta", "shared"}
    if op == "init" and mods <= spaces | {"b64"} and "b64" in mods:
        return _mbarrier_init
    if op == "inval" and mods <= spaces | {"b64"} and "b64" in mods:
        return _mbarrier_inval
    if op == "try_wait" and mods <= spaces | {"b64", "parity", "acquire", "cta", "cluster"}:
        return _mbarrier_try_wait
    if op == "arrive" and mods <= spaces | {"b64", "release", "cta", "cluster", "expect_tx"}:
        return _mbarrier_arrive
    if op == "arrive" and mods <= {"shared::cluster", "b64", "release", "cta", "cluster"} \
            and "shared::cluster" in mods:
        return _mbarrier_arrive_cluster
    raise _unknown(ins)


def _mbarrier_arrive_cluster(m: Machine, ins: P.Instr):
    """``mbarrier.arrive{.release}{.cta, .cluster}.shared::cluster.b64 _, [addr]``: one
    arrival on the mbarrier at a shared::cluster address (``mapa``'s, possibly another
    CTA of the cluster; a shared::cta address names the executing CTA's), releasing the
    thread's prior accesses to whoever observes the phase complete (9.7.13.15.13). Only
    the sink ``_`` may take the state of a shared::cluster arrive."""
    ops_ = ins.operands
    if len(ops_) != 2 or getattr(ops_[0], "name", None) != "_":
        raise SimError("mbarrier.arrive.shared::cluster takes the sink _ as its state "
                       "operand and no count here", ins.line, ins.text)

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, ops_[1], act) * np.ones(threads.size, np.uint64)
            ranks, local = _shared_target(m, "shared::cluster", act, addrs, 8,
                                          "mbarrier.arrive", ins)
            ranks = np.asarray(ranks).reshape(-1) * np.ones(threads.size, np.int64)
            local = np.asarray(local).reshape(-1) * np.ones(threads.size, np.int64)
            done = len(_arrive_together(m, ins, threads, ranks, local, [1] * threads.size,
                                        None, check_address=True))
            for g, r, ad in zip(threads[done:], ranks[done:], local[done:]):
                _check_mbarrier_address(m, int(ad))
                m.ordering.mbarrier_arrive(int(g), int(r), int(ad), 1, ins.line,
                                           scope=_scope(ins))
            m.epoch += 1
        m.advance(idx)
    return run


def _arrive_together(m: Machine, ins: P.Instr, threads: np.ndarray, ranks: np.ndarray,
                     addresses: np.ndarray, counts: list, expect_tx: list | None,
                     check_address: bool = False) -> list:
    """The arrivals of a group of threads on one mbarrier, several at once
    (``mbarrier_arrive_many``), as the arrivals one by one in the threads' order would
    make them: the tokens of the first threads, done; the caller arrives with the rest
    (from ``len`` of the answer on) one by one. The threads of each source CTA (a run:
    they are sorted) arrive together, in order, since one release carries one source
    (the remote arrivals of a CTA pair on the leader's mbarrier come from both CTAs);
    at the first run the ordering model asks to take one by one (it has then done
    nothing), that run and the rest are left to the caller. None done when the threads
    arrive on different mbarriers."""
    many = getattr(m.ordering, "mbarrier_arrive_many", None)
    if many is None or threads.size < 2 or (ranks != ranks[0]).any() or \
            (addresses != addresses[0]).any():
        return []
    address = int(addresses[0])
    if check_address:
        _check_mbarrier_address(m, address)
    sources = m.rank[threads]
    cuts = [0] + (np.flatnonzero(sources[1:] != sources[:-1]) + 1).tolist() + [threads.size]
    tokens: list = []
    for start, stop in zip(cuts, cuts[1:]):
        token = many(threads[start:stop], int(ranks[0]), address, counts[start:stop],
                     ins.line, scope=_scope(ins),
                     expect_tx=None if expect_tx is None else expect_tx[start:stop])
        if token is None:
            break
        tokens.extend([token] * (stop - start))
    return tokens


def _mbar_operand(m, ins, op, act):
    addr = m.address(op, act, ins)
    return np.asarray(addr, np.uint64).reshape(-1) * np.ones(1, np.uint64)


def _mbarrier_init(m: Machine, ins: P.Instr):
    a, count = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, a, act) * np.ones(threads.size, np.uint64)
            counts = m.read(count, act, 32, ins) * np.ones(threads.size, np.uint64)
            for g, ad, c in zip(threads, addrs, counts):
                _check_mbarrier_address(m, int(ad))
                m.ordering.mbarrier_init(int(g), int(m.rank[g]), int(ad), int(c), ins.line)
            m.epoch += 1
        m.advance(idx)
    return run


def _mbarrier_inval(m: Machine, ins: P.Instr):
    """``mbarrier.inval{.shared{::cta}}.b64 [addr]`` (PTX ISA 9.7.13.15.10, mbarrier.inval):
    the mbarrier object at addr is invalidated, after which its memory may serve another
    purpose; any mbarrier operation on it but mbarrier.init is undefined. So the
    invalidating thread must be ordered after its init (as any use), and no arrival
    (a commit's arrive-on, a TMA load's complete_tx) may still be in flight towards it:
    that is reported, naming the in-flight operation. The object is then forgotten: a
    later use without a new mbarrier.init is reported as a use before init."""
    (a,) = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, a, act) * np.ones(threads.size, np.uint64)
            for g, ad in zip(threads, addrs):
                rank, address = int(m.rank[g]), int(ad)
                _check_mbarrier_address(m, address)
                if (rank, address) not in m.ordering.mbarriers:
                    raise SimError(f"mbarrier.inval of the mbarrier at {address:#x}, which "
                                   f"is not initialized (or already invalidated)",
                                   ins.line, ins.text)
                m.ordering._mbar(rank, address, ins.line, int(g))
                _check_nothing_in_flight(m, rank, address, ins)
                del m.ordering.mbarriers[(rank, address)]
            m.epoch += 1
        m.advance(idx)
    return run


def _check_nothing_in_flight(m: Machine, rank: int, address: int, ins: P.Instr) -> None:
    """SimError if a pending commit or TMA load will still arrive on the mbarrier."""
    for entry in m.ordering.pending_commits:
        if hasattr(entry, "mbarrier"):    # a TMA load
            target = entry.rank if entry.mbarrier_rank is None else entry.mbarrier_rank
            hit, line = entry.mbarrier == address and target == rank, entry.line
        else:                             # (thread, seq, mbarrier, targets, line, ...)
            hit, line = entry[2] == address and rank in entry[3], entry[4]
        if hit:
            raise SimError(f"mbarrier.inval of the mbarrier at {address:#x} of CTA {rank} "
                           f"while the arrival of the operation at PTX line {line} is still "
                           f"in flight (PTX ISA 9.7.13.15.10: an operation on an invalidated "
                           f"mbarrier is undefined)", ins.line, ins.text)


def _scope(ins: P.Instr) -> str:
    """The scope of an mbarrier arrive or wait: .cluster if written, else .cta (the
    default of 9.7.13.15.13 and 9.7.13.15.16)."""
    return "cluster" if "cluster" in ins.parts[2:] else "cta"


def _mbarrier_try_wait(m: Machine, ins: P.Instr):
    parity = "parity" in ins.parts
    if not parity:
        raise _unknown(ins, "only the .parity form")
    d, a, ph = ins.operands[:3]
    uniform = _uniform_wait(m, ins, d, a, ph)

    def run(ins, idx):
        if uniform is not None and uniform(idx):
            return
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            many = getattr(m.ordering, "mbarrier_try_wait_parity_many", None)
            if many is not None:   # the same, per group of threads (ordering.py)
                # an address or parity the same for all (an immediate) is given once
                ok = many(threads, m.rank[threads], _mbar_operand(m, ins, a, act),
                          np.asarray(m.read(ph, act, 32, ins)) & np.uint64(1), ins.line,
                          scope=_scope(ins))
            else:
                addrs = _mbar_operand(m, ins, a, act) * np.ones(threads.size, np.uint64)
                phases = m.read(ph, act, 32, ins) * np.ones(threads.size, np.uint64)
                ok = np.array([m.ordering.mbarrier_try_wait_parity(
                    int(g), int(m.rank[g]), int(ad), int(p) & 1, ins.line,
                    scope=_scope(ins)) for g, ad, p in zip(threads, addrs, phases)],
                    dtype=bool)
            m.write(d.name, threads, ok, 1, ins)
            # A failed try_wait waits here until some mbarrier changes, then retries.
            _wait_or_pass(m, act, threads, ok)
            if ins.guard is not None:   # threads the guard turns off move on
                skipped = np.setdiff1d(m.threads_of(idx), threads, assume_unique=True)
                m.pc[skipped] += 1
        else:
            m.advance(idx)
    return run


def _uniform_wait(m: Machine, ins: P.Instr, d, a, ph):
    """The try_wait of an unguarded ``mbarrier.try_wait.parity`` on ``[reg{+offset}]``
    with a register or immediate parity, when the step's threads give the same address
    and parity (a warp's, usually, or the same warp of each CTA of a pair): the
    ordering model's wait by groups, one per run of threads of one CTA
    (``mbarrier_try_wait_parity_runs``, ``_wait_runs``' groups), one answer per group,
    written and acted on through its threads (a slice where they are consecutive).
    ``uniform(idx)`` returns False, nothing done, for anything else (the handler's
    general code then runs: other operands, threads that give different values, an
    mbarrier the model would wait on thread by thread)."""
    if ins.guard is not None or not isinstance(d, P.Reg) or \
            not isinstance(a, P.Addr) or not isinstance(a.base, P.Reg) or \
            not isinstance(ph, (P.Reg, P.Imm)) or \
            getattr(m.ordering, "mbarrier_try_wait_parity_runs", None) is None:
        return None
    wait = m.ordering.mbarrier_try_wait_parity_runs
    scope, offset, base = _scope(ins), a.offset & 0xFFFFFFFFFFFFFFFF, a.base.name
    parity = m.imm_bits(ph, 32) & 1 if isinstance(ph, P.Imm) else None
    regs = m.regs

    def uniform(idx) -> bool:
        at = m.contiguous(idx)
        address = _same_value(regs.get(base), at)
        if address is None:
            return False
        bit = parity if parity is not None else _same_value(regs.get(ph.name), at)
        if bit is None:
            return False
        runs, places = _cta_runs(m, idx, at)
        passed = wait(runs, (address + offset) & 0xFFFFFFFFFFFFFFFF, bit & 1, ins.line,
                      scope=scope)
        if passed is None:
            return False
        for part, ok in zip(places, passed):
            m.write(d.name, part, ok, 1, ins)
            _all_pass_or_wait(m, part, ok)
        return True
    return uniform


def _cta_runs(m: Machine, idx, at) -> tuple[list, list]:
    """``cta_runs_general(m, idx, at)``, kept for the run by the threads (the slice's
    bounds, or the ids' bytes and type): a pure function of them and of the launch's
    threads per CTA, and a run's waits are made by the same few groups of threads (a
    warp, the same warp of each CTA of a pair) again and again. The kept arrays are
    read-only copies (``idx`` may be an array the scheduler reuses); 256 groups at
    most, then a new dict."""
    key = (at.start, at.stop) if type(at) is slice else (idx.dtype.str, idx.tobytes())
    kept = m.__dict__.get("_cta_runs_kept")
    if kept is None or len(kept) >= 256:
        kept = m.__dict__["_cta_runs_kept"] = {}
    found = kept.get(key)
    if found is None:
        runs, places = cta_runs_general(m, idx, at)
        runs = [(_kept_copy(members), rank) for members, rank in runs]
        places = [place if type(place) is slice else _kept_copy(place) for place in places]
        found = kept[key] = (runs, places)
    return found


def _kept_copy(array: np.ndarray) -> np.ndarray:
    copy = np.array(array)
    copy.flags.writeable = False
    return copy


def cta_runs_general(m: Machine, idx, at) -> tuple[list, list]:
    """The threads ``idx`` (ALL or sorted ids; ``at``: ``Machine.contiguous``'s form of
    them) as runs of threads of one CTA, in order: ([(their ids, the CTA's rank)],
    [where they are: a slice where consecutive, else their ids])."""
    per_cta = m.launch.threads
    threads = m.threads_of(idx) if idx is ALL else idx
    if type(at) is slice:
        start, stop = (0, m.nthreads) if at is ALL else (at.start, at.stop)
        cuts = [start, *range((start // per_cta + 1) * per_cta, stop, per_cta), stop]
        if len(cuts) == 2:
            return [(threads, start // per_cta)], [at]
        return ([(threads[lo - start:hi - start], lo // per_cta)
                 for lo, hi in zip(cuts, cuts[1:])],
                [slice(lo, hi) for lo, hi in zip(cuts, cuts[1:])])
    first, last = int(threads[0]) // per_cta, int(threads[-1]) // per_cta
    if first == last:
        return [(threads, first)], [threads]
    ranks = threads // per_cta
    cuts = [0, *(np.flatnonzero(ranks[1:] != ranks[:-1]) + 1).tolist(), threads.size]
    parts = [threads[lo:hi] for lo, hi in zip(cuts, cuts[1:])]
    return [(part, int(part[0]) // per_cta) for part in parts], parts


def _same_value(arr, at) -> int | None:
    """The value every thread of ``at`` (a slice or ids) has in the uint64 register
    array ``arr``, else None (also for a register not yet made, or a predicate)."""
    if arr is None or arr.dtype != np.uint64:
        return None
    values = arr[at]
    if not values.size:
        return None
    # all the same when the bytes are the first value's repeated (one bytes comparison
    # instead of an elementwise one, a reduction and their arrays)
    raw = values.tobytes()
    if raw != raw[:8] * values.size:
        return None
    return int(values[0])


def _all_pass_or_wait(m: Machine, at, passed: bool) -> None:
    """The threads ``at`` (a slice or ids), whose try_wait all passed or all failed,
    move on or wait (status MBAR since this epoch)."""
    if passed:
        m.pc[at] += 1
    else:
        m.status[at] = MBAR
        m.wait_epoch[at] = m.epoch


def _wait_or_pass(m: Machine, act, threads: np.ndarray, ok: np.ndarray) -> None:
    """The threads of ``act`` (``threads``: their ids) whose try_wait failed wait
    (status MBAR since this epoch), the others move on; when all of them did the same,
    through ``act`` as a slice if its threads are consecutive."""
    passed = np.count_nonzero(ok)
    if passed == ok.size or not passed:
        _all_pass_or_wait(m, m.contiguous(act), bool(passed))
        return
    waiting = threads[~ok]
    m.status[waiting] = MBAR
    m.wait_epoch[waiting] = m.epoch
    m.pc[threads[ok]] += 1


def _mbarrier_arrive(m: Machine, ins: P.Instr):
    expect = "expect_tx" in ins.parts
    ops_ = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, ops_[1], act) * np.ones(threads.size, np.uint64)
            extra = m.read(ops_[2], act, 32, ins) * np.ones(threads.size, np.uint64) \
                if len(ops_) > 2 else np.ones(threads.size, np.uint64)
            values = extra.tolist()
            tokens = _arrive_together(m, ins, threads, m.rank[threads], addrs,
                                      [1] * threads.size if expect else values,
                                      values if expect else None)
            done = len(tokens)
            for g, ad, c in zip(threads[done:], addrs[done:], extra[done:]):
                rank = int(m.rank[g])
                if expect:
                    m.ordering.mbarrier_expect_tx(int(g), rank, int(ad), int(c), ins.line)
                    c = 1
                tokens.append(m.ordering.mbarrier_arrive(int(g), rank, int(ad), int(c),
                                                         ins.line, scope=_scope(ins)))
            if isinstance(ops_[0], P.Reg) and ops_[0].name != "_":
                m.write(ops_[0].name, threads, np.array(tokens, np.uint64), 64, ins)
            m.epoch += 1
        m.advance(idx)
    return run


def _fence(ins: P.Instr):
    rest = ins.parts[1:]
    if rest in (["proxy", "async", "shared::cta"], ["proxy", "async"],
                ["proxy", "async", "shared::cluster"]):
        kind = "proxy_async"
    elif rest == ["mbarrier_init", "release", "cluster"]:
        kind = "mbarrier_init"  # orders prior mbarrier.init at cluster scope (9.7.13.4)
    else:
        raise _unknown(ins)

    def make(m, ins):
        def run(ins, idx):
            act = m.guarded(ins, idx)
            if kind is not None and (act is ALL or len(act)):
                m.ordering.fence(m.threads_of(act), kind, ins.line)
            m.advance(idx)
        return run
    return make
