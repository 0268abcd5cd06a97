"""The synchronization of a kernel with warp roles (``tcgen05.partitions``,
docs/partitions.md) that writes none: the producer/consumer dependences between roles
and the standard full/empty mbarrier protocol that orders them.

The one-program planner (planner.py) walks one program order; the roles of a
partitions op run concurrently, so their dependences are found here, by which role
writes and which role reads each shared-memory tile and each TMEM accumulator, and each
is ordered by an mbarrier (9.7.16.6.4.3 / .4.4 canonical patterns across threads,
9.7.16.6.5 across proxies):

==========================================  =================================================
smem_fill (load role) -> mma (MMA role),    full_s (count = the load role's threads): every
one ring stage                              thread of the load role runs fence.proxy.async
                                            (its generic-proxy writes become visible to the
                                            async proxy, 9.7.16.6.5) and arrives after the
                                            stage's fills; the MMA role waits for phase i
                                            (parity i & 1) before the stage's first MMA
mma (MMA role) -> smem_fill refilling the   empty_s (count 1): tcgen05.commit after the
stage in the next iteration                 stage's last MMA (its async-proxy reads are then
                                            complete, 9.7.16.6.2.1.1); the load role waits
                                            for the phase of iteration i - 1 before the
                                            refill (parity (i + 1) & 1; in iteration 0 that
                                            is the phase before the first, which a fresh
                                            mbarrier reports complete)
mma (MMA role) -> ld (epilogue role)        acc_full (count 1): commit after the loop of the
                                            last MMA; the epilogue waits, then
                                            tcgen05.fence::after_thread_sync (.6.4.4)
roles -> dealloc after the join             the epilogue's tcgen05.wait::ld and
                                            fence::before_thread_sync after its last load,
                                            fence::after_thread_sync after the partitions
                                            op (the join is a CTA barrier): pattern .6.4.4
the loop's last commit to empty_s -> the    the producer tail: after the loop the load role
CTA's exit                                  waits on empty_s for the phase of the last
                                            iteration's commit (parity (trips - 1) & 1):
                                            nothing else waits for it and two commits'
                                            arrivals are not ordered (9.7.16.12.1)
==========================================  =================================================

A stage is a maximal run of MMAs in one block of the MMA role that read the same
shared-memory tiles (A and B); its fills are the fills of those tiles, in one block of
the load role. When the stage's MMAs sit in a loop, the fills must sit in a loop of the
same constant trip structure (lower bound, upper bound, step), one level deep in each
role: iteration i of one is iteration i of the other, and the phase of both mbarriers
in iteration i is i (each completes once per iteration). i = (iv - lb) / step, the same
arithmetic the hand-written examples use.

Why this is the minimum per K block (per stage and iteration): the MMA role needs one
wait (it must not read a tile before its fill is visible), the load role one wait
(it must not overwrite a tile the MMAs may still read), the fill's writes need one
fence.proxy.async and one arrive to be published to the async proxy and signalled, and
the MMAs' reads need one commit to be signalled: 5 ops per stage, as in
examples/ws_gemm_bf16.mlir (and once per stage after the loop, the tail's wait). With strategy ``conservative`` the same protocol is
written (it is already the completion of every cross-role dependence; no op is
removable without a race, see tests/test_ws_gemm_auto.py).

Roles that issue TMA loads are planned by rings.py instead (``plan_roles`` hands them
over): TMA loads into shared-memory rings, accumulator rings and persistent tile loops,
with mbarrier rings and stage indices proven against the loops' use counters.

Not yet here (located diagnostics): smem_fill stages of a ring indexed by the loop
(``smem_stage`` / ``tmem_stage`` rings, an accumulator written in a loop around the K loop:
rings.py plans those only when the stages are loaded by TMA), ops in branches in a role,
TMEM accesses other than mma and ld in roles, an accumulator no other role loads (or a
load of a buffer no MMA in the roles writes: the dealloc after the join would be
unordered), and a kernel that writes some synchronization of its own in its roles (use
strategy=none for it). Cost: one walk of the roles and of each block holding MMAs, the
fills indexed by tile: linear in the kernel.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, CommitOp, FenceOp,
                                       FenceProxyAsyncOp, MbarrierArriveOp,
                                       MbarrierWaitOp, MmaOp, SmemBufferOp, SmemFillOp,
                                       TmemBufferOp, WaitOp)
from tcgen05_lower.kernel_ir import PARTITIONS_OP, OpDict, partition_roles, role_info
from tcgen05_lower.synchronization.common import (WRITTEN_SYNC, SyncError, constant_value,
                                                  role_accesses)
from tcgen05_lower.synchronization.phases import _const, _op
from tcgen05_lower.synchronization.rings import has_tma_roles, plan_rings
from tcgen05_lower.synchronization.emitter import Recorder

#: Ops whose presence in a role this module does not plan for yet (tma_load: rings.py).
UNSUPPORTED = ("tma_load", "cp", "shift", "st", "ld_red")


def roles_of(kernel):
    """The kernel's tcgen05.partitions op (None without one)."""
    for op in d.walk_ops(kernel):
        if op.name == PARTITIONS_OP:
            return op
    return None


def _loop_of(op, role_op):
    """The scf.for directly around `op` inside its role, or None when `op` sits in the
    role's body; a deeper nesting or another region op is refused."""
    parent = op.parent
    if parent == role_op:
        return None
    grand = parent.parent
    if parent.name == "scf.for" and grand == role_op:
        return parent
    raise SyncError(op, f"tcgen05-insert-sync: {op.name} sits in {parent.name} nested in "
                        f"its role; role planning supports ops in the role's body or in one "
                        f"scf.for directly in it, not yet a K loop in a tile loop (a "
                        f"persistent kernel) nor a branch: write this kernel's "
                        f"synchronization by hand and use strategy=none")


def _bounds(loop) -> tuple | None:
    """(lb, ub, step) of an scf.for with constant bounds, else None."""
    values = tuple(constant_value(loop.operands[i]) for i in range(3))
    return None if None in values else values


def _top(op, role_op):
    """The ancestor of `op` directly in the role's body."""
    while op.parent != role_op:
        op = op.parent
    return op


class RolePlan(Recorder):
    """Finds the cross-role dependences of one partitions op and inserts the protocol."""

    def __init__(self, kernel, partitions, strategy: str):
        self.kernel = kernel
        self.partitions = partitions
        self.strategy = strategy
        self.roles = [role_info(op, i) for i, op in enumerate(partition_roles(partitions))]
        self.added: list = []
        #: (arrival count, what it is) of each mbarrier created, in creation order.
        self.barriers: list = []
        self.anchor = kernel.regions[0].blocks[0].operations[0]
        self.names = _value_names(kernel)

    # -- analysis -----------------------------------------------------------------------

    def collect(self):
        def check(role, op, name):
            if name in WRITTEN_SYNC:
                raise SyncError(op, f"tcgen05-insert-sync{{strategy={self.strategy}}} "
                                    f"plans all the synchronization of a kernel with "
                                    f"warp roles, and {op.name} is written in "
                                    f"{role.describe()}: remove the kernel's own "
                                    f"synchronization, or keep it with "
                                    f"strategy=none")
            if name in UNSUPPORTED:
                raise SyncError(op, f"tcgen05-insert-sync{{strategy={self.strategy}}}: "
                                    f"{op.name} in {role.describe()} is not planned "
                                    f"across roles yet; write the kernel's "
                                    f"synchronization by hand and use strategy=none")
        return role_accesses(self.roles, SmemFillOp.NAME, check)

    def stages(self, mmas):
        """Runs of consecutive MMAs (in one block) reading the same A and B tiles."""
        self.next_tcgen05 = _next_tcgen05({op.block for _, op in mmas})
        runs: list = []
        for role, op in mmas:
            mma = MmaOp(op)
            key = (mma.a, mma.b)
            last = runs[-1] if runs else None
            if last is not None and last["key"] == key and last["issuer"] == role \
                    and last["mmas"][-1].block == op.block \
                    and self.next_tcgen05.get(last["mmas"][-1]) == op:
                last["mmas"].append(op)
            else:
                runs.append(dict(key=key, issuer=role, mmas=[op]))
        owner: dict = {}
        for run in runs:
            for tile in run["key"]:
                if not isinstance(tile.type, ir.Type) or "smem" not in str(tile.type):
                    continue
                if tile in owner:
                    raise SyncError(run["mmas"][0],
                                    "tcgen05-insert-sync: this shared-memory tile is read "
                                    "by two runs of MMAs; role planning makes one ring "
                                    "stage of each run of MMAs on the same tiles (a tile "
                                    "belongs to one stage)")
                owner[tile] = run
        return runs, owner

    # -- insertion ------------------------------------------------------------------------

    def barrier(self, count: int, reason: str):
        with ir.InsertionPoint(self.anchor), self.partitions.location:
            op = AllocMbarrierOp.build(result_types=[d.mbarrier_type()], count=count)
        self.barriers.append((count, reason))
        return op.results[0]

    def parity(self, loop, plus: int):
        """(i + plus) & 1 as i32 at the insertion point, i = (iv - lb) / step of `loop`
        (0 + plus when `loop` is None)."""
        index, i32 = ir.IndexType.get(), ir.IntegerType.get_signless(32)
        if loop is None:
            return _const(plus & 1, i32)
        body = loop.regions[0].blocks[0]
        iv = body.arguments[0]
        i = _op("arith.divui", [_op("arith.subi", [iv, loop.operands[0]], index),
                                loop.operands[2]], index)
        if plus:
            i = _op("arith.addi", [i, _const(plus, index)], index)
        return _op("arith.index_cast", [_op("arith.andi", [i, _const(1, index)], index)],
                   i32)

    def run(self) -> list:
        fills, mmas, lds = self.collect()
        runs, owner = self.stages(mmas)
        by_tile: dict = {}
        for position, (role, op) in enumerate(fills):
            by_tile.setdefault(op.operands[1], []).append((position, role, op))
        for s, run in enumerate(runs):
            entries = sorted(e for tile in dict.fromkeys(run["key"])
                             for e in by_tile.get(tile, ()))
            self.plan_stage(s, run, [(role, op) for _, role, op in entries])
        self.plan_accumulators(mmas, lds)
        return self.added

    def plan_stage(self, s: int, run, fills) -> None:
        """`fills`: (role, op) of each fill of the stage's tiles, in program order."""
        stage_fills = [op for _, op in fills]
        mma_role, first_mma, last_mma = run["issuer"], run["mmas"][0], run["mmas"][-1]
        tiles = " and ".join(self.names.get(t, "a tile") for t in run["key"])
        if not stage_fills:
            return  # tiles the kernel fills before the partitions
        fill_roles = {r.op for r, _ in fills}
        if len(fill_roles) != 1:
            raise SyncError(stage_fills[0], f"tcgen05-insert-sync: the tiles {tiles} are "
                                            f"filled by several roles; role planning needs "
                                            f"one load role per stage")
        load_role = fills[0][0]
        if load_role.op == mma_role.op:
            raise SyncError(stage_fills[0], "tcgen05-insert-sync: a role that fills the "
                                            "tiles its own MMAs read is planned as one "
                                            "program only outside tcgen05.partitions")
        block = stage_fills[0].block
        for op in stage_fills:
            if op.block != block:
                raise SyncError(op, f"tcgen05-insert-sync: the fills of stage {tiles} sit "
                                    f"in different blocks of {load_role.describe()}")
        load_loop = _loop_of(stage_fills[0], load_role.op)
        mma_loop = _loop_of(first_mma, mma_role.op)
        if (load_loop is None) != (mma_loop is None) or (
                load_loop is not None and
                (_bounds(load_loop) is None or _bounds(load_loop) != _bounds(mma_loop))):
            where = load_loop or stage_fills[0]
            lb = _bounds(load_loop) if load_loop is not None else None
            mb = _bounds(mma_loop) if mma_loop is not None else None
            raise SyncError(where, f"tcgen05-insert-sync: the loop that fills stage {tiles} "
                                   f"in {load_role.describe()} (bounds {lb}) and the loop of "
                                   f"its MMAs in {mma_role.describe()} (bounds {mb}) must "
                                   f"have the same constant lower bound, upper bound and "
                                   f"step, so that iteration i of one is iteration i of "
                                   f"the other")
        first_fill, last_fill = stage_fills[0], stage_fills[-1]
        threads = load_role.threads
        full = self.barrier(threads, f"full mbarrier of stage {tiles}: each of the "
                                     f"{threads} threads of {load_role.describe()} arrives "
                                     f"after its fills")
        in_loop = mma_loop is not None
        empty = self.barrier(1, f"empty mbarrier of stage {tiles}: tcgen05.commit after "
                                f"the stage's MMAs in {mma_role.describe()}") \
            if in_loop else None
        # Load role: wait for the previous round's MMAs, fill, publish, arrive.
        if in_loop:
            with ir.InsertionPoint(first_fill), first_fill.location:
                self.emit(MbarrierWaitOp, barrier=empty, phase=self.parity(load_loop, 1),
                          reason=f"smem_fill of {tiles} after the MMAs of iteration i - 1 "
                                 f"that read them (empty mbarrier, parity (i + 1) & 1; "
                                 f"9.7.16.6.5, next iteration)")
        with ir.InsertionPoint.after(last_fill), last_fill.location:
            self.emit(FenceProxyAsyncOp,
                      reason=f"smem_fill of {tiles} (generic proxy) -> mma reading them "
                             f"(async proxy), 9.7.16.6.5")
            self.emit(MbarrierArriveOp, barrier=full,
                      reason=f"the fills of {tiles} are published: the MMAs in "
                             f"{mma_role.describe()} wait for this phase")
        # MMA role: wait for the fill, multiply, release the stage.
        with ir.InsertionPoint(first_mma), first_mma.location:
            self.emit(MbarrierWaitOp, barrier=full, phase=self.parity(mma_loop, 0),
                      reason=f"mma reading {tiles} after their fill in "
                             f"{load_role.describe()} (full mbarrier, parity i & 1)")
        if in_loop:
            with ir.InsertionPoint.after(last_mma), last_mma.location:
                self.emit(CommitOp, barrier=empty,
                          reason=f"the MMAs reading {tiles} release the stage to the "
                                 f"refill of the next iteration (empty mbarrier, "
                                 f"9.7.16.6.2.1.1)")
            self.plan_tail(load_role, load_loop, empty, tiles, mma_role)

    def plan_tail(self, load_role, load_loop, empty, tiles: str, mma_role) -> None:
        """The producer tail of a stage: the loop commits to `empty` once per iteration,
        and the refill waits only for the previous iteration's commit, so the last
        commit (phase trips - 1) is waited for here, at the end of the load role, before
        the join and the CTA's exit: its arrival is asynchronous and may otherwise land
        in the shared memory of a CTA that has exited (9.7.16.12.1). A loop of no
        iteration commits nothing: no tail."""
        lb, ub, step = _bounds(load_loop)
        trips = max(0, -(-(ub - lb) // step))
        if trips == 0:
            return
        parity = (trips - 1) & 1
        body = load_role.op.regions[0].blocks[0]
        terminator = body.operations[len(body.operations) - 1]
        with ir.InsertionPoint(terminator), terminator.location:
            self.emit(MbarrierWaitOp, barrier=empty,
                      phase=_const(parity, ir.IntegerType.get_signless(32)),
                      reason=f"producer tail: the last commit to the empty mbarrier of "
                             f"{tiles} by {mma_role.describe()} (iteration {trips - 1}, "
                             f"parity {parity}) has arrived before {load_role.describe()} "
                             f"reaches the join and the CTA exits (9.7.16.12.1)")

    def plan_accumulators(self, mmas, lds) -> None:
        written = {}
        for role, op in mmas:
            written.setdefault(MmaOp(op).d, []).append((role, op))
        loads = {}
        for role, op in lds:
            loads.setdefault(op.operands[0], []).append((role, op))
        tmem_roles = {r.op for r, _ in mmas} | {r.op for r, _ in lds}
        for acc, readers in loads.items():
            if acc not in written:
                raise SyncError(readers[0][1], "tcgen05-insert-sync: role planning orders "
                                               "the loads of a TMEM buffer after the MMAs "
                                               "of another role that write it, and no MMA "
                                               "in the roles writes this one")
        for acc, writers in written.items():
            readers = loads.get(acc, [])
            if not readers:
                raise SyncError(writers[-1][1], "tcgen05-insert-sync: role planning needs "
                                                "every accumulator the MMAs write in roles "
                                                "to be loaded by another role (its commit "
                                                "and wait also order the dealloc after the "
                                                "join), and this one is not loaded")
            mma_role = writers[0][0]
            ld_role = readers[0][0]
            if len({r.op for r, _ in writers}) != 1 or len({r.op for r, _ in readers}) != 1 \
                    or mma_role.op == ld_role.op:
                raise SyncError(readers[0][1], "tcgen05-insert-sync: role planning needs "
                                               "the MMAs of an accumulator in one role and "
                                               "its loads in another")
            last_top = _top(writers[-1][1], mma_role.op)
            first_ld = _top(readers[0][1], ld_role.op)
            last_ld = _top(readers[-1][1], ld_role.op)
            for role, op in writers + readers:
                if _top(op, role.op) is not op and \
                        _top(op, role.op).regions[0].blocks[0] != op.block:
                    raise SyncError(op, "tcgen05-insert-sync: an accumulator written or "
                                        "read in nested loops (a persistent tile loop, "
                                        "an accumulator ring) is not planned across roles "
                                        "yet; write its synchronization by hand and use "
                                        "strategy=none")
            name = self.names.get(acc, "the accumulator")
            acc_full = self.barrier(1, f"full mbarrier of accumulator {name}: tcgen05.commit "
                                       f"after its last MMA in {mma_role.describe()}")
            with ir.InsertionPoint.after(last_top), last_top.location:
                self.emit(CommitOp, barrier=acc_full,
                          reason=f"the MMAs into {name} complete before "
                                 f"{ld_role.describe()} loads it (9.7.16.6.4.4)")
            with ir.InsertionPoint(first_ld), first_ld.location:
                self.emit(MbarrierWaitOp, barrier=acc_full, phase=self.parity(None, 0),
                          reason=f"tcgen05.ld of {name} after the MMAs of "
                                 f"{mma_role.describe()} (acc full mbarrier, phase 0)")
                self.emit(FenceOp, kind="after_thread_sync",
                          reason=f"tcgen05.ld of {name} ordered after the mbarrier wait "
                                 f"(9.7.16.6.4.4)")
            with ir.InsertionPoint.after(last_ld), last_ld.location:
                self.emit(WaitOp, kind="ld",
                          reason=f"the loads of {name} complete before the dealloc after "
                                 f"the roles (9.7.16.6.4.2)")
                self.emit(FenceOp, kind="before_thread_sync",
                          reason=f"the loads of {name} before the join of the roles and "
                                 f"the dealloc after it (9.7.16.6.4.4)")
        if tmem_roles:
            with ir.InsertionPoint.after(self.partitions), self.partitions.location:
                self.emit(FenceOp, kind="after_thread_sync",
                          reason="the dealloc after the roles' join ordered after their "
                                 "TMEM accesses (9.7.16.6.4.4)")


def _next_tcgen05(blocks) -> OpDict:
    """Each tcgen05 op of `blocks` -> the next tcgen05 op in its block (ops of other
    dialects skipped); one walk of each block. (An OpDict: kernel_ir.OpDict says why.)"""
    following = OpDict()
    for block in blocks:
        previous = None
        for op in block.operations:
            op = op.operation
            if d.op_name(op) is None:
                continue
            if previous is not None:
                following[previous] = op
            previous = op
    return following


def plan_roles(kernel, strategy: str, ring_stages: str = "kernel") -> tuple[list, list]:
    """Inserts the protocol of the partitions op of `kernel`; returns the added sync ops
    (each with its ``reason``) and the mbarriers created, as (arrival count, purpose)."""
    partitions = roles_of(kernel)
    if has_tma_roles(partitions):
        # TMA-fed rings, accumulator rings and persistent tile loops: rings.py (which
        # writes the CTA-pair protocol too).
        return plan_rings(kernel, partitions, strategy, _value_names(kernel), ring_stages)
    if d.kernel_info(kernel).cta_group == 2:
        # This module's protocol signals the issuing CTA's mbarriers only: in a pair the
        # odd CTA's roles would wait on copies nothing signals, or read lanes and stages
        # nothing ordered (docs/cta-pairs.md).
        raise SyncError(partitions, "tcgen05-insert-sync: the warp roles of this "
                                    "cta_group::2 kernel issue no TMA load; the CTA-pair "
                                    "protocol is written for TMA-fed rings only "
                                    "(tcgen05.tma_load into tcgen05.smem_stage rings, "
                                    "docs/cta-pairs.md): write the roles' synchronization "
                                    "by hand and use strategy=none")
    plan = RolePlan(kernel, partitions, strategy)
    return plan.run(), plan.barriers


def _value_names(kernel) -> dict:
    """Buffer value -> how reasons name it: a TMEM buffer by its ``name`` attribute, else
    by the kind and position of its buffer op in the kernel (``smem tile 0``: the first
    smem_buffer)."""
    names, counts = {}, {}
    for op in d.walk_ops(kernel):
        if SmemBufferOp.matches(op):
            kind, given = "smem tile", None
        elif TmemBufferOp.matches(op):
            kind, given = "TMEM buffer", TmemBufferOp(op).name
        else:
            continue
        n = counts.get(kind, 0)
        counts[kind] = n + 1
        names[op.results[0]] = f"{kind} '{given}'" if given else f"{kind} {n}"
    return names
