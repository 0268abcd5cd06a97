"""Completion and ordering: tcgen05.commit and mbarrier waits (9.7.16.12.1), tcgen05.wait
(9.7.16.8.5), tcgen05.fence (9.7.16.11.1), the proxy fence and CTA barriers; and who
issues the single-thread instructions (Table 46).

CTA pairs (cta_group::2). Every CTA of the pair runs the kernel's program. The
single-thread instructions (mma, cp, shift, commit) are issued by thread 0 of the even
CTA only: "Issue from a single thread from the CTA-Pair would initiate the base
operation" (Table 46), and the even CTA is the one whose %cluster_ctarank ends in 0
(9.7.16.5.1). A commit's ``multicast_mask`` says which CTAs' mbarriers it arrives at
(.multicast::cluster with that ctaMask, 9.7.16.12.1); without one it is the plain commit,
which arrives at the mbarrier its address names: the issuing CTA's own, since every
mbarrier address is the executing CTA's shared::cta address. tcgen05-insert-sync writes
mask 0b11 where the waiting consumers run in both CTAs. An mbarrier wait then runs in the
CTAs the commits to its mbarrier arrive at (all commits to one mbarrier must agree,
tcgen05-verify checks it): a CTA whose mbarrier no commit signals would wait forever.
The kernel's CTA barriers become cluster barriers: an MMA issued by the even CTA reads the
peer CTA's shared memory and tensor memory, so what the peer wrote before a barrier must
be ordered before it.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import ir, nvvm
from tcgen05_lower.dialect.ops import (BarrierOp, CommitOp, FenceOp, FenceProxyAsyncOp,
                                       MbarrierArriveOp, MbarrierExpectTxOp, MbarrierStageOp,
                                       MbarrierWaitOp, TmaLoadOp, WaitOp)
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.lowering.core import lowers

#: %cluster_ctarank bits of both CTAs of the pair (9.7.16.5.1).
PAIR_MASK = 0b11


def single_thread_predicate(lowering):
    """The guard of the one thread that issues tcgen05.mma / cp / shift / commit: thread 0
    of the CTA for cta_group::1; thread 0 of the even CTA of the pair for cta_group::2
    (Table 46, 9.7.16.5.1). In a one-warp role whose control flow is warp-uniform at the
    op (``elect_allowed``) it is the lane ``elect.sync`` elects (an ``emit.Elected``,
    ANDed with "even CTA" for a pair): one thread of the CTA (of the pair) all the same,
    and the same one for every instruction so guarded (elect.sync's election is
    deterministic for a mask), so a commit tracks the MMAs before it. ptxas issues such
    an instruction once per warp with no per-instruction vote of a thread-index
    predicate (benchmarks/codegen/REPORT.md). Else an i1 built once per kernel, at its
    entry."""
    if elect_allowed(lowering):
        return emit.Elected(None if lowering.info.cta_group == 1 else even_cta(lowering))
    if lowering.info.cta_group == 1:
        return lowering.is_leader
    # One predicate per leader: the CTA's thread 0, or each role's first thread.
    cache = getattr(lowering, "pair_leaders", None)
    if cache is None:
        cache = lowering.pair_leaders = {}
    leader = lowering.is_leader
    cached = cache.get(leader)
    if cached is not None:
        return cached
    with ir.InsertionPoint.after(leader.owner), lowering.kernel.location:
        cache[leader] = ir.Operation.create(
            "arith.andi", results=[leader.type], operands=[leader, even_cta(lowering)]
        ).results[0]
    return cache[leader]


def even_cta(lowering) -> "ir.Value":
    """The i1 "this CTA is the even CTA of its pair" (9.7.16.5.1), read once at the
    kernel's entry."""
    cached = getattr(lowering, "is_even_cta", None)
    if cached is None:
        entry = lowering.kernel.regions[0].blocks[0]
        with ir.InsertionPoint(entry.operations[0]), lowering.kernel.location:
            # nvvm.read.ptx.sreg.cluster.ctarank: %cluster_ctarank.
            rank = nvvm.ClusterId(i32()).result
            cached = lowering.is_even_cta = emit.cmp_eq(
                (emit.Sym(rank) & 1).value, emit.constant(0, i32()))
    return cached


#: The ops whose issuing thread single_thread_predicate chooses.
SINGLE_THREAD_OPS = ("tcgen05.mma", "tcgen05.cp", "tcgen05.shift", "tcgen05.commit",
                     "tcgen05.tma_load", "tcgen05.mbarrier_expect_tx")


def elect_allowed(lowering) -> bool:
    """Whether the op being lowered may be issued by the lane elect.sync elects: the
    issue option says elect, the op runs in a role of one warp (Table 46 asks for one
    thread of the CTA: elect.sync elects one per warp), and in that role every
    single-thread op is reached by the whole warp together (``_warp_uniform_at``, for
    elect.sync's .sync). Decided once per role, for all its single-thread ops alike: a
    commit must be issued by the thread that issued the MMAs it tracks."""
    if lowering.pass_.option("issue") != "elect":
        return False
    role = lowering.role
    if role is None or role.warps != 1:
        return False
    decided = getattr(lowering, "elect_roles", None)
    if decided is None:
        decided = lowering.elect_roles = {}
    branch = _role_branch(lowering, lowering.current_op)
    if branch is None:
        return False
    if branch not in decided:
        decided[branch] = all(_warp_uniform_at(inner, branch) for inner in
                              d.walk_ops(branch) if inner.name in SINGLE_THREAD_OPS)
    return decided[branch]


def _role_branch(lowering, op):
    """The role's ``scf.if`` (on the role's member predicate) around `op`, or None."""
    parent = op.parent
    while parent is not None:
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent.name == "scf.if" and parent.operands[0] == lowering.role_member:
            return parent
        parent = parent.parent
    return None


def _warp_uniform_at(op, branch) -> bool:
    """Every op between `op` and the role's `branch` is an ``scf.for`` whose bounds are
    constants or kernel arguments: the whole warp reaches `op` together."""
    parent = op.parent
    while parent is not None:
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent == branch:
            return True
        if parent.name != "scf.for" or not all(
                _warp_uniform_value(v) for v in list(parent.operands)[:3]):
            return False
        parent = parent.parent
    return False


def _warp_uniform_value(value) -> bool:
    """A loop bound every thread holds alike: a constant or an argument of the kernel."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        kernel = owner.owner
        return kernel is not None and kernel.name == "func.func" and \
            kernel.regions[0].blocks[0] == owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner.name in ("arith.constant", "llvm.mlir.constant")


def even_cta_rank(lowering) -> "ir.Value":
    """The i32 %cluster_ctarank of the even CTA of this CTA's pair, ``rank - (rank & 1)``
    (9.7.16.5.1), read once at the kernel's entry: where a pair's TMA loads and ``cta =
    "even"`` arrivals signal (docs/cta-pairs.md)."""
    cached = getattr(lowering, "even_rank", None)
    if cached is None:
        entry = lowering.kernel.regions[0].blocks[0]
        with ir.InsertionPoint(entry.operations[0]), lowering.kernel.location:
            rank = emit.Sym(nvvm.ClusterId(i32()).result)
            cached = lowering.even_rank = (rank - (rank & 1)).value
    return cached


def cta_barrier(lowering) -> None:
    """A barrier of the CTA, or of the CTA pair in a cta_group::2 kernel."""
    if lowering.info.cta_group == 2:
        emit.ptx(ptx.cluster_barrier())
    else:
        emit.ptx(ptx.barrier_sync())


#: The CTA of the pair that issues the single-thread instructions: the even one, rank 0.
ISSUING_CTA_MASK = 0b01


def arrival_mask(commit) -> int:
    """The %cluster_ctarank bits of the CTAs whose mbarrier a tcgen05.commit arrives at:
    its multicast_mask, or the issuing CTA's alone for a plain commit (module docstring)."""
    mask = CommitOp(commit).multicast_mask
    return ISSUING_CTA_MASK if mask is None else mask


def even_cta_address(lowering, address: "ir.Value") -> "ir.Value":
    """The i32 shared::cluster address of the variable at shared::cta `address` in the
    even CTA of the pair (``mapa``; the executing CTA's own address there)."""
    return emit.ptx(ptx.mapa("$0", "$1", "$2"), [address, even_cta_rank(lowering)],
                    results=[i32()])[0]


def signals_even_cta(op) -> bool:
    """Whether `op`, in a cta_group::2 kernel, signals the even CTA's mbarrier whatever
    CTA runs it: a TMA load and its expect_tx (both CTAs' loads complete on the even
    CTA's mbarrier, whose one thread expects their bytes) and an ``mbarrier_arrive`` with
    ``cta = "even"`` (docs/cta-pairs.md, "Warp roles and TMA in a CTA pair")."""
    if TmaLoadOp.matches(op) or MbarrierExpectTxOp.matches(op):
        return True
    return MbarrierArriveOp.matches(op) and MbarrierArriveOp(op).cta == EVEN_CTA


#: The ``cta`` of an mbarrier_arrive that arrives at the even CTA of the pair.
EVEN_CTA = "even"


def _users(value):
    for use in value.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        yield owner


def _signal_uses(barrier, lowering=None):
    """The ops that use `barrier`. For a stage of an mbarrier ring (``mbarrier_stage``):
    the ops that use any stage of the ring, since each of a ring's stages is signalled
    alike (tcgen05-insert-sync's rings, docs/cta-pairs.md) and a stage's own value is used
    by one op only. Collected once per ring when `lowering` is given (its cache), so the
    waits of a ring cost one walk of its uses in all: linear in the kernel."""
    stage = defining_op(barrier)
    if stage is None or not MbarrierStageOp.matches(stage):
        return list(_users(barrier))
    ring = MbarrierStageOp(stage).ring
    cache = getattr(lowering, "ring_signals", None)
    if cache is None:
        cache = {}
        if lowering is not None:
            lowering.ring_signals = cache
    found = cache.get(ring)
    if found is None:
        found = cache[ring] = [user for view in _users(ring)
                               if MbarrierStageOp.matches(view)
                               for user in _users(view.results[0])]
    return found


def waiting_ctas(lowering, op) -> int:
    """The CTAs in which an mbarrier wait runs: those that the commits to its mbarrier
    arrive at, the even CTA alone for an mbarrier that a pair's TMA loads, expect_tx or
    ``cta = "even"`` arrivals signal (``signals_even_cta``), both for any other."""
    masks = set()
    for owner in _signal_uses(op.operands[0], lowering):
        if CommitOp.matches(owner):
            masks.add(arrival_mask(owner) & PAIR_MASK)
        elif signals_even_cta(owner):
            masks.add(ISSUING_CTA_MASK)
    if len(masks) > 1:
        lowering.fail(op, f"the ops that signal this wait's mbarrier (tcgen05.commit, TMA "
                          f"loads, arrivals) signal different CTAs (masks "
                          f"{', '.join(map(bin, sorted(masks)))}), so which CTAs wait is "
                          f"ambiguous (9.7.16.12.1)")
    return masks.pop() if len(masks) == 1 else PAIR_MASK


def completed_across_the_pair(barrier, lowering=None) -> bool:
    """Whether the other CTA of the pair takes part in completing `barrier`'s phases
    (a TMA load or a ``cta = "even"`` arrival, which any CTA runs): a wait on it acquires
    at cluster scope."""
    return any(TmaLoadOp.matches(owner) or MbarrierArriveOp.matches(owner)
               and MbarrierArriveOp(owner).cta == EVEN_CTA
               for owner in _signal_uses(barrier, lowering))


def cta_rank_is(lowering, rank: int) -> "ir.Value":
    """The i1 ``%cluster_ctarank & 1 == rank``, built where it is needed."""
    cluster_rank = nvvm.ClusterId(i32()).result
    return emit.cmp_eq((emit.Sym(cluster_rank) & 1).value, emit.constant(rank, i32()))


@lowers(CommitOp)
def lower_commit(lowering, op) -> None:
    """tcgen05.commit by the thread that issued the operations it tracks; with a
    ``multicast_mask`` as .multicast::cluster, else the plain commit."""
    mask = CommitOp(op).multicast_mask
    inputs = [lowering.values[op.operands[0]]]
    if mask is None:
        text = ptx.commit(lowering.info.cta_group, "$0")
    else:
        inputs.append(cluster_relative_mask(lowering, mask))
        text = ptx.commit(lowering.info.cta_group, "$0", cta_mask="$1")
    emit.ptx(text, inputs, predicate=single_thread_predicate(lowering))
    counter = lowering.phase_counters.get(op.operands[0])
    if counter is not None:
        # Every thread counts the commits it passes (control flow around tcgen05 ops is
        # uniform), so each knows the phase a tracked wait is for.
        emit.store((emit.Sym(emit.load_i32(counter)) + 1).value, counter)


def cluster_relative_mask(lowering, mask: int) -> "ir.Value":
    """The i16 ctaMask of a commit's ``multicast_mask``. Its bits name CTAs relative to
    the issuing CTA's pair (its own CTA in a cta_group::1 kernel), rotated within the
    cluster (tcgen05_lower/multicast.py): in a kernel whose cluster is that pair (or CTA)
    it is the mask as written; in a cluster of several pairs, 0b11 is the issuing pair's
    two CTAs and the whole cluster's mask is the whole cluster, whichever pair issues."""
    i16 = ir.IntegerType.get_signless(16)
    ctas, group = lowering.info.cluster_ctas, lowering.info.cta_group
    if ctas <= group:
        return emit.constant(mask, i16)
    rank = Sym(nvvm.ClusterId(i32()).result)
    base = rank - (rank & 1) if group == 2 else rank
    bits = Sym(emit.constant(mask, i32()))
    rotated = ((bits << base) | (bits >> (ctas - base))) & ((1 << ctas) - 1)
    return cast(rotated.value, i16)


def tracked_phase(lowering, op) -> "ir.Value":
    """The parity of the phase the most recent commit to the mbarrier completes:
    (commits counted so far - 1) mod 2, i.e. (count + 1) & 1. With no commit yet that is
    1, the phase before the first, which a fresh mbarrier reports complete
    (try_wait.parity with parity 1 returns true while the current phase is 0)."""
    count = emit.Sym(emit.load_i32(lowering.phase_counters[op.operands[0]]))
    return ((count + 1) & 1).value


@lowers(MbarrierWaitOp)
def lower_mbarrier_wait(lowering, op) -> None:
    """``while (!try_wait.parity(barrier, phase)) {}``, the loop inside the inline PTX
    (as upstream NVVM's mbarrier.try_wait.parity lowers too): no control flow in the IR,
    so nothing for convert-scf-to-cf to split blocks at. Without a phase operand, the
    phase is the one counted at run time."""
    barrier = lowering.values[op.operands[0]]
    phase = op.operands[1] if len(op.operands) > 1 else tracked_phase(lowering, op)
    pair = lowering.info.cta_group == 2
    ctas = waiting_ctas(lowering, op) if pair else PAIR_MASK
    text = (ptx.mbarrier_wait_parity_cluster if pair and completed_across_the_pair(
        op.operands[0], lowering) else ptx.mbarrier_wait_parity)("$0", "$1")
    if ctas == PAIR_MASK:
        emit.ptx(text, [barrier, phase])
        return
    # Only the CTA the commits arrive at waits (module docstring).
    waits = ir.Operation.create("scf.if", results=[], regions=2,
                                operands=[cta_rank_is(lowering, ctas.bit_length() - 1)])
    with ir.InsertionPoint(waits.regions[0].blocks.append()):
        emit.ptx(text, [barrier, phase])
        ir.Operation.create("scf.yield")


@lowers(WaitOp)
def lower_wait(lowering, op) -> None:
    """tcgen05.wait::ld / ::st, executed by every thread that loaded or stored."""
    emit.ptx(ptx.wait(WaitOp(op).kind))


@lowers(FenceOp)
def lower_fence(lowering, op) -> None:
    """tcgen05.fence::*, executed by every thread (Table 46: each thread fences its own
    accesses)."""
    emit.ptx(ptx.fence(FenceOp(op).kind))


@lowers(FenceProxyAsyncOp)
def lower_fence_proxy_async(lowering, op) -> None:
    """fence.proxy.async.shared::cta, executed by every thread."""
    emit.ptx(ptx.fence_proxy_async())


@lowers(BarrierOp)
def lower_barrier(lowering, op) -> None:
    """A barrier of the CTA, of the pair in a cta_group::2 kernel (see the module); in a
    role, the role's named barrier ``barrier.sync id, threads`` (9.7.13.1), which only the
    role's warps take part in (lowering.partitions)."""
    if lowering.role is not None:
        emit.ptx(ptx.barrier_sync(lowering.role.barrier_id, lowering.role.threads))
        return
    cta_barrier(lowering)


@lowers(MbarrierArriveOp)
def lower_mbarrier_arrive(lowering, op) -> None:
    """mbarrier.arrive.release.cta by every thread that runs it: the CTA's threads, or a
    role's (docs/partitions.md); with ``cta = "even"`` (a cta_group::2 kernel), an
    arrival at the mbarrier at the same offset in the even CTA of the pair, released at
    cluster scope (docs/cta-pairs.md)."""
    barrier = lowering.values[op.operands[0]]
    if MbarrierArriveOp(op).cta == EVEN_CTA:
        emit.ptx(ptx.mbarrier_arrive_cluster("$0"), [even_cta_address(lowering, barrier)])
        return
    emit.ptx(ptx.mbarrier_arrive("$0"), [barrier])


#: Bytes of one mbarrier object (PTX ISA 9.7.13.15.1: a 64-bit object, 8-byte aligned).
MBARRIER_BYTES = 8


@lowers(MbarrierStageOp)
def lower_mbarrier_stage(lowering, op) -> None:
    """The address of stage `op.operands[1]` of an mbarrier ring: the ring's address plus
    8 x stage (lowering.core places a ring's stages one after another and initializes
    each at entry). The index is a run-time value; a constant one is range-checked by
    tcgen05-verify, as for smem_stage."""
    view = MbarrierStageOp(op)
    offset = Sym(cast(view.stage, i64())) * MBARRIER_BYTES
    lowering.values[op.results[0]] = emit.gep_bytes(lowering.values[view.ring],
                                                    as_value(offset, i64()))
