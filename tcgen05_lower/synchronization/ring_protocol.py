"""The ops of the ring protocol (rings.py, the module docstring's tables): the
mbarrier rings, the waits, expect_tx, commits, fences and arrivals the planner inserts
for the loads, the MMAs, the producer tail, the tiles and the epilogue (``RingPlan``
inherits ``RingProtocol``), and the parities of the producer tail (``tail_parities``).
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import multicast, tma
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, CommitOp, FenceOp,
                                       MbarrierArriveOp, MbarrierExpectTxOp,
                                       MbarrierStageOp, MbarrierWaitOp, TmaLoadOp, WaitOp)
from tcgen05_lower.synchronization.phases import _const, _op
from tcgen05_lower.synchronization.ring_nests import Nest, _top_in
from tcgen05_lower.synchronization.emitter import Recorder

#: %cluster_ctarank bits of both CTAs of a pair (9.7.16.5.1): a commit with this
#: multicast_mask arrives at the mbarrier at the same offset in each (9.7.16.12.1).
BOTH_CTAS = 0b11
#: The CTAs of a pair whose loads complete on the even CTA's full mbarrier.
PAIR_CTAS = 2
#: ``mbarrier_arrive``'s ``cta`` for an arrival at the even CTA's mbarrier.
EVEN_CTA = "even"

class RingProtocol(Recorder):
    """The insertion half of ``RingPlan`` (needs ``added``, ``barriers``, ``anchor``,
    ``partitions``, ``pair``, ``multicast``, ``info`` and ``constants`` of the plan)."""

    # -- insertion ------------------------------------------------------------------------

    def ring(self, count: int, stages: int, reason: str):
        with ir.InsertionPoint(self.anchor), self.partitions.location:
            op = AllocMbarrierOp.build(result_types=[d.mbarrier_type()], count=count,
                                       stages=stages)
        self.barriers.append((count, f"ring of {stages}, {reason}; each use picks its "
                                     f"stage with tcgen05.mbarrier_stage at the stage the "
                                     f"loop counters give"))
        return op.results[0]

    def both(self):
        """The commit's ``multicast_mask``: both CTAs of a pair (each waits on its own
        copy), none (the plain commit, the issuing CTA's) for one CTA."""
        return BOTH_CTAS if self.pair else None

    def both_reason(self, who: str) -> str:
        return (f"; multicast 0b11 to both CTAs' copies, each CTA's {who} waits on its "
                f"own" if self.pair else "")

    def constant(self, value: int):
        """An index constant defined once, at the kernel's entry (it dominates every
        insertion point)."""
        found = self.constants.get(value)
        if found is None:
            with ir.InsertionPoint(self.anchor), self.partitions.location:
                found = self.constants[value] = _const(value, ir.IndexType.get())
        return found

    def position(self, nest: Nest, stages: int):
        """(stage, round) index values of the nest's current use, at the insertion
        point."""
        index = ir.IndexType.get()
        counter = nest.counter(self.constant)
        if stages == 1:
            return self.constant(0), counter
        return (_op("arith.remui", [counter, self.constant(stages)], index),
                _op("arith.divui", [counter, self.constant(stages)], index))

    def parity(self, round_, plus: int):
        index, i32 = ir.IndexType.get(), ir.IntegerType.get_signless(32)
        if plus:
            round_ = _op("arith.addi", [round_, self.constant(plus)], index)
        return _op("arith.index_cast", [_op("arith.andi", [round_, self.constant(1)],
                                            index)], i32)

    @staticmethod
    def stage(ring, index, what: str):
        """The mbarrier of stage `index` of `ring` (`what`: which one, for the reader of
        this module; the report explains the rings)."""
        return MbarrierStageOp.build(result_types=[d.mbarrier_type()], ring=ring,
                                     stage=index).results[0]

    def plan_loads(self, loads, nest, depth, full, empty, rings, mma_role) -> None:
        first = loads[0][1]
        nbytes = sum(tma.tile_bytes(TmaLoadOp(op).tile) for _, op in loads)
        # In a pair the even CTA's expect_tx announces both CTAs' loads: each CTA loads
        # its own slices, all completing on the even CTA's full_s (.cta_group::2,
        # 9.7.9.25.5.1); the odd CTA issues no expect_tx (docs/cta-pairs.md).
        nbytes *= PAIR_CTAS if self.pair else 1
        with ir.InsertionPoint(first), first.location:
            s, r = self.position(nest, depth)
            full_s = self.stage(full, s, "full mbarrier of the ring stage this K block "
                                         "loads (stage = use counter mod stages)")
            if empty is not None:
                empty_s = self.stage(empty, s, "empty mbarrier of the same stage")
                self.emit(MbarrierWaitOp, barrier=empty_s, phase=self.parity(r, 1),
                          reason=f"TMA refill of stage s of {rings} after the MMAs in "
                                 f"{mma_role.describe()} of the previous round completed "
                                 f"(empty, parity (round + 1) & 1; 9.7.16.6.5)")
            self.emit(MbarrierExpectTxOp, barrier=full_s, bytes=nbytes,
                      reason=f"the phase of full_s expects the {nbytes} bytes of the "
                             f"stage's {len(loads)} TMA loads"
                             + (" in each CTA of the pair, issued by the even CTA"
                                if self.pair else "")
                             + " (their complete_tx ends it, 9.7.13.15); the one arrival "
                               "of its count 1")
        for _, op in loads:
            tma.with_barrier(op, full_s)

    def plan_mmas(self, mmas, nest, depth, full, empty, rings, load_role) -> None:
        first, last = mmas[0][1], mmas[-1][1]
        with ir.InsertionPoint(first), first.location:
            s, r = self.position(nest, depth)
            full_s = self.stage(full, s, "full mbarrier of the ring stage these MMAs read")
            empty_s = self.stage(empty, s, "empty mbarrier of the same stage") \
                if empty is not None else None
            self.emit(MbarrierWaitOp, barrier=full_s, phase=self.parity(r, 0),
                      reason=f"mma reading stage s of {rings} after its TMA loads in "
                             f"{load_role.describe()} landed (full, parity round & 1; "
                             f"TMA and MMA are both async proxy: no proxy fence, 9.7.16.6.5)")
        if empty_s is None:
            return   # no refill: nothing waits for these MMAs' reads
        with ir.InsertionPoint.after(last), last.location:
            if self.multicast:
                mask = multicast.consumers_mask(self.info.cluster_ctas)
                self.emit(CommitOp, barrier=empty_s, multicast_mask=mask,
                          reason=f"the MMAs reading stage s of {rings} release it to the "
                                 f"refills of the next round when they complete (empty, "
                                 f"9.7.16.12.1); multicast {mask:#b} to every CTA of the "
                                 f"cluster: each load thread that refills this CTA's "
                                 f"stage (its own, or a multicast's issuer) waits on its "
                                 f"own copy for every consumer")
                return
            self.emit(CommitOp, barrier=empty_s, multicast_mask=self.both(),
                      reason=f"the MMAs reading stage s of {rings} release it to the "
                             f"refill of the next round when they complete (empty, "
                             f"9.7.16.12.1)" + self.both_reason("load thread"))

    def plan_tail(self, load_role, nest, depth, empty, rings, mma_role) -> None:
        """The producer tail: after its loops, the load role waits on each empty_s that
        gets commits for the phase of the last one (``tail_parities``). Nothing else
        waits for those commits, and the ISA does not order the arrivals of two commits
        (9.7.16.12.1: each arrives when the ops before it complete), so without the tail
        an arrival may still be in flight to the shared memory of a CTA that has exited
        (in a pair, the multicast reaches the odd CTA's copy too, and each CTA's load
        role waits on its own)."""
        if empty is None:
            return   # no empty protocol: no commit to drain
        i32 = ir.IntegerType.get_signless(32)
        body = load_role.op.regions[0].blocks[0]
        terminator = body.operations[len(body.operations) - 1]
        if nest.uses is None:
            self.plan_dynamic_tail(nest, depth, empty, rings, mma_role, load_role,
                                   terminator)
            return
        with ir.InsertionPoint(terminator), terminator.location:
            for s, parity in tail_parities(nest.uses, depth):
                empty_s = self.stage(empty, self.constant(s), "empty mbarrier of a stage "
                                                              "that gets commits")
                self.emit(MbarrierWaitOp, barrier=empty_s, phase=_const(parity, i32),
                          reason=f"producer tail: the last commit to empty stage {s} of "
                                 f"{rings} by {mma_role.describe()} has arrived before "
                                 f"{load_role.describe()} reaches the join and the CTA "
                                 f"exits (its phase, parity {parity}; the arrivals of "
                                 f"two commits are not ordered, 9.7.16.12.1)"
                                 + ("; in each CTA of the pair, on its own copy"
                                    if self.pair else ""))

    def plan_dynamic_tail(self, nest, depth, empty, rings, mma_role, load_role,
                          terminator) -> None:
        """The producer tail of a nest whose uses are known at run time only: for each
        stage s, where uses > s, the wait for the parity of its last commit, ``((uses -
        s - 1) / S) & 1`` (``tail_parities`` at run time: the last of its ceil((uses -
        s) / S) commits falls in phase (uses - s - 1) / S)."""
        index, i1 = ir.IndexType.get(), ir.IntegerType.get_signless(1)
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(terminator), terminator.location:
            uses = nest.uses_value(self.constant)
            for s in range(depth):
                # arith.cmpi ugt (predicate 8): the stage gets at least one commit
                gets = ir.Operation.create(
                    "arith.cmpi", results=[i1], operands=[uses, self.constant(s)],
                    attributes={"predicate": ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(64), 8)}).results[0]
                branch = ir.Operation.create("scf.if", results=[], operands=[gets],
                                             regions=2)
                with ir.InsertionPoint(branch.regions[0].blocks.append()):
                    last = _op("arith.subi", [uses, self.constant(s + 1)], index)
                    phase = _op("arith.divui", [last, self.constant(depth)], index) \
                        if depth > 1 else last
                    parity = _op("arith.index_cast", [_op(
                        "arith.andi", [phase, self.constant(1)], index)], i32)
                    empty_s = self.stage(empty, self.constant(s), "empty mbarrier of a "
                                                                  "stage that gets commits")
                    self.emit(MbarrierWaitOp, barrier=empty_s, phase=parity,
                              reason=f"producer tail: the last commit to empty stage {s} "
                                     f"of {rings} by {mma_role.describe()} has arrived "
                                     f"before {load_role.describe()} reaches the join and "
                                     f"the CTA exits (run-time uses: where the stage gets "
                                     f"a commit, the parity of the last, ((uses - {s} - 1) "
                                     f"/ {depth}) & 1; 9.7.16.12.1)"
                                     + ("; in each CTA of the pair, on its own copy"
                                        if self.pair else ""))
                    ir.Operation.create("scf.yield")

    def plan_tiles(self, k_loop, nest, depth, acc_full, acc_empty, acc_name,
                   ld_role) -> None:
        with ir.InsertionPoint(k_loop), k_loop.location:
            j, u = self.position(nest, depth)
            full_j = self.stage(acc_full, j, f"acc_full mbarrier of the stage of "
                                             f"{acc_name} this tile writes")
            if acc_empty is not None:
                empty_j = self.stage(acc_empty, j, "acc_empty mbarrier of the same stage")
                self.emit(MbarrierWaitOp, barrier=empty_j, phase=self.parity(u, 1),
                          reason=f"the tile's first MMA overwrites stage j of {acc_name} "
                                 f"after {ld_role.describe()} drained its previous round "
                                 f"(acc_empty, parity (round + 1) & 1)")
                self.emit(FenceOp, kind="after_thread_sync",
                          reason=f"the MMAs into stage j of {acc_name} ordered after the "
                                 f"epilogue's loads that the wait observed (9.7.16.6.4.4)")
        with ir.InsertionPoint.after(k_loop), k_loop.location:
            self.emit(CommitOp, barrier=full_j, multicast_mask=self.both(),
                      reason=f"the tile's MMAs into stage j of {acc_name} complete before "
                             f"{ld_role.describe()} loads it (acc_full, 9.7.16.6.4.3)"
                             + self.both_reason("epilogue"))

    def plan_epilogue(self, lds, block, nest, depth, acc_full, acc_empty, acc_name,
                      mma_role) -> None:
        first = _top_in(lds[0][1], block)
        last = _top_in(lds[-1][1], block)
        with ir.InsertionPoint(first), first.location:
            j, u = self.position(nest, depth)
            full_j = self.stage(acc_full, j, f"acc_full mbarrier of the stage of "
                                             f"{acc_name} this tile reads")
            empty_j = self.stage(acc_empty, j, "acc_empty mbarrier of the same stage") \
                if acc_empty is not None else None
            self.emit(MbarrierWaitOp, barrier=full_j, phase=self.parity(u, 0),
                      reason=f"tcgen05.ld of stage j of {acc_name} after the tile's MMAs "
                             f"in {mma_role.describe()} (acc_full, parity round & 1)")
            self.emit(FenceOp, kind="after_thread_sync",
                      reason=f"the loads of stage j of {acc_name} ordered after the "
                             f"mbarrier wait (9.7.16.6.4.3)")
        with ir.InsertionPoint.after(last), last.location:
            after = "the stage is released" if empty_j is not None else \
                "the join of the roles and the dealloc after it"
            self.emit(WaitOp, kind="ld",
                      reason=f"the loads of stage j of {acc_name} complete before "
                             f"{after} (9.7.16.6.4.4)")
            self.emit(FenceOp, kind="before_thread_sync",
                      reason=f"the loads of stage j of {acc_name} ordered before "
                             f"{'the arrive' if empty_j is not None else after} "
                             f"(9.7.16.6.4.4)")
            if empty_j is None:
                return   # each stage holds one tile: nothing overwrites it
            self.emit(MbarrierArriveOp, barrier=empty_j,
                      cta=EVEN_CTA if self.pair else None,
                      reason=f"every thread has drained stage j of {acc_name}: the next "
                             f"tile's MMAs in {mma_role.describe()} may overwrite it "
                             f"(acc_empty)"
                             + ("; at the even CTA's copy, where the MMA warp waits (the "
                                "pair's MMAs overwrite both CTAs' lanes)" if self.pair
                                else ""))


def tail_parities(uses: int, stages: int) -> list:
    """(stage, parity) of the producer tail's waits on a ring of `stages` stages used
    `uses` times: stage s gets the commits of uses s, s + S, .., n_s = ceil((uses - s)
    / S) of them (none when s >= uses: a zero-trip loop, or fewer uses than stages, has
    nothing to drain there), the last in phase n_s - 1, so the wait is for parity
    (n_s - 1) & 1 (the in-loop wait's (round + 1) & 1 at round n_s)."""
    tail = []
    for s in range(min(uses, stages)):
        commits = -(-(uses - s) // stages)
        tail.append((s, (commits - 1) & 1))
    return tail
