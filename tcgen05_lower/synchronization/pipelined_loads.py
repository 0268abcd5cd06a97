"""tcgen05-insert-sync{strategy=loads}: the TMA loads of a kernel with warp roles that
writes the rest of its synchronization by hand, read by a software-pipelined MMA role
(examples/ws_attention_fwd_bf16.mlir: K and V through a ring whose stage j the MMA role
reads in two places, the scores of block j one iteration before the products of block j).

rings.py plans a ring whose every use is one execution of one block of MMAs; here the
MMAs reading use u of a ring sit in several blocks: before the MMA role's loop (its
prologue), in its body at iteration u - b, after it (its epilogue). The kernel's shape:

- one role issues the TMA loads that name no mbarrier: *once* loads in its body (tiles
  that are not ring stages, loaded once: Q), and *ring* loads in the body of one scf.for
  of its body, from 0 by 1 to a bound N, each into ``smem_stage(%ring, remui(i, S))``
  of a ring of S stages (every ring S deep), so iteration i fills use i;
- one other role issues every MMA that reads those tiles: in its body, before or after
  one scf.for from 0 by 1 to a bound U = N + d (d a constant: the SSA bound is N plus or
  minus constants), or in that loop's body; a ring stage it reads is
  ``smem_stage(%ring, remui(X, S))`` with X the use: a constant before the loop, i + b
  in the loop (i its counter), U + c after it;
- no other op touches the loaded tiles.

What it writes (PTX ISA 9.7.16.6.4 canonical patterns, 9.7.13.15 mbarriers):

==================================  =====================================================
once loads -> the MMAs reading them  once_full (count 1): the load thread's
                                     mbarrier_expect_tx of their bytes before the first,
                                     the loads complete_tx on it; the MMA role waits for
                                     phase 0 before the op of its body holding the first
                                     MMA reading one of them
ring loads of use i -> MMAs          full (count 1, S stages): expect_tx of the body's
                                     bytes on full_(i mod S) before the first ring load,
                                     the loads complete_tx on it; the MMA role waits for
                                     parity (u / S) & 1 before the first MMA reading use
                                     u (no proxy fence: TMA and MMA both use the async
                                     proxy, 9.7.16.6.5)
MMAs reading use u -> the refill     empty (count 1, S stages): tcgen05.commit after the
of its stage                         last MMA reading use u (its reads are complete when
                                     the commit arrives, 9.7.16.12.1); the load thread
                                     waits for parity (i / S + 1) & 1 before the body's
                                     expect_tx (iteration i < S: the phase before the
                                     first, which a fresh mbarrier reports complete)
the last commit to each stage ->     the producer tail: after its loop the load role
the CTA's exit                       waits, for each stage s with N > s, for parity
                                     ((N - s - 1) / S) & 1, the phase of the last commit
                                     (the arrivals of two commits are not ordered,
                                     9.7.16.12.1)
==================================  =====================================================

Which MMA is the first (the last) reader of its use is decided per op, for every
iteration: the pass lists the MMA role's reads for N = N0 .. N0 + 2 (span + S) + 1,
with N0 the fewest blocks the kernel reads (the loop runs, and every use it names before
or after its loop is one the load role fills) and span one more than the largest offset
|b|, |c|, |d| (at most MAX_OFFSET): an op's reads relate to another's by the difference of
their offsets, so an iteration more than span from either end of the loop behaves as its
neighbours, and one near an end as at any larger N. An op that is the
first reader in some iterations only is refused, and so is a use that no MMA reads (its
stage would never be released), a use read outside the loaded ones, and a ring too
shallow for the order of the reads (the first read of use u + S before the last of u:
the wait for the refill would come before the commit that allows it). Cost: the reads
listed for a number of counts bounded by the offsets (not the kernel's size), per
ring-reading MMA: linear in the kernel.
tcgen05-verify-sync then checks the whole protocol, the hand-written part with it.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import tma
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, CommitOp, MbarrierExpectTxOp,
                                       MbarrierStageOp, MbarrierWaitOp, MmaOp, SmemStageOp,
                                       TmaLoadOp)
from tcgen05_lower.kernel_ir import PARTITIONS_OP, defining_op, partition_roles, role_info
from tcgen05_lower.synchronization.common import SyncError, constant_value
from tcgen05_lower.synchronization.emitter import Emitter
from tcgen05_lower.synchronization.phases import _const, _op

#: The strategy name (tcgen05-insert-sync's option).
LOADS = "loads"

_CASTS = ("arith.index_cast", "arith.index_castui")
#: The largest offset |b|, |c|, |d| planned (the reads listed grow with its square).
MAX_OFFSET = 64
_WHO = "tcgen05-insert-sync{strategy=loads}"


def plan_pipelined_loads(kernel) -> tuple[list, list]:
    """Inserts the protocol of the kernel's TMA loads that name no mbarrier (module
    docstring); returns the added sync ops (each with its ``reason``) and the mbarriers
    created, as (arrival count, purpose)."""
    partitions = next((op for op in d.walk_ops(kernel) if op.name == PARTITIONS_OP), None)
    if partitions is None:
        raise SyncError(kernel, f"{_WHO} plans the TMA loads of a kernel with warp roles; "
                                f"this kernel has no tcgen05.partitions")
    plan = _Plan(partitions)
    plan.run()
    return plan.added, plan.barriers


class _Site:
    """One MMA reading a ring stage: where it sits and the use it reads, as (where,
    offset): ("before", c) use c, ("loop", b) use i + b, ("after", c) use U + c."""

    def __init__(self, op, view, where: str, offset: int, position: int):
        self.op, self.view, self.where, self.offset = op.operation, view, where, offset
        self.position = position   # the MMA's rank in its block
        self.first = set()         # whether it is the first reader, per listed read
        self.last = set()


class _Plan(Emitter):
    """The loads, their readers and the ops written for them (module docstring)."""

    def __init__(self, partitions):
        self.partitions = partitions
        self.added: list = []
        self.barriers: list = []
        self.constants: dict = {}
        self.roles = [role_info(op, i) for i, op in enumerate(partition_roles(partitions))]

    # -- finding the loads and their readers ----------------------------------------------
    def run(self) -> None:
        loads = [op.operation for op in d.walk_ops(self.partitions)
                 if TmaLoadOp.matches(op) and tma.load_barrier(op) is None]
        if not loads:
            raise SyncError(self.partitions, f"{_WHO}: no tcgen05.tma_load names no mbarrier, "
                                             f"so there is nothing to plan (use "
                                             f"strategy=none)")
        load_role = self.role_of(loads[0])
        for op in loads:
            if self.role_of(op) != load_role:
                raise SyncError(op, f"{_WHO}: TMA loads in roles '{load_role.name}' and "
                                    f"'{self.role_of(op).name}'; one role must issue them")
        once = [op for op in loads if _parent(op) == load_role.op]
        looped = [op for op in loads if _parent(op) != load_role.op]
        loop = self.load_loop(looped, load_role) if looped else None
        tiles = {self.once_tile(op): op for op in once}
        rings, depth = self.ring_views(looped, loop)
        mmas = self.readers(set(tiles), rings, load_role)
        if once:
            self.plan_once(once, tiles, mmas, load_role)
        if looped:
            self.plan_ring(looped, loop, rings, depth, mmas, load_role)

    @staticmethod
    def once_tile(op):
        """The tile a load in the role's body fills: a whole smem_buffer (a ring stage
        loaded once would be a use the ring's counters do not count)."""
        tile = TmaLoadOp(op).tile
        view = defining_op(tile)
        if view is not None and SmemStageOp.matches(view):
            raise SyncError(op, f"{_WHO}: a TMA load outside the load loop fills a whole "
                                f"tile, not a ring stage")
        return tile

    def role_of(self, op):
        op = op.operation
        while op is not None and op.name != "tcgen05.role":
            op = _parent(op)
        return next(r for r in self.roles if r.op == op)

    def load_loop(self, looped, load_role):
        """The scf.for of the load role's body holding every ring load, from 0 by 1."""
        loop = _parent(looped[0])
        for op in looped:
            if _parent(op) != loop or loop.name != "scf.for" or _parent(loop) != load_role.op:
                raise SyncError(op, f"{_WHO}: a TMA load that names no mbarrier sits in "
                                    f"the role's body or in the body of one scf.for of it "
                                    f"(all of them in the same loop), not in "
                                    f"{_parent(op).name} nested deeper")
        if constant_value(loop.operands[0]) != 0 or constant_value(loop.operands[2]) != 1:
            raise SyncError(loop, f"{_WHO}: the load loop must count from 0 by 1 (its "
                                  f"iteration is the ring's use)")
        return loop

    def ring_views(self, looped, loop) -> tuple[set, int]:
        """The rings the loop's loads fill (each load into ``smem_stage(%ring,
        remui(i, S))``) and their depth S."""
        rings, depth = set(), None
        iv = loop.regions[0].blocks[0].arguments[0] if loop is not None else None
        for op in looped:
            view = defining_op(TmaLoadOp(op).tile)
            ring, stages, x = self.stage_of(view, op)
            if x != iv:
                raise SyncError(op, f"{_WHO}: a ring load must fill stage remui(i, S) of "
                                    f"its loop's iteration i (its use)")
            if depth is not None and depth != stages:
                raise SyncError(op, f"{_WHO}: rings of {depth} and {stages} stages are "
                                    f"filled in one loop; one depth for all")
            rings.add(ring)
            depth = stages
        return rings, depth or 1

    def stage_of(self, view, user):
        """(ring, S, X) of ``smem_stage(%ring, remui(X, S))`` (S = the ring's stages)."""
        if view is None or not SmemStageOp.matches(view):
            raise SyncError(user, f"{_WHO}: a tile in a loop must be a ring stage "
                                  f"(tcgen05.smem_stage)")
        stage = SmemStageOp(view)
        stages = d.type_info(stage.tile.type).shape[0]
        index = defining_op(stage.stage)
        if index is None or index.name != "arith.remui" or \
                constant_value(index.operands[1]) != stages:
            raise SyncError(view, f"{_WHO}: the stage index must be remui(use, {stages}) "
                                  f"(the ring's depth)")
        return stage.tile, stages, index.operands[0]

    def readers(self, once_tiles: set, rings: set, load_role) -> list:
        """Every MMA reading a loaded tile: [(op, view or None, tile)], in program
        order, all in one role (not the load role)."""
        found = []
        for op in d.walk_ops(self.partitions):
            if not MmaOp.matches(op):
                continue
            mma = MmaOp(op)
            for operand in (mma.a, mma.b):
                view = defining_op(operand)
                if operand in once_tiles:
                    found.append((op.operation, None, operand))
                elif view is not None and SmemStageOp.matches(view) and \
                        SmemStageOp(view).tile in rings:
                    found.append((op.operation, view, SmemStageOp(view).tile))
        if not found:
            raise SyncError(self.partitions, f"{_WHO}: no tcgen05.mma reads the tiles the "
                                             f"TMA loads fill")
        role = self.role_of(found[0][0])
        for op, _, _ in found:
            if self.role_of(op) != role or role == load_role:
                raise SyncError(op, f"{_WHO}: the MMAs reading the loaded tiles must sit "
                                    f"in one role other than the load role")
        self.mma_role = role
        return found

    # -- once loads -----------------------------------------------------------------------
    def plan_once(self, once, tiles, mmas, load_role) -> None:
        first = next((op for op, view, tile in mmas if tile in tiles), None)
        if first is None:
            raise SyncError(once[0], f"{_WHO}: no tcgen05.mma reads the tiles the TMA "
                                     f"loads outside the load loop fill")
        full = self.alloc(1, stages=1, purpose="once_full: the TMA loads of the tiles loaded once "
                                "complete_tx on it; the MMA role waits for its phase 0")
        nbytes = sum(tma.tile_bytes(TmaLoadOp(op).tile) for op in once)
        with ir.InsertionPoint(once[0]), once[0].location:
            self.emit(MbarrierExpectTxOp, barrier=full, bytes=nbytes,
                      reason=f"the phase of once_full expects the {nbytes} bytes of the "
                             f"{len(once)} TMA loads of tiles loaded once (their "
                             f"complete_tx ends it, 9.7.13.15); its one arrival")
        for op in once:
            tma.with_barrier(op, full)
        top = first
        while _parent(top) != self.mma_role.op:
            top = _parent(top)
        with ir.InsertionPoint(top), first.location:
            self.emit(MbarrierWaitOp, barrier=full, phase=_const(0, _i32()),
                      reason=f"the MMAs of {self.mma_role.name!r} read the tiles loaded once "
                             f"after their TMA loads in {load_role.name!r} landed "
                             f"(once_full, phase 0; async proxy both: no proxy fence, "
                             f"9.7.16.6.5)")

    # -- the ring -------------------------------------------------------------------------
    def plan_ring(self, looped, loop, rings, depth, mmas, load_role) -> None:
        sites, mma_loop = self.sites(mmas, rings, depth)
        n = loop.operands[1]
        delta = 0
        if mma_loop is not None:
            delta = _offset_from(mma_loop.operands[1], n)
            if delta is None:
                raise SyncError(mma_loop, f"{_WHO}: the MMA loop's bound must be the load "
                                          f"loop's plus or minus a constant (their "
                                          f"iterations name the same uses)")
        _check_reads(sites, depth, delta, mma_loop or self.mma_role.op)
        full = self.alloc(1, stages=depth, purpose="full: the ring loads of use i complete_tx on stage "
                                    "i mod S; the MMA role waits before the first read")
        empty = self.alloc(1, stages=depth, purpose="empty: the MMA role commits after the last read of "
                                     "use u; the load role waits before the refill")
        self.plan_fills(looped, loop, depth, full, empty, load_role)
        self.plan_reads(sites, depth, full, empty, load_role)
        self.plan_tail(load_role, n, depth, empty)

    def sites(self, mmas, rings, depth) -> tuple[list, object]:
        """The ring-reading MMAs as _Site, and the MMA role's loop (None: none)."""
        role_op, loop, found = self.mma_role.op, None, []
        for op, view, tile in mmas:
            if view is None:
                continue
            parent = _parent(op)
            if parent != role_op:
                if parent.name != "scf.for" or _parent(parent) != role_op or \
                        (loop is not None and loop != parent):
                    raise SyncError(op, f"{_WHO}: an MMA reading a ring stage sits in the "
                                        f"role's body or in the body of one scf.for of it")
                loop = parent
            found.append((op, view, self.stage_of(view, op)[2]))
        if loop is not None and (constant_value(loop.operands[0]) != 0 or
                                 constant_value(loop.operands[2]) != 1):
            raise SyncError(loop, f"{_WHO}: the MMA loop must count from 0 by 1")
        # ranks in the two blocks that hold sites (one pass over each)
        rank = {op.operation: i for i, op in
                enumerate(role_op.regions[0].blocks[0].operations)}
        if loop is not None:
            rank.update({op.operation: i for i, op in
                         enumerate(loop.regions[0].blocks[0].operations)})
        sites = [_Site(op, view, *self.use_of(op, x, loop, rank), rank[op])
                 for op, view, x in found]
        return sites, loop

    def use_of(self, op, x, loop, rank) -> tuple[str, int]:
        """(where, offset) of the use the MMA `op` reads, X = `x` (_Site)."""
        if loop is not None and _parent(op) == loop:
            b = _offset_from(x, loop.regions[0].blocks[0].arguments[0])
            if b is None:
                raise SyncError(op, f"{_WHO}: in the MMA loop a ring stage must be "
                                    f"remui(i + b, S) with b a constant")
            return "loop", b
        if loop is not None and rank[op] > rank[loop]:
            c = _offset_from(x, loop.operands[1])
            if c is not None:
                return "after", c
        else:
            c = _constant_of(x)
            if c is not None:
                return "before", c
        raise SyncError(op, f"{_WHO}: before the MMA loop a ring stage must be "
                            f"remui(c, S) (c a constant), after it remui(U + c, S) with U "
                            f"the loop's bound")

    def plan_fills(self, looped, loop, depth, full, empty, load_role) -> None:
        first = looped[0]
        iv = loop.regions[0].blocks[0].arguments[0]
        nbytes = sum(tma.tile_bytes(TmaLoadOp(op).tile) for op in looped)
        with ir.InsertionPoint(first), first.location:
            stage, round_ = self.position(iv, depth)
            full_s = _stage(full, stage)
            empty_s = _stage(empty, stage)
            self.emit(MbarrierWaitOp, barrier=empty_s, phase=self.parity(round_, 1),
                      reason=f"TMA refill of stage i mod {depth} after the MMAs of "
                             f"{self.mma_role.name!r} reading its previous use completed "
                             f"(empty, parity (i / {depth} + 1) & 1; 9.7.16.12.1)")
            self.emit(MbarrierExpectTxOp, barrier=full_s, bytes=nbytes,
                      reason=f"the phase of full_s expects the {nbytes} bytes of use i's "
                             f"{len(looped)} TMA loads (their complete_tx ends it, "
                             f"9.7.13.15); its one arrival")
        for op in looped:
            tma.with_barrier(op, full_s)

    def plan_reads(self, sites, depth, full, empty, load_role) -> None:
        for site in sites:
            x = defining_op(SmemStageOp(site.view).stage).operands[0]
            stage = SmemStageOp(site.view).stage
            if site.first == {True}:
                with ir.InsertionPoint(site.op), site.op.location:
                    round_ = _op("arith.divui", [x, self.index(depth)], _index()) \
                        if depth > 1 else x
                    self.emit(MbarrierWaitOp, barrier=_stage(full, stage),
                              phase=self.parity(round_, 0),
                              reason=f"the first MMA reading this use of the ring waits "
                                     f"for its TMA loads in {load_role.name!r} (full, "
                                     f"parity (use / {depth}) & 1; async proxy both: no "
                                     f"proxy fence, 9.7.16.6.5)")
            if site.last == {True}:
                with ir.InsertionPoint.after(site.op), site.op.location:
                    self.emit(CommitOp, barrier=_stage(empty, stage),
                              reason="the last MMA reading this use of the ring releases "
                                     "its stage to the refill when it completes (empty, "
                                     "9.7.16.12.1)")

    def plan_tail(self, load_role, n, depth, empty) -> None:
        """For each stage s with N > s, the wait for parity ((N - s - 1) / S) & 1: the
        phase of the last of its ceil((N - s) / S) commits."""
        body = load_role.op.regions[0].blocks[0]
        terminator = body.operations[len(body.operations) - 1]
        i1 = ir.IntegerType.get_signless(1)
        with ir.InsertionPoint(terminator), terminator.location:
            for s in range(depth):
                gets = ir.Operation.create(   # arith.cmpi ugt (predicate 8)
                    "arith.cmpi", results=[i1], operands=[n, self.index(s)],
                    attributes={"predicate": ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(64), 8)}).results[0]
                branch = ir.Operation.create("scf.if", results=[], operands=[gets],
                                             regions=2)
                with ir.InsertionPoint(branch.regions[0].blocks.append()):
                    last = _op("arith.subi", [n, self.index(s + 1)], _index())
                    phase = _op("arith.divui", [last, self.index(depth)], _index()) \
                        if depth > 1 else last
                    self.emit(MbarrierWaitOp, barrier=_stage(empty, self.index(s)),
                              phase=self.parity(phase, 0),
                              reason=f"producer tail: the last commit to empty stage {s} "
                                     f"has arrived before {load_role.name!r} reaches the "
                                     f"join and the CTA exits (parity ((N - {s} - 1) / "
                                     f"{depth}) & 1; the arrivals of two commits are not "
                                     f"ordered, 9.7.16.12.1)")
                    ir.Operation.create("scf.yield")

    def position(self, iv, depth: int):
        if depth == 1:
            return self.index(0), iv
        return (_op("arith.remui", [iv, self.index(depth)], _index()),
                _op("arith.divui", [iv, self.index(depth)], _index()))

    def parity(self, round_, plus: int):
        if plus:
            round_ = _op("arith.addi", [round_, self.index(plus)], _index())
        return _op("arith.index_cast", [_op("arith.andi", [round_, self.index(1)],
                                            _index())], _i32())


def _check_reads(sites: list, depth: int, delta: int, where) -> None:
    """Lists the reads for the counts of the module docstring and marks each site first
    / last reader; refuses what the protocol cannot serve."""
    span = max([abs(s.offset) for s in sites] + [abs(delta)]) + 1
    if span > MAX_OFFSET + 1:
        far = max(sites, key=lambda s: abs(s.offset))
        raise SyncError(far.op if abs(far.offset) + 1 == span else where,
                        f"{_WHO}: a use offset of {span - 1} (an MMA's from its loop's "
                        f"counter or bound, or the loops' bounds' difference) is more than "
                        f"{MAX_OFFSET}")
    # The fewest blocks N0: the loop runs (U = N + delta >= 0) and every use named
    # before or after it is a loaded one (below that the kernel reads a use that no load
    # fills, with its synchronization written by hand as well).
    n0 = max([1, -delta] + [s.offset + 1 for s in sites if s.where == "before"]
             + [-(delta + s.offset) for s in sites if s.where == "after"])
    for n in range(n0, n0 + 2 * (span + depth) + 2):
        reads = []
        for s in sites:
            if s.where == "before":
                reads.append(((0, 0, s.position), s.offset, s))
            elif s.where == "after":
                reads.append(((2, 0, s.position), n + delta + s.offset, s))
            else:
                reads += [((1, i, s.position), i + s.offset, s) for i in range(n + delta)]
        reads.sort(key=lambda read: read[0])
        by_use: dict = {}
        for key, use, s in reads:
            if not 0 <= use < n:
                raise SyncError(s.op, f"{_WHO}: with {n} uses this MMA reads use {use}, "
                                      f"which the load loop does not fill")
            by_use.setdefault(use, []).append((key, s))
        for use in range(n):
            if use not in by_use:
                raise SyncError(where, f"{_WHO}: with {n} uses no MMA reads use {use}: its "
                                       f"stage would never be released to the refill")
        for use, events in by_use.items():
            for k, (_, s) in enumerate(events):
                s.first.add(k == 0)
                s.last.add(k == len(events) - 1)
            later = by_use.get(use + depth)
            if later is not None and later[0][0] < events[-1][0]:
                raise SyncError(later[0][1].op, f"{_WHO}: the ring of {depth} stages is too "
                                                f"shallow for this order of reads: use "
                                                f"{use + depth} is read before the last read "
                                                f"of use {use}, whose commit its refill "
                                                f"waits for")
    for s in sites:
        for flags, what in ((s.first, "first"), (s.last, "last")):
            if len(flags) > 1:
                raise SyncError(s.op, f"{_WHO}: this MMA is the {what} reader of its use of "
                                      f"the ring in some iterations only; the pass writes "
                                      f"no conditional wait or commit")


def _parent(op):
    """The operation whose region holds `op` (an Operation, not a view)."""
    parent = op.operation.parent
    return parent.operation if parent is not None else None


def _offset_from(value, base):
    """d when `value` is `base` plus d (addi / subi of constants, index casts), else
    None."""
    total = 0
    while value != base:
        op = defining_op(value)
        if op is None:
            return None
        if op.name in _CASTS:
            value = op.operands[0]
            continue
        if op.name not in ("arith.addi", "arith.subi"):
            return None
        right = constant_value(op.operands[1])
        left = constant_value(op.operands[0])
        if right is not None:
            total += right if op.name == "arith.addi" else -right
            value = op.operands[0]
        elif left is not None and op.name == "arith.addi":
            total += left
            value = op.operands[1]
        else:
            return None
    return total


def _constant_of(value):
    op = defining_op(value)
    while op is not None and op.name in _CASTS:
        value = op.operands[0]
        op = defining_op(value)
    return constant_value(value)


def _stage(ring, index):
    """Stage `index` of the mbarrier ring `ring`. A ring of one stage is a single mbarrier
    (Emitter.alloc writes no stages for it): its stage is the mbarrier itself, which
    tcgen05-verify-sync and the lowering take (an mbarrier_stage of it they do not)."""
    alloc = defining_op(ring)
    staged = (alloc is not None and AllocMbarrierOp.matches(alloc)
              and AllocMbarrierOp(alloc).stages is not None)
    if alloc is not None and not staged:
        return ring
    return MbarrierStageOp.build(result_types=[d.mbarrier_type()], ring=ring,
                                 stage=index).results[0]


def _index():
    return ir.IndexType.get()


def _i32():
    return ir.IntegerType.get_signless(32)
