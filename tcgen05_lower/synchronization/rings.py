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
from tcgen05_lower import multicast, tma
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, CommitOp, CpOp, FenceOp, LdOp,
                                       MbarrierArriveOp, MbarrierExpectTxOp,
                                       MbarrierStageOp, MbarrierWaitOp, MmaOp, SmemStageOp,
                                       TmaLoadOp, TmemStageOp, WaitOp)
from tcgen05_lower.kernel_ir import (MBARRIER_RING_MAX_STAGES, defining_op, partition_roles,
                                     role_info)
from tcgen05_lower.synchronization.common import (WRITTEN_SYNC, SyncError, constant_value,
                                                  role_accesses)
from tcgen05_lower.synchronization.phases import _const, _op
from tcgen05_lower.synchronization import scale_copies

#: Ops in roles this protocol does not order (located diagnostics).
UNSUPPORTED = ("smem_fill", "shift", "st", "ld_red")
#: %cluster_ctarank bits of both CTAs of a pair (9.7.16.5.1): a commit with this
#: multicast_mask arrives at the mbarrier at the same offset in each (9.7.16.12.1).
BOTH_CTAS = 0b11
#: The CTAs of a pair whose loads complete on the even CTA's full mbarrier.
PAIR_CTAS = 2
#: ``mbarrier_arrive``'s ``cta`` for an arrival at the even CTA's mbarrier.
EVEN_CTA = "even"
#: ``ring-stages`` values: the depth the kernel declares, or the deepest that fits.
KERNEL_STAGES, AUTO_STAGES = "kernel", "auto"


#: What tcgen05-insert-sync's ``ring-stages`` accepts, in words (pass_infra.Option.kind).
RING_STAGES_KIND = (f"kernel, auto or a number of stages from 1 to "
                    f"{MBARRIER_RING_MAX_STAGES}")


def ring_stages_option(text: str) -> str:
    """Parses tcgen05-insert-sync's ``ring-stages``: kernel, auto or a number of stages,
    1 to the most an mbarrier ring has (kernel_ir.MBARRIER_RING_MAX_STAGES); ValueError
    otherwise (pass_infra.parse_option names the option and RING_STAGES_KIND)."""
    if text in (KERNEL_STAGES, AUTO_STAGES) or \
            (text.isdigit() and 1 <= int(text) <= MBARRIER_RING_MAX_STAGES):
        return text
    raise ValueError("")


#: Value ops the stage proof reads through (the index's own type changes).
CASTS = ("arith.index_cast", "arith.index_castui")


def has_tma_roles(partitions) -> bool:
    """Whether a role of `partitions` issues TMA loads (then this module plans it)."""
    return any(TmaLoadOp.matches(op) for role in partition_roles(partitions)
               for op in d.walk_ops(role))


class Nest:
    """The scf.for loops around a block inside its role (outermost first);
    ``weights[l]`` is the product of the trip counts of the loops inside loop l, so that
    the block's linear iteration counter is ``sum weights[l] * i_l``. A loop's bounds
    are constants, or values defined outside the nest's loops (kernel arguments, values
    computed before the loops): then its trip count is known at run time only
    (``dynamic``; ``trips[l]``, ``weights`` and ``uses`` are None where they depend on
    it) and the counter is computed from the bound values."""

    def __init__(self, block, role_op, what: str):
        loops = []
        owner = block.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        while owner != role_op:
            if owner.name != "scf.for":
                raise SyncError(owner, f"tcgen05-insert-sync: this {owner.name} holds "
                                       f"{what} inside its role; the ring protocol follows "
                                       f"ops in scf.for loops only")
            loops.append(owner)
            owner = owner.block.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
        self.loops = loops[::-1]
        self.bounds = []
        self.values = []
        for loop in self.loops:
            bounds = tuple(constant_value(loop.operands[i]) for i in range(3))
            if bounds[2] is not None and bounds[2] <= 0:
                raise SyncError(loop, f"tcgen05-insert-sync: the loop around {what} has "
                                      f"the step {bounds[2]}; the ring protocol counts "
                                      f"the uses of a stage of loops of positive step")
            for i, bound in enumerate(bounds):
                if bound is None:
                    self.check_outside(loop, loop.operands[i], what)
            self.bounds.append(bounds)
            self.values.append(tuple(loop.operands[i] for i in range(3)))
        self.trips = [None if None in b else max(0, -(-(b[1] - b[0]) // b[2]))
                      for b in self.bounds]
        self.dynamic = None in self.trips
        self.weights = []
        for level in range(len(self.loops)):
            weight = 1
            for trips in self.trips[level + 1:]:
                weight = None if weight is None or trips is None else weight * trips
            self.weights.append(weight)
        self.uses = 1
        for trips in self.trips:
            self.uses = None if self.uses is None or trips is None else self.uses * trips

    @property
    def provable(self) -> bool:
        """Whether the kernel's stage indices can be proven (``prove_stage``) although a
        trip count is known at run time only: every weight is a constant (the run-time
        loop is the outermost one, or every loop inside it has a constant count) and
        every lower bound and step is a constant, so a use's counter is an affine form
        of the induction variables with constant coefficients."""
        return all(w is not None for w in self.weights) and \
            all(lb is not None and step is not None for lb, _, step in self.bounds)

    def check_outside(self, loop, value, what: str) -> None:
        """A run-time bound must be defined outside the nest's loops: the counter and
        the producer tail after the loops compute the trip counts from it."""
        inside = defining_op(value)
        block = inside.block if inside is not None else value.owner
        while block is not None:
            parent = block.owner
            parent = parent.operation if hasattr(parent, "operation") else parent
            if parent is None or parent.name == "func.func":
                return
            if any(parent == loop_op for loop_op in self.loops) or parent == loop:
                raise SyncError(loop, f"tcgen05-insert-sync: a bound of the loop around "
                                      f"{what} is computed inside the loops around it; "
                                      f"the ring protocol counts uses from bounds "
                                      f"defined before the loops (constants, kernel "
                                      f"arguments or values computed before them)")
            block = parent.block

    def describe(self) -> str:
        def show(b):
            return "?" if b is None else str(b)
        return "[" + ", ".join(f"{show(lb)} to {show(ub)} step {show(step)}"
                               for lb, ub, step in self.bounds) + "]" \
            if self.loops else "[no loop]"

    def same_structure(self, other: "Nest") -> bool:
        """The same trip counts: equal constants, or the same bound values."""
        if len(self.loops) != len(other.loops):
            return False
        for mine, theirs, my_values, their_values in zip(self.bounds, other.bounds,
                                                          self.values, other.values):
            for a, b, va, vb in zip(mine, theirs, my_values, their_values):
                if a is None or b is None:
                    if not (a is None and b is None and va == vb):
                        return False   # a run-time bound only matches itself
                elif a != b:
                    return False
        return True

    def trip_value(self, level: int, constant):
        """The trip count of loop `level` as an index value at the insertion point:
        ceil((max(ub, lb) - lb) / step)."""
        if self.trips[level] is not None:
            return constant(self.trips[level])
        index = ir.IndexType.get()
        lb, ub, step = self.values[level]
        top = _op("arith.maxsi", [ub, lb], index)
        span = _op("arith.subi", [top, lb], index)
        return _op("arith.ceildivsi", [span, step], index)

    def uses_value(self, constant):
        """The nest's number of uses (the product of its trip counts) as an index
        value at the insertion point."""
        index = ir.IndexType.get()
        total = None
        for level in range(len(self.loops)):
            trips = self.trip_value(level, constant)
            total = trips if total is None else _op("arith.muli", [total, trips], index)
        return total if total is not None else constant(1)

    def counter(self, constant):
        """The linear iteration counter (index) at the current insertion point;
        `constant(n)` gives an index constant."""
        if self.dynamic and not self.provable:
            return self.dynamic_counter(constant)
        index = ir.IndexType.get()
        total = None
        for loop, (lb, _, step), trips, weight in zip(self.loops, self.bounds, self.trips,
                                                      self.weights):
            if trips is not None and trips <= 1:
                continue   # (a run-time count, None, may be more than one)
            i = loop.regions[0].blocks[0].arguments[0]
            if lb:
                i = _op("arith.subi", [i, constant(lb)], index)
            if step != 1:
                i = _op("arith.divui", [i, constant(step)], index)
            if weight != 1:
                i = _op("arith.muli", [i, constant(weight)], index)
            total = i if total is None else _op("arith.addi", [total, i], index)
        return total if total is not None else constant(0)

    def dynamic_counter(self, constant):
        """``counter`` of a nest with run-time trip counts: the weights are products of
        trip counts computed from the bound values at the insertion point."""
        index = ir.IndexType.get()
        total = None
        for level, (loop, (lb, _, step), trips) in enumerate(zip(self.loops, self.bounds,
                                                                 self.trips)):
            if trips is not None and trips <= 1:
                continue
            lb_value, _, step_value = self.values[level]
            i = loop.regions[0].blocks[0].arguments[0]
            if lb != 0:
                i = _op("arith.subi", [i, constant(lb) if lb is not None else lb_value],
                        index)
            if step != 1:
                i = _op("arith.divui", [i, constant(step) if step is not None
                                        else step_value], index)
            weight = None
            for inner in range(level + 1, len(self.loops)):
                if self.trips[inner] == 1:
                    continue
                trips_value = self.trip_value(inner, constant)
                weight = trips_value if weight is None else \
                    _op("arith.muli", [weight, trips_value], index)
            if weight is not None:
                i = _op("arith.muli", [i, weight], index)
            total = i if total is None else _op("arith.addi", [total, i], index)
        return total if total is not None else constant(0)


class Affine:
    """Index values as affine forms of loop induction variables: ({iv: coefficient},
    constant), or None when a value is not one (memoized: one visit per value)."""

    def __init__(self):
        self.memo: dict = {}

    def form(self, value):
        if value in self.memo:
            return self.memo[value]
        self.memo[value] = None   # (no cycles in SSA; guards a malformed input)
        result = self._form(value)
        self.memo[value] = result
        return result

    def _form(self, value):
        op = defining_op(value)
        if op is None:
            block = value.owner
            parent = block.owner
            parent = parent.operation if hasattr(parent, "operation") else parent
            if parent is not None and parent.name == "scf.for" and value.arg_number == 0:
                return ({value: 1}, 0)
            return None
        constant = constant_value(value)
        if constant is not None:
            return ({}, constant)
        if op.name in CASTS:
            return self.form(op.operands[0])
        if op.name in ("arith.addi", "arith.subi"):
            left, right = self.form(op.operands[0]), self.form(op.operands[1])
            if left is None or right is None:
                return None
            sign = 1 if op.name == "arith.addi" else -1
            terms = dict(left[0])
            for iv, c in right[0].items():
                terms[iv] = terms.get(iv, 0) + sign * c
            return ({iv: c for iv, c in terms.items() if c}, left[1] + sign * right[1])
        if op.name == "arith.muli":
            left, right = self.form(op.operands[0]), self.form(op.operands[1])
            if left is None or right is None:
                return None
            if left[0] and right[0]:
                return None
            scale, other = (right[1], left) if not right[0] else (left[1], right)
            return ({iv: c * scale for iv, c in other[0].items() if c * scale},
                    other[1] * scale)
        return None


def prove_stage(affine: Affine, index_value, stages: int, nest: Nest, user_op,
                what: str) -> None:
    """Proves that `index_value` equals (the nest's counter) mod `stages` at every
    iteration of `nest` (module docstring), else raises SyncError at `user_op`.

    With ``it = sum a_l i_l`` and ``iv_l = lb_l + step_l i_l``: an index
    ``remui(X, S)``, X affine ``sum k_l iv_l + k_0 = sum c_l i_l + c`` with
    ``c_l = k_l step_l``, is it mod S at every iteration iff every loop of more than one
    trip has ``c_l - a_l = 0 (mod S)``, every other induction variable of more than one
    trip has a zero coefficient, ``c = 0 (mod S)``, and X >= 0 on the domain (remui's
    operand is unsigned). An affine index without the remainder must equal it mod S
    itself: where the loops whose weight is not a multiple of S span less than S uses,
    ``it mod S = sum over them of a_l i_l`` exactly."""
    loops = {loop.regions[0].blocks[0].arguments[0]: level
             for level, loop in enumerate(nest.loops)}

    defined = defining_op(index_value)
    where = f" (the value defined at {_where(defined)})" if defined is not None else ""

    def fail(detail: str):
        raise SyncError(user_op, f"tcgen05-insert-sync: cannot prove that the stage index "
                                 f"of {what}{where} is the ring's use counter mod {stages} in the "
                                 f"loops around it {nest.describe()}: {detail}; write it "
                                 f"as arith.remui(<the linear iteration counter of those "
                                 f"loops>, {stages})")

    if stages == 1:
        value = constant_value(index_value)
        if value != 0:
            fail(f"a single stage is stage 0, and the index is "
                 f"{'not a constant' if value is None else value}")
        return
    op = defining_op(index_value)
    modular = op is not None and op.name in ("arith.remui", "arith.remsi")
    if modular:
        divisor = constant_value(op.operands[1])
        if divisor != stages:
            fail(f"the remainder is taken by {divisor if divisor is not None else 'a value'}"
                 f", not by the ring's {stages} stages")
        form = affine.form(op.operands[0])
    else:
        form = affine.form(index_value)
    if form is None:
        fail("the index is not an affine function of the loops' induction variables "
             "(constants, addi, subi, muli by a constant)")
    terms, constant = form
    coefficient = [0] * len(nest.loops)
    for iv, c in terms.items():
        level = loops.get(iv)
        if level is None:
            owner = iv.owner.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            if constant_trip_count_of(owner) == 1:
                continue
            fail("it varies with the induction variable of a loop that does not count "
                 "the ring's uses")
        coefficient[level] = c * nest.bounds[level][2]
        constant += c * nest.bounds[level][0]
    # a run-time trip count (None, Nest.provable) may be more than one
    live = [level for level in range(len(nest.loops))
            if nest.trips[level] is None or nest.trips[level] > 1]
    if modular:
        for level in live:
            if (coefficient[level] - nest.weights[level]) % stages:
                fail(f"one iteration of the loop at depth {level} (a counter step of "
                     f"{nest.weights[level]}) moves the index by {coefficient[level]}, "
                     f"not the same mod {stages}")
        if constant % stages:
            fail(f"the first use has index {constant} mod {stages}, not 0")
        for level in live:
            if nest.trips[level] is None and coefficient[level] < 0:
                fail(f"the remainder's operand falls by {-coefficient[level]} per "
                     f"iteration of the loop at depth {level}, whose trip count is known "
                     f"at run time only")
        low = constant + sum(min(0, coefficient[level] * (nest.trips[level] - 1))
                             for level in live if nest.trips[level] is not None)
        if low < 0:
            fail(f"the remainder's operand reaches {low} < 0")
        return
    wrapping = [level for level in live if nest.weights[level] % stages]
    if any(nest.trips[level] is None for level in wrapping):
        fail("the uses it counts without a remainder include a loop whose trip count "
             "is known at run time only")
    span = sum(nest.weights[level] * (nest.trips[level] - 1) for level in wrapping)
    if span >= stages:
        fail(f"the uses it counts without a remainder span {span + 1} > {stages} stages")
    for level in live:
        want = nest.weights[level] if level in wrapping else 0
        if coefficient[level] != want:
            fail(f"one iteration of the loop at depth {level} moves the index by "
                 f"{coefficient[level]}, not {want}")
    if constant:
        fail(f"the first use has index {constant}, not 0")


def constant_trip_count_of(loop) -> int | None:
    if loop is None or loop.name != "scf.for":
        return None
    bounds = tuple(constant_value(loop.operands[i]) for i in range(3))
    if None in bounds or bounds[2] <= 0:
        return None
    return max(0, -(-(bounds[1] - bounds[0]) // bounds[2]))


def _top_in(op, block):
    """The ancestor of `op` (or `op`) whose block is `block`, else None."""
    while op is not None and op.block != block:
        parent = op.parent
        if parent is None or parent.name == "func.func":
            return None
        op = parent.operation if hasattr(parent, "operation") else parent
    return op


def _blocks_up(op, role_op) -> list:
    """The blocks around `op` up to its role's body, outermost first."""
    blocks = []
    current = op
    while True:
        block = current.block
        blocks.append(block)
        parent = block.owner
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent == role_op:
            return blocks[::-1]
        current = parent


class RingPlan:
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

    # -- ring depth (option ring-stages) -----------------------------------------------------

    def choose_depth(self, loaded, depth: int, nest: Nest) -> int:
        """The rings' depth: the kernel's, the option's number, or (auto) the deepest, at
        most the rings' uses, whose tiles and the kernel's other shared-memory tiles fit
        the dynamic shared memory a CTA may use, placed as the lowering places them (in
        program order, each on a TILE_ALIGNMENT boundary, lowering/smem.py)."""
        if self.ring_stages == KERNEL_STAGES:
            return depth
        if self.ring_stages != AUTO_STAGES:
            return int(self.ring_stages)
        from tcgen05_lower.lowering.smem import (MAX_DYNAMIC_SMEM, TILE_ALIGNMENT,
                                                 stage_bytes, tile_bytes)
        from tcgen05_lower.dialect.ops import SmemBufferOp

        tiles = [op for op in d.walk_ops(self.kernel) if SmemBufferOp.matches(op)]

        def needed(stages: int) -> int:
            total = 0
            for op in tiles:
                value = op.results[0]
                t = d.type_info(value.type)
                size = stages * stage_bytes(t) if value in loaded else tile_bytes(t)
                total = -(-total // TILE_ALIGNMENT) * TILE_ALIGNMENT + size
            return total

        per_set = sum(stage_bytes(d.type_info(ring.type)) for ring in loaded)
        best = 0
        most = MAX_DYNAMIC_SMEM // per_set
        for stages in range(1, min(nest.uses if nest.uses is not None else most,
                                   most, MBARRIER_RING_MAX_STAGES) + 1):
            if needed(stages) <= MAX_DYNAMIC_SMEM:
                best = stages
        if best == 0:
            first = next(iter(loaded.values()))[0][0]
            raise SyncError(first, f"tcgen05-insert-sync{{ring-stages=auto}}: not even one "
                                   f"stage of the rings fits the {MAX_DYNAMIC_SMEM} bytes "
                                   f"of dynamic shared memory with the kernel's other "
                                   f"tiles")
        return best

    def retype_rings(self, loaded, stages: int, load_nest, mma_nest, load_block,
                     mma_block) -> None:
        """Makes every loaded ring `stages` deep and gives each of its smem_stage ops the
        stage the counters give (the kernel's index, proven for the declared depth, is
        not the stage of another depth). A stage view outside the block of the loads or
        of the MMAs is refused."""
        nests = {id(load_block): load_nest, id(mma_block): mma_nest}
        blocks = {id(load_block): load_block, id(mma_block): mma_block}
        for ring in loaded:
            t = d.type_info(ring.type)
            ring.set_type(ir.Type.parse(d.SmemType((stages, t.rows, t.k), t.element, t.major,
                                                   t.swizzle).text()))
            for use in list(ring.uses):
                view = use.owner.operation if hasattr(use.owner, "operation") else use.owner
                if not SmemStageOp.matches(view):
                    continue
                key = next((k for k, b in blocks.items() if view.block == b), None)
                if key is None:
                    raise SyncError(view, f"tcgen05-insert-sync{{ring-stages="
                                          f"{self.ring_stages}}}: this stage of "
                                          f"{self.names.get(ring, 'a ring')} is taken outside "
                                          f"the block of its TMA loads and of its MMAs, where "
                                          f"the pass cannot give it the stage of a ring of "
                                          f"{stages}")
                with ir.InsertionPoint(view), view.location:
                    counter = nests[key].counter(self.constant)
                    stage = _op("arith.remui", [counter, self.constant(stages)],
                                ir.IndexType.get()) if stages > 1 else self.constant(0)
                view.operands[1] = stage

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

    def emit(self, cls, **fields):
        op = cls.build(**fields)
        self.added.append(op)
        return op

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
                empty_j = self.stage(acc_empty, j, f"acc_empty mbarrier of the same stage")
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
            empty_j = self.stage(acc_empty, j, f"acc_empty mbarrier of the same stage") \
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


def _where(op) -> str:
    from tcgen05_lower.bindings import file_location

    line = file_location(op.location)[1]
    return f"line {line}" if line is not None else "an unknown line"


def plan_rings(kernel, partitions, strategy: str, names: dict,
               ring_stages: str = KERNEL_STAGES) -> tuple[list, list]:
    """Inserts the ring protocol of `partitions` (with the rings `ring_stages` deep:
    ``RingPlan.choose_depth``); returns the added ops (each with its ``reason``) and the
    mbarrier rings created, as (arrival count, purpose)."""
    plan = RingPlan(kernel, partitions, strategy, names, ring_stages)
    return plan.run(), plan.barriers
