"""The synchronization of a persistent, TMA-fed, warp-specialized kernel that writes none:
TMA loads into S-stage shared-memory rings, MMAs out of them into an accumulator ring,
an epilogue that drains it, each role written as loops (docs/partitions.md,
"Synchronization that tcgen05-insert-sync writes").

The kernel's shape, as a user writes it (examples/ws_persistent_gemm_bf16.mlir):

- a load role whose TMA loads (``tcgen05.tma_load`` without its mbarrier operand) sit
  in one block, a K-block loop usually inside a tile loop; each load writes
  ``smem_stage(%ring, %s)`` of a ring of S stages;
- an MMA role whose MMAs sit in one block, the body of a K-block loop (an ``scf.for``)
  whose op sits in the tile block (the role's body, or the body of its tile loop); they
  read the stages of the same rings and write ``tmem_stage(%acc, %j)`` of an accumulator
  of S_acc stages (or a plain accumulator, S_acc = 1);
- an epilogue role whose ``tcgen05.ld`` ops of that accumulator sit under one tile
  block, at the depth of the MMA role's tile block.

One execution of the block of the loads (of the MMAs) is one use of the ring, number
``it`` (the linear iteration counter of the loops around the block, ``it = sum_l a_l
i_l`` with ``i_l = (iv_l - lb_l) / step_l`` and ``a_l`` the product of the trip counts of
the loops inside loop l); it uses stage ``it mod S`` in round ``it / S``. Likewise one
execution of the tile block is one use of the accumulator ring, ``u``-th round of stage
``t mod S_acc``. The roles that share a ring must have loop nests of the same constant trip
structure, so that use ``it`` of one is use ``it`` of the other; the pass proves that the
stage index the user wrote is the one its counters give (``prove_stage``), and refuses
with a located diagnostic naming the value when it cannot.

The protocol (PTX ISA 9.7.16.6.4 canonical patterns, 9.7.13.15 mbarriers), per ring
stage s and accumulator stage j, with the mbarriers as rings (``alloc_mbarrier {stages}``,
``mbarrier_stage`` at the counters' stage):

=======================================  =================================================
TMA -> MMA on stage s                    full (count 1): the load thread's
                                         mbarrier_expect_tx (the exact bytes of the
                                         stage's loads), then the loads with complete_tx
                                         on full_s (written into their mbarrier operand);
                                         the MMA role waits for parity ``round & 1``
                                         before the stage's first MMA. No
                                         fence.proxy.async: TMA writes through the async
                                         proxy, which the MMAs read through (9.7.16.6.5
                                         orders generic-proxy writes only)
MMA -> TMA refill of stage s             empty (count 1): tcgen05.commit after the stage's
                                         last MMA (its reads are then complete,
                                         9.7.16.12.1); the load thread waits for parity
                                         ``(round + 1) & 1`` before the stage's loads (in
                                         round 0 the phase before the first, which a
                                         fresh mbarrier reports complete)
MMA -> epilogue on accumulator stage j   acc_full (count 1): commit after the tile's K loop
                                         (after its last MMA); the epilogue waits for
                                         parity ``u & 1``, then
                                         tcgen05.fence::after_thread_sync (9.7.16.6.4.3)
epilogue -> next MMA into stage j        acc_empty (count = the epilogue's threads): the
                                         epilogue's tcgen05.wait::ld,
                                         fence::before_thread_sync and every thread's
                                         arrive; the MMA role waits for parity
                                         ``(u + 1) & 1`` and fences after_thread_sync
                                         before the tile's K loop (9.7.16.6.4.4)
roles -> dealloc after the join          fence::after_thread_sync after the partitions op
                                         (the epilogue's last wait::ld and
                                         fence::before_thread_sync precede the join)
last commit to empty_s -> the CTA's      the producer tail: after its loops the load role
exit                                     waits on each empty_s that gets commits, for the
                                         parity of its last one (``tail_parities``):
                                         nothing else waits for it, and the ISA orders no
                                         commit's arrival with another's (9.7.16.12.1), so
                                         it may otherwise land in the shared memory of a
                                         CTA that has exited
=======================================  =================================================

The accumulator ring needs no tail: every acc_full commit is waited for by the
epilogue, and the acc_empty arrivals are the epilogue threads' own mbarrier.arrive
(remote, in a pair, with release at cluster scope), performed before those threads
reach the joining (cluster) barrier that the mbarrier's CTA passes before it exits
(docs/partitions.md, "The producer tail").

Why this is the minimum per K block: 4 synchronization ops. The MMA thread must not read
a stage before its bytes land: one wait, on an mbarrier whose phase the TMA's complete_tx
ends, and that phase must expect the bytes (an expect_tx, which is also the phase's one
arrival: no separate arrive). The load thread must not overwrite a stage that MMAs may
still read: one wait, on an mbarrier that the MMAs' completion ends, which only a
tcgen05.commit signals across threads: one commit. No proxy fence (both sides are async
proxy) and no thread fence (the wait orders the async-proxy accesses). Per tile: the MMA
role's acc_empty wait, its fence::after_thread_sync and the acc_full commit; the
epilogue's acc_full wait, fence::after_thread_sync, wait::ld, fence::before_thread_sync
and arrive (the 9.7.16.6.4.3 / .4 patterns step by step). The ``mbarrier_stage`` ops and
the index arithmetic the pass adds compute addresses, not orderings. After the loops,
the tail: one wait per ring stage that gets commits.

A CTA pair (``cta_group = 2``; docs/cta-pairs.md, "Warp roles and TMA in a CTA pair").
Each CTA runs every role; the single-thread ops (mma, commit) and the expect_tx are
issued by the even CTA only (Table 46), and the MMAs read both CTAs' stages and write
both CTAs' accumulator lanes. The same ops, with the signals sent where the waits are:

=======================================  =================================================
full (count 1, the even CTA's)           the even CTA's expect_tx announces both CTAs'
                                         bytes: 2 x the stage's loads (each CTA loads its
                                         own slices, and every load of the pair completes
                                         on the even CTA's mbarrier with .cta_group::2,
                                         9.7.9.25.5.1); the MMA warp waits in the even
                                         CTA, the only one that issues MMAs
empty (count 1, both CTAs')              commit with ``multicast_mask = 3`` (0b11: both
                                         CTAs of the pair, %cluster_ctarank bits,
                                         9.7.16.12.1): each CTA's load thread refills its
                                         own half of the stage, so each waits on its own
                                         copy
acc_full (count 1, both CTAs')           commit with ``multicast_mask = 3``: each CTA's
                                         epilogue loads its own 128 lanes, which the pair
                                         MMA wrote, and waits on its own copy
acc_empty (count 2 x the epilogue's      ``mbarrier_arrive {cta = "even"}`` by every
threads, the even CTA's)                 epilogue thread of both CTAs (remote arrive,
                                         release at cluster scope): the MMAs that
                                         overwrite the stage write both CTAs' lanes, so
                                         the even CTA's MMA warp waits for both epilogues
the producer tail                        the same waits, run in both CTAs (each on its own
                                         copy of empty_s, which the multicast commit
                                         reaches)
=======================================  =================================================

The lowering runs each wait in the CTAs its mbarrier's signals reach (lowering/sync.py
``waiting_ctas``, which looks through ``mbarrier_stage`` to the ring), so nothing else
differs: the op count is the one-CTA protocol's. A pair kernel whose roles issue no TMA
load is refused (roles.py ``plan_roles``): the smem_fill protocol there signals one CTA.

A cluster whose loads are multicast (``tma_load`` with ``multicast``, tcgen05_lower/
multicast.py, docs/tma.md "Multicast across a cluster"): a load thread also refills its
sharers' copy of the stage, so empty_s counts one commit of every MMA-issuing CTA of the
cluster (``multicast.consumer_arrivals``) and each commit to it signals every CTA of the
cluster (``multicast.consumers_mask``); full_s is unchanged (a CTA receives all of its
stage's bytes, whoever issues them).

Run-time trip counts (docs/partitions.md): loops bounded by values defined before them,
the same values in every role that shares a ring (``Nest.same_structure``). Where every
weight is still a constant (the run-time loop is the outermost one, or the loops inside
it have constant counts: ``Nest.provable``, e.g. the K loop of
examples/ws_gemm_mxf8_blockscaled.mlir) the counter is the constant one and the kernel's
stage indices are proven as above; otherwise the counters multiply run-time trip counts
and the stage indices, which cannot be proven, are written by the pass
(``check_stage``). Both release protocols are written; the producer tail waits where the
run-time number of uses reaches each stage (``plan_dynamic_tail``).

``minimal`` and ``conservative`` write the same protocol when every ring is reused: every
op above is needed (deleting any one is a race, a deadlock or a wrong result,
tests/test_ws_persistent_gemm.py). Where a release protects nothing, minimal leaves it
out: a ring whose stages are each used once (uses <= stages) gets no empty protocol, an
accumulator ring whose stages each hold one tile no acc_empty protocol (the epilogue's
wait::ld and fence::before_thread_sync stay, for the dealloc); conservative writes the
whole protocol whatever the trip counts, but for an accumulator written outside any tile
loop (one tile per CTA, examples/ws_gemm_mxf8_blockscaled.mlir): no later tile exists to
overwrite it, so neither strategy writes its acc_empty protocol.

The rings' depth is the kernel's, or the pass option ``ring-stages`` (N, or auto: the
deepest that fits the dynamic shared memory): the loaded rings are retyped to that depth
and each of their stage views takes the stage the pass counts (``RingPlan.choose_depth``,
``retype_rings``).

Cost: one walk of the roles; the affine form of each index value is computed once
(memoized), and the ops added are a constant number per block: linear in the kernel.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import tma
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (CpOp, FenceOp, MmaOp, SmemStageOp, TmaLoadOp,
                                       TmemStageOp)
from tcgen05_lower.kernel_ir import (MBARRIER_RING_MAX_STAGES, defining_op, partition_roles,
                                     role_info)
from tcgen05_lower import multicast
from tcgen05_lower.synchronization.common import WRITTEN_SYNC, SyncError, role_accesses
from tcgen05_lower.synchronization.phases import _op
from tcgen05_lower.synchronization import scale_copies
from tcgen05_lower.synchronization.ring_depth import KERNEL_STAGES, RingDepth
from tcgen05_lower.synchronization.ring_nests import (Affine, Nest, _blocks_up, _top_in,
                                                      _where, prove_stage)
from tcgen05_lower.synchronization.ring_protocol import PAIR_CTAS, RingProtocol

#: Ops in roles this protocol does not order (located diagnostics).
UNSUPPORTED = ("smem_fill", "shift", "st", "ld_red")


def has_tma_roles(partitions) -> bool:
    """Whether a role of `partitions` issues TMA loads (then this module plans it)."""
    return any(TmaLoadOp.matches(op) for role in partition_roles(partitions)
               for op in d.walk_ops(role))


class RingPlan(RingDepth, RingProtocol):
    """The protocol of one partitions op whose roles issue TMA loads (module docstring)."""

    def __init__(self, kernel, partitions, strategy: str, names: dict,
                 ring_stages: str = KERNEL_STAGES):
        self.ring_stages = ring_stages
        self.kernel = kernel
        self.partitions = partitions
        self.strategy = strategy
        #: A CTA pair (cta_group::2): the signals go where docs/cta-pairs.md says.
        info = d.kernel_info(kernel)
        self.pair = info.cta_group == 2
        self.info = info
        #: Whether a load is multicast across the cluster (tcgen05_lower.multicast): then
        #: a stage is released by every MMA-issuing CTA of the cluster.
        self.multicast = False
        self.roles = [role_info(op, i) for i, op in enumerate(partition_roles(partitions))]
        self.added: list = []
        self.barriers: list = []
        self.anchor = kernel.regions[0].blocks[0].operations[0]
        self.names = names
        self.affine = Affine()
        self.constants: dict = {}

    # -- analysis -----------------------------------------------------------------------

    def collect(self):
        def check(role, op, name):
            if name in WRITTEN_SYNC or (name == TmaLoadOp.NAME and
                                        tma.load_barrier(op) is not None):
                raise SyncError(op, f"tcgen05-insert-sync{{strategy={self.strategy}}} "
                                    f"plans all the synchronization of a kernel with "
                                    f"warp roles, and {op.name} in {role.describe()} "
                                    f"writes some (or names its mbarrier): remove the "
                                    f"kernel's own synchronization, or keep it with "
                                    f"strategy=none")
            if name in UNSUPPORTED:
                raise SyncError(op, f"tcgen05-insert-sync{{strategy={self.strategy}}}: "
                                    f"{op.name} in {role.describe()} is not planned in a "
                                    f"kernel whose roles issue TMA loads yet; write the "
                                    f"kernel's synchronization by hand and use "
                                    f"strategy=none")
        return role_accesses(self.roles, TmaLoadOp.NAME, check)

    def one_role(self, entries, what: str):
        roles = {id(role.op): role for role, _ in entries}
        if len(roles) != 1:
            first = entries[0][1]
            raise SyncError(first, f"tcgen05-insert-sync: the ring protocol needs the "
                                   f"{what} in one role; they are in "
                                   f"{', '.join(r.describe() for r in roles.values())}")
        return entries[0][0]

    def one_block(self, entries, what: str):
        block = entries[0][1].block
        for _, op in entries:
            if op.block != block:
                raise SyncError(op, f"tcgen05-insert-sync: the ring protocol needs the "
                                    f"{what} in one block (one ring use per execution of "
                                    f"it); this one is in another")
        return block

    def stage_of(self, tile, user_op, what: str):
        """(ring, index) of a tile that must be a stage of a shared-memory ring."""
        op = defining_op(tile)
        if op is None or not SmemStageOp.matches(op):
            raise SyncError(user_op, f"tcgen05-insert-sync: {what} is not a stage of a "
                                     f"shared-memory ring (tcgen05.smem_stage); the ring "
                                     f"protocol plans TMA loads and MMAs on ring stages")
        view = SmemStageOp(op)
        return view.tile, view.stage

    def accumulator_of(self, value, user_op):
        """(accumulator, index or None, stages) of the TMEM buffer an MMA writes or an ld
        reads: a stage of a ring, or a plain buffer (one stage)."""
        op = defining_op(value)
        if op is not None and TmemStageOp.matches(op):
            view = TmemStageOp(op)
            return view.buffer, view.stage, d.type_info(view.buffer.type).stages
        if op is None or op.name != "tcgen05.tmem_buffer":
            raise SyncError(user_op, "tcgen05-insert-sync: the ring protocol needs this "
                                     "TMEM buffer to be a tcgen05.tmem_buffer or a "
                                     "tcgen05.tmem_stage of one")
        return value, None, 1

    def same_trips(self, first: Nest, second: Nest, first_op, second_op, what: str):
        dynamic = first.dynamic or second.dynamic
        if (not dynamic and first.trips != second.trips) or \
                (dynamic and not first.same_structure(second)):
            raise SyncError(second_op, f"tcgen05-insert-sync: {what}: the loops around "
                                       f"{first_op.name} at {_where(first_op)} "
                                       f"{first.describe()} and the loops around "
                                       f"{second_op.name} at {_where(second_op)} "
                                       f"{second.describe()} differ in trip counts "
                                       f"({first.trips} vs {second.trips}); use k of a "
                                       f"ring in one role must be use k in the other")

    def run(self) -> list:
        loads, mmas, lds = self.collect()
        if not loads or not mmas or not lds:
            missing = "TMA loads" if not loads else "MMAs" if not mmas else "tcgen05.ld ops"
            anchor = (loads or mmas or lds)[0][1]
            raise SyncError(anchor, f"tcgen05-insert-sync: the ring protocol plans a load "
                                    f"role, an MMA role and an epilogue role; these roles "
                                    f"have no {missing}")
        load_role = self.one_role(loads, "TMA loads")
        mma_role = self.one_role(mmas, "MMAs")
        ld_role = self.one_role(lds, "tcgen05.ld ops of the accumulator")
        if len({id(load_role.op), id(mma_role.op), id(ld_role.op)}) != 3:
            raise SyncError(mmas[0][1], "tcgen05-insert-sync: the ring protocol needs the "
                                        "TMA loads, the MMAs and the loads of the "
                                        "accumulator in three different roles")
        load_block = self.one_block(loads, "TMA loads")
        mma_block = self.one_block(mmas, "MMAs")
        self.multicast = any(TmaLoadOp(op).multicast is not None for _, op in loads)
        copies = scale_copies.copies_in(self.roles)   # scale factors, scale_copies.py
        scale_copies.check_placement(copies, mma_block)

        # The shared-memory rings: every load writes a stage, every MMA reads stages.
        loaded = {}
        for _, op in loads:
            ring, index = self.stage_of(TmaLoadOp(op).tile, op, "the tile of this TMA load")
            loaded.setdefault(ring, []).append((op, index))
        read = {}
        for _, op in mmas:
            mma = MmaOp(op)
            for tile, operand in ((mma.a, "A"), (mma.b, "B")):
                ring, index = self.stage_of(tile, op, f"operand {operand} of this MMA")
                read.setdefault(ring, []).append((op, index))
        for op in copies:
            ring, index = self.stage_of(CpOp(op).source, op, "the source of this tcgen05.cp")
            read.setdefault(ring, []).append((op, index))
        if set(loaded) != set(read):
            extra = [r for r in list(loaded) + list(read) if (r in loaded) != (r in read)]
            raise SyncError(mmas[0][1], f"tcgen05-insert-sync: the rings the TMA loads "
                                        f"write and the rings the MMAs read differ "
                                        f"({self.names.get(extra[0], 'a ring')} is "
                                        f"{'only loaded' if extra[0] in loaded else 'only read'})")
        stages = {d.type_info(ring.type).stages for ring in loaded}
        if len(stages) != 1:
            raise SyncError(loads[0][1], f"tcgen05-insert-sync: the rings of one TMA stage "
                                         f"must have the same number of stages (they have "
                                         f"{sorted(stages)})")
        depth = stages.pop()
        if depth > MBARRIER_RING_MAX_STAGES:
            ring = next(iter(loaded))
            raise SyncError(defining_op(ring) or loads[0][1],
                            f"tcgen05-insert-sync: a ring of {depth} stages; the "
                            f"protocol's mbarrier rings have at most "
                            f"{MBARRIER_RING_MAX_STAGES} stages (one 8-byte mbarrier per "
                            f"stage, each initialized at entry)")
        load_nest = Nest(load_block, load_role.op, "the TMA loads")
        mma_nest = Nest(mma_block, mma_role.op, "the MMAs")
        self.same_trips(load_nest, mma_nest, loads[0][1], mmas[0][1],
                        "the ring's loads and its MMAs")
        for ring, uses in loaded.items():
            for op, index in uses:
                self.check_stage(TmaLoadOp(op).tile, index, depth, load_nest, op,
                                 f"the tile of this TMA load "
                                 f"({self.names.get(ring, 'a ring')})")
        for ring, uses in read.items():
            for op, index in uses:
                views = (MmaOp(op).a, MmaOp(op).b) if MmaOp.matches(op) else \
                    (CpOp(op).source,)
                for tile in views:
                    if defining_op(tile) is not None and \
                            SmemStageOp(defining_op(tile)).tile == ring:
                        self.check_stage(tile, index, depth, mma_nest, op,
                                         f"the {self.names.get(ring, 'ring')} stage this "
                                         f"MMA reads")

        sf_rings = scale_copies.scale_rings(self, copies, mma_nest, depth)
        chosen = self.choose_depth(loaded, depth, load_nest)
        if chosen != depth and copies:
            raise SyncError(copies[0], f"tcgen05-insert-sync{{ring-stages="
                                       f"{self.ring_stages}}}: the rings' depth stays the "
                                       f"kernel's ({depth}) when tcgen05.cp copies scale "
                                       f"factors into TMEM rings of that depth")
        if chosen != depth:
            self.retype_rings(loaded, chosen, load_nest, mma_nest, load_block, mma_block)
            depth = chosen

        # The accumulator: the MMAs' tile block holds their K loop.
        k_loop = mma_block.owner
        k_loop = k_loop.operation if hasattr(k_loop, "operation") else k_loop
        if k_loop == mma_role.op or k_loop.name != "scf.for":
            raise SyncError(mmas[0][1], "tcgen05-insert-sync: the ring protocol needs the "
                                        "MMAs in a K-block loop (an scf.for whose body "
                                        "holds them), in the role's body or in its tile "
                                        "loop")
        tile_block = k_loop.block
        tile_nest = Nest(tile_block, mma_role.op, "the MMAs' K-block loop")
        accumulators = {}
        for _, op in mmas:
            acc, index, acc_stages = self.accumulator_of(MmaOp(op).d, op)
            accumulators.setdefault(acc, []).append((op, index, acc_stages))
        if len(accumulators) != 1:
            raise SyncError(mmas[0][1], "tcgen05-insert-sync: the ring protocol plans one "
                                        "accumulator (ring) per kernel; these MMAs write "
                                        f"{len(accumulators)}")
        acc = next(iter(accumulators))
        acc_depth = d.type_info(acc.type).stages
        acc_name = self.names.get(acc, "the accumulator")
        for op, index, _ in accumulators[acc]:
            if index is not None:
                self.check_stage(MmaOp(op).d, index, acc_depth, tile_nest, op,
                                 f"the stage of {acc_name} this MMA writes")
        ld_blocks = _blocks_up(lds[0][1], ld_role.op)
        level = len(tile_nest.loops)
        if len(ld_blocks) <= level:
            raise SyncError(lds[0][1], f"tcgen05-insert-sync: the loads of {acc_name} sit "
                                       f"{len(ld_blocks) - 1} loop(s) deep in "
                                       f"{ld_role.describe()}, and the MMAs' tile loop nest "
                                       f"is {level} deep: the epilogue's tile loops must "
                                       f"match the MMA role's")
        ld_tile_block = ld_blocks[level]
        ld_nest = Nest(ld_tile_block, ld_role.op, "the epilogue's loads")
        for _, op in lds:
            if _top_in(op, ld_tile_block) is None:
                raise SyncError(op, f"tcgen05-insert-sync: the loads of {acc_name} must "
                                    f"all sit in one tile block of {ld_role.describe()}")
            ld_acc, index, _ = self.accumulator_of(op.operands[0], op)
            if ld_acc != acc:
                raise SyncError(op, "tcgen05-insert-sync: this tcgen05.ld reads a TMEM "
                                    "buffer no MMA of the roles writes")
            if index is not None:
                self.check_stage(op.operands[0], index, acc_depth, ld_nest, op,
                                 f"the stage of {acc_name} this tcgen05.ld reads")
        self.same_trips(tile_nest, ld_nest, k_loop, lds[0][1],
                        f"the MMAs into {acc_name} and the epilogue's loads of it")

        # -- insertion ----------------------------------------------------------------
        rings = "the rings " + " and ".join(self.names.get(r, "?") for r in loaded)
        full = self.ring(1, depth, f"full: stage s of {rings} is loaded (the load "
                                   f"thread's expect_tx and the TMA loads' complete_tx)")
        # Under minimal, a ring whose stages are each used once is never refilled (no
        # empty protocol), and an accumulator ring whose stages each hold one tile is
        # never overwritten (no acc_empty protocol); conservative writes both anyway.
        conservative = self.strategy == "conservative"
        consumers = multicast.consumer_arrivals(self.info.cluster_ctas,
                                                self.info.cta_group) if self.multicast else 1
        empty = self.ring(consumers, depth,
                          f"empty: the MMAs reading stage s of {rings} are complete "
                          f"(tcgen05.commit" + (f"s of the cluster's {consumers} MMA-issuing "
                                                f"CTAs, whose stages the multicast loads "
                                                f"fill)" if self.multicast else ")")) \
            if conservative or load_nest.uses is None or load_nest.uses > depth else None
        acc_full = self.ring(1, acc_depth, f"acc_full: stage j of {acc_name} holds a "
                                           f"finished tile (tcgen05.commit after its MMAs)")
        arrivals = ld_role.threads * (PAIR_CTAS if self.pair else 1)
        acc_empty = self.ring(arrivals, acc_depth,
                              f"acc_empty: stage j of {acc_name} is drained (every one of "
                              f"the {ld_role.threads} threads of {ld_role.describe()} "
                              + (f"in both CTAs arrives at the even CTA's copy, "
                                 f"{arrivals} arrivals)" if self.pair else "arrives)")) \
            if (conservative and tile_nest.loops) or tile_nest.uses is None \
                    or tile_nest.uses > acc_depth else None
        self.plan_loads(loads, load_nest, depth, full, empty, rings, mma_role)
        before = len(self.added)
        self.plan_mmas([scale_copies.first_issue(mma_block, copies, mmas)] + mmas,
                       mma_nest, depth, full, empty, rings, load_role)
        if copies and empty is not None:
            scale_copies.plan_fence(self, before, sf_rings)
        self.plan_tail(load_role, load_nest, depth, empty, rings, mma_role)
        self.plan_tiles(k_loop, tile_nest, acc_depth, acc_full, acc_empty, acc_name,
                        ld_role)
        self.plan_epilogue(lds, ld_tile_block, ld_nest, acc_depth, acc_full, acc_empty,
                           acc_name, mma_role)
        with ir.InsertionPoint.after(self.partitions), self.partitions.location:
            self.emit(FenceOp, kind="after_thread_sync",
                      reason="the dealloc after the roles' join ordered after their TMEM "
                             "accesses (9.7.16.6.4.4)")
        return self.added

    def check_stage(self, view_value, index, stages: int, nest: Nest, user_op, what: str):
        """Proves that a stage view's index is the nest's use counter mod `stages`
        (prove_stage); in a nest with run-time weights (not ``Nest.provable``), where no
        proof is made,
        writes that index into the view instead (once per view), which must sit in the
        nest's innermost block: the kernel's own index there is replaced, as
        ``ring-stages`` replaces it (retype_rings)."""
        if not nest.dynamic or nest.provable:
            prove_stage(self.affine, index, stages, nest, user_op, what)
            return
        view = defining_op(view_value)
        rewritten = self.__dict__.setdefault("rewritten", set())
        if view is None or id(view) in rewritten:
            return
        inner = nest.loops[-1].regions[0].blocks[0] if nest.loops else None
        if view.block != inner:
            raise SyncError(user_op, f"tcgen05-insert-sync: {what} is taken outside the "
                                     f"innermost loop of the loops around it, whose "
                                     f"trip counts are known at run time only: the pass "
                                     f"writes the stage index from their counters there")
        rewritten.add(id(view))
        with ir.InsertionPoint(view), view.location:
            counter = nest.counter(self.constant)
            stage = _op("arith.remui", [counter, self.constant(stages)],
                        ir.IndexType.get()) if stages > 1 else self.constant(0)
        view.operands[1] = stage


def plan_rings(kernel, partitions, strategy: str, names: dict,
               ring_stages: str = KERNEL_STAGES) -> tuple[list, list]:
    """Inserts the ring protocol of `partitions` (with the rings `ring_stages` deep:
    ``RingPlan.choose_depth``); returns the added ops (each with its ``reason``) and the
    mbarrier rings created, as (arrival count, purpose)."""
    plan = RingPlan(kernel, partitions, strategy, names, ring_stages)
    return plan.run(), plan.barriers
