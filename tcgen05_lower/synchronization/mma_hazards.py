"""(strategy=handoffs) What TMEM aliases change for the handoffs: the buffer an alias's
cells belong to, and the MMA role's own order between MMAs of different accumulators on
the same cells.

An alias buffer (``alias = "X"``, planning/aliases.py) has no cells of its own: it names
cells of X. The handoffs trace it to X (role_turns.alias_roots and cells_root, which
role_turns.py and thread_order.py look an operand's root up in), so P_t written over S_t is a handoff
of S_t, and a thread's store of P_t after its load of S_t waits for that load
(tcgen05.wait::ld, 9.7.16.6.4.2; the alias's columns count as unknown ones of X).

Two tcgen05.mma of one thread are a pipelined pair, ordered without a wait, only with
"the same N and accumulator and shape" (9.7.16.6.2). Within one turn of the MMA role
the handoffs order nothing (they wait before the turn's first access and signal after
its last), so a later MMA of the turn that writes cells (of a root) which an earlier MMA
of the turn with another accumulator reads (as A, a scale factor, metadata) or writes
is unordered after it: FlashAttention-4's S_t of block j + 1 written over the P_t that
P_t V_j reads. :func:`plan_mma_hazards` writes, for each such later MMA, a
tcgen05.commit to an mbarrier of its own (count 1) right after the last such earlier
MMA (the commit's arrival follows the completion of every prior tcgen05 op of the
thread, 9.7.16.12.1) and, right before the later MMA, the issuing thread's wait on it
and tcgen05.fence::after_thread_sync (9.7.16.6.4.4: the MMA ordered after the wait).
The mbarrier completes once per execution of the site, so the wait's parity is j & 1 in
the role's loop (iteration j, the loop counts from 0 by 1, role_turns.py) and 0 before
or after it. An MMA of an earlier turn is ordered by the handoffs between the turns (the
turn's commit, the other role's wait and arrival, the wait and fence before the next
turn; role_handoffs keeps that fence on a buffer an alias names). Refused with a located
diagnostic: the two MMAs inside one op nested in the site (an scf.if or scf.for), where
no wait can stand between them at the site's level. Cost: one pass over each MMA site's
ops.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import CommitOp, FenceOp, MbarrierWaitOp, MmaOp
from tcgen05_lower.kernel_ir import root_buffers
from tcgen05_lower.op_tables import OpDict
from tcgen05_lower.synchronization.common import SyncError
from tcgen05_lower.synchronization.role_turns import WHO, buffer_name, cells_root


@dataclass
class _Mma:
    """An MMA of a site: the op of the site's block holding it, its accumulator buffer
    (the alias itself, not its parent: the pipelined-pair rule names the accumulator)
    and the cell roots it reads and writes."""

    anchor: object
    accumulator: object
    reads: list
    writes: object


def plan_mma_hazards(pairs, aliased, writer) -> None:
    """Writes the commit, wait and fence of the module docstring for each hazard in the
    MMA role's sites of `pairs`; `writer` is role_handoffs' (alloc, emit, parity)."""
    for pair in pairs:
        for site in pair.mma.sites:
            _site(pair, site, aliased, writer)


def _site(pair, site, aliased, writer) -> None:
    earlier: list = []
    span = _span(site)
    position = OpDict((op, i) for i, op in enumerate(span))
    for anchor in span:
        for op in [anchor, *d.walk_ops(anchor)]:
            if not MmaOp.matches(op):
                continue
            mma = _mma(op.operation, anchor, aliased)
            if mma is None or mma.writes not in pair.buffers:
                continue
            clash = [e for e in earlier if e.accumulator != mma.accumulator and
                     (mma.writes in e.reads or mma.writes == e.writes)]
            if clash:
                last = clash[-1]
                if last.anchor == anchor:
                    raise SyncError(op.operation, f"{WHO}: this MMA writes cells of "
                                    f"{buffer_name(mma.writes)} that an earlier MMA with "
                                    f"another accumulator reads or writes inside the same "
                                    f"nested op; the wait between them (9.7.16.6.2: no "
                                    f"pipelined pair) is planned only between ops of the "
                                    f"turn's block")
                _order(pair, site, last.anchor, anchor, mma, writer)
                # What the wait orders: the MMAs up to the commit after `last`.
                earlier = [e for e in earlier if position[e.anchor] > position[last.anchor]]
            earlier.append(mma)


def _span(site) -> list:
    """The ops of the site's block from its first anchor to its last."""
    found, inside = [], False
    for op in site.block.operations:
        op = op.operation
        inside = inside or op == site.first
        if inside:
            found.append(op)
        if op == site.last:
            break
    return found


def _mma(op, anchor, aliased):
    mma = MmaOp(op)
    accumulator = _root(mma.d)
    if accumulator is None:
        return None   # role_turns refused it already if the pair shares it
    reads = [cells_root(_root(v), aliased)
             for v in (mma.a, mma.scale_a, mma.scale_b, mma.metadata)
             if v is not None and d.is_tmem(v)]
    return _Mma(anchor, accumulator, reads, cells_root(accumulator, aliased))


def _root(value):
    roots = root_buffers(value)
    return roots[0] if roots and len(roots) == 1 else None


def _order(pair, site, earlier, later, mma, writer) -> None:
    """Commit after `earlier`, wait + fence before `later` (module docstring)."""
    role = pair.mma.role.name
    name = buffer_name(mma.writes)
    barrier = writer.alloc(1, f"{role} -> {role} ({name}): tcgen05.commit after the MMAs "
                              f"that read {name}'s cells; the MMA that writes them waits "
                              f"(9.7.16.6.2: other accumulators, no pipelined pair)")
    with ir.InsertionPoint.after(earlier), earlier.location:
        writer.emit(CommitOp, barrier=barrier,
                    reason=f"the MMAs of {role!r} reading {name}'s cells complete before "
                           f"its MMA with another accumulator writes them (9.7.16.12.1)")
    with ir.InsertionPoint(later), later.location:
        if site.where == "loop":
            parity = writer.parity(pair.mma.loop.regions[0].blocks[0].arguments[0], 0)
            when = "iteration j waits for parity j & 1"
        else:
            parity, when = writer.parity(None, 0), "phase 0"
        writer.emit(MbarrierWaitOp, barrier=barrier, phase=parity,
                    reason=f"{role!r} writes {name}'s cells after its MMAs with another "
                           f"accumulator that read them have completed ({when}; two MMAs "
                           f"of different accumulators are no pipelined pair, 9.7.16.6.2)")
        writer.emit(FenceOp, kind="after_thread_sync",
                    reason=f"{role!r}'s MMA on {name} ordered after the mbarrier wait "
                           f"(9.7.16.6.4.4)")
