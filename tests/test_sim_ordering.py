"""The simulator's ordering model (tcgen05_lower/sim/ordering.py) driven directly with
small fake operations. Each verdict comes from the PTX ISA text: the canonical patterns of
9.7.16.6.4 are race-free, and each loses that when one of its parts is deleted; the
pipelined pairs of 9.7.16.6.2 need no wait; mbarrier phases follow PTX's parity rule;
allocation follows 9.7.16.7.1."""

from dataclasses import dataclass, field

import numpy as np
import pytest

from tcgen05_lower.sim.ordering import OrderingModel
from tcgen05_lower.sim.state import CtaMemory, Footprint, SimError

MBAR = 64


def cells(lanes, cols):
    mask = np.zeros((128, 512), bool)
    mask[lanes, cols] = True
    return mask


@dataclass
class FakeOp:
    kind: str
    footprint: Footprint
    accumulator: tuple | None = None
    performed: list = field(default_factory=list)

    def perform(self, ctas):
        self.performed.append(True)


def mma(acc=(0, 0, 128, 64, 1), cols=slice(0, 64), smem=None):
    fp = Footprint(tmem_writes={0: cells(slice(0, 128), cols)})
    if smem is not None:
        fp.smem_reads[0] = np.asarray(smem, np.int64)
    return FakeOp("mma", fp, acc)


def ld(lanes=slice(0, 32), cols=slice(0, 32)):
    return FakeOp("ld", Footprint(tmem_reads={0: cells(lanes, cols)}))


def cp(cols):
    return FakeOp("cp", Footprint(tmem_writes={0: cells(slice(0, 128), cols)}))


def model(schedule="late"):
    m = OrderingModel([CtaMemory(0, np.zeros(2048, np.uint8))], 128, schedule)
    m.alloc(np.arange(32), 0, 512, 1, line=1)
    m.mbarrier_init(0, 0, MBAR, 1, line=2)
    m.mbarrier_init(0, 0, 128, 32, line=2)
    everyone = np.arange(128)
    m.fence(everyone, "before_thread_sync", 3)
    m.barrier(everyone, 4)
    m.fence(everyone, "after_thread_sync", 5)
    return m


def mma_then_ld(skip=()):
    """9.7.16.6.4.4, Example 2 (completion through commit and an mbarrier): thread 0
    issues the MMA and commits; thread 32 waits, fences and loads."""
    m = model()
    m.issue(0, mma(), 10)
    if "commit" not in skip:
        m.commit(0, 0, MBAR, 1, 11)
    if "wait" not in skip:
        while not m.mbarrier_try_wait_parity(32, 0, MBAR, 0, 12):
            assert m.progress()
    if "after_thread_sync" not in skip:
        m.fence(np.array([32]), "after_thread_sync", 13)
    m.issue(32, ld(slice(32, 64)), 14)
    return m


def test_commit_wait_fence_orders_mma_before_ld():
    assert mma_then_ld().races == []


def test_without_the_commit_the_wait_never_succeeds():
    m = model()
    m.issue(0, mma(), 10)
    assert not m.mbarrier_try_wait_parity(32, 0, MBAR, 0, 12)
    assert not m.progress()        # nothing pending: the executor reports a deadlock


@pytest.mark.parametrize("part", ["wait", "after_thread_sync"])
def test_without_each_part_the_ld_races_with_the_mma(part):
    races = mma_then_ld(skip={part}).races
    assert races and "PTX line 10" in races[0].message and races[0].ptx_line == 14


def ld_then_mma(skip=()):
    """9.7.16.6.4.4, Example 1: warp 1 loads, waits, fences and arrives; thread 0 waits,
    fences and issues the MMA that overwrites the cells."""
    m = model()
    warp = np.arange(32, 64)
    m.issue(32, ld(slice(32, 64)), 20)
    if "wait::ld" not in skip:
        m.wait(warp, "ld", 21)
    if "before_thread_sync" not in skip:
        m.fence(warp, "before_thread_sync", 22)
    bar = 128
    for t in warp:
        m.mbarrier_arrive(int(t), 0, bar, 1, 24)
    assert m.mbarrier_try_wait_parity(0, 0, bar, 0, 25)
    m.fence(np.array([0]), "after_thread_sync", 26)
    m.issue(0, mma(), 27)
    return m


def test_wait_ld_fence_arrive_orders_ld_before_mma():
    assert ld_then_mma().races == []


@pytest.mark.parametrize("part", ["wait::ld", "before_thread_sync"])
def test_without_each_part_the_mma_races_with_the_ld(part):
    races = ld_then_mma(skip={part}).races
    assert races and "PTX line 20" in races[0].message


def test_mma_mma_on_the_same_accumulator_is_a_pipelined_pair():
    m = model()
    m.issue(0, mma(), 30)
    m.issue(0, mma(), 31)                            # 9.7.16.6.2, pair 1
    assert m.races == []


def test_mma_on_another_accumulator_over_the_same_cells_is_not():
    m = model()
    m.issue(0, mma(acc=(0, 0, 128, 64, 1)), 30)
    m.issue(0, mma(acc=(0, 0, 128, 32, 1), cols=slice(0, 32)), 31)
    assert m.races and "PTX line 30" in m.races[0].message


def test_cp_then_cp_on_the_same_cells_needs_ordering_but_disjoint_cells_do_not():
    m = model()
    m.issue(0, cp(slice(0, 4)), 40)
    m.issue(0, cp(slice(4, 8)), 41)                  # disjoint: no dependence
    assert m.races == []
    m.issue(0, cp(slice(2, 6)), 42)                  # cp -> cp is not pipelined
    assert m.races and m.races[0].ptx_line == 42


def test_cp_then_mma_is_pipelined_in_one_thread():
    m = model()
    m.issue(0, cp(slice(0, 64)), 40)
    m.issue(0, mma(), 41)                            # 9.7.16.6.2, pair 2
    assert m.races == []


def test_async_read_of_ordinary_stores_needs_the_proxy_fence_and_the_barrier():
    for fence, barrier, racy in [(True, True, False), (False, True, True), (True, False, True)]:
        m = model()
        m.smem_access(np.array([5]), np.array([0]), np.array([256]), 16, True, 50)
        if fence:
            m.fence(np.array([5]), "proxy_async", 51)
        if barrier:
            m.barrier(np.arange(128), 52)
        m.issue(0, mma(smem=np.arange(256, 272)), 53)
        assert bool(m.races) == racy, (fence, barrier)


def test_late_schedule_performs_at_progress_eager_at_issue():
    late, eager = model("late"), model("eager")
    ops = [mma(), mma()]
    late.issue(0, ops[0], 1)
    eager.issue(0, ops[1], 1)
    assert ops[0].performed == [] and ops[1].performed == [True]
    late.commit(0, 0, MBAR, 1, 2)
    assert not late.mbarrier_try_wait_parity(0, 0, MBAR, 0, 3)
    assert late.progress() and ops[0].performed == [True]
    assert late.mbarrier_try_wait_parity(0, 0, MBAR, 0, 4)


def test_mbarrier_parity_follows_the_phase():
    m = model()
    m.mbarrier_init(0, 0, 256, 2, 1)
    assert not m.mbarrier_try_wait_parity(0, 0, 256, 0, 2)   # phase 0 not complete
    assert m.mbarrier_try_wait_parity(0, 0, 256, 1, 2)       # the phase "before" 0
    m.mbarrier_arrive(0, 0, 256, 1, 3)
    assert not m.mbarrier_try_wait_parity(0, 0, 256, 0, 4)
    m.mbarrier_arrive(1, 0, 256, 1, 5)
    assert m.mbarrier_try_wait_parity(0, 0, 256, 0, 6)
    assert not m.mbarrier_try_wait_parity(0, 0, 256, 1, 7)   # phase 1 is current


def test_allocation_rules_of_9_7_16_7_1():
    m = OrderingModel([CtaMemory(0, np.zeros(64, np.uint8))], 128)
    with pytest.raises(SimError, match="power of 2"):
        m.alloc(np.arange(32), 0, 48, 1, 1)
    base = m.alloc(np.arange(32), 0, 64, 1, 2)
    m.dealloc(np.arange(32), 0, base, 64, 1, 3)
    with pytest.raises(SimError, match="not allocated"):
        m.dealloc(np.arange(32), 0, base, 64, 1, 4)
    m.alloc(np.arange(32), 0, 32, 1, 5)
    m.relinquish(np.arange(32), 0, 1, 6)
    with pytest.raises(SimError, match="relinquish"):
        m.alloc(np.arange(32), 0, 32, 1, 7)
    assert any("still allocated" in p for p in m.finish(8))


def mma_then_cp_through_a_third_thread(skip=()):
    """The chain of a ring whose MMA thread reuses a TMEM stage (examples/
    ws_gemm_mxf8_blockscaled.mlir): thread 0's MMA reads cells, thread 0 commits to an
    mbarrier; thread 32 (the load thread, which issues no tcgen05 op) waits on it and
    arrives on a second one; thread 0 waits on that, fences after_thread_sync and copies
    into the cells. Per 9.7.16.6.3 the MMA is ordered before the commit's arrive (its
    implicit before_thread_sync), the arrive before thread 32's wait, that wait before
    thread 32's arrive (program order, release), that arrive before thread 0's wait, and
    the wait before the cp (after_thread_sync): causality order is transitive, so the
    copy is ordered after the MMA's completion."""
    second = 256
    m = OrderingModel([CtaMemory(0, np.zeros(2048, np.uint8))], 128, "late")
    m.alloc(np.arange(32), 0, 512, 1, line=1)
    m.mbarrier_init(0, 0, MBAR, 1, line=2)
    m.mbarrier_init(0, 0, second, 1, line=2)
    everyone = np.arange(128)
    m.fence(everyone, "before_thread_sync", 3)
    m.barrier(everyone, 4)
    m.fence(everyone, "after_thread_sync", 5)
    m.issue(0, mma(cols=slice(100, 104)), 10)
    m.commit(0, 0, MBAR, 1, 11)
    while not m.mbarrier_try_wait_parity(32, 0, MBAR, 0, 12):
        assert m.progress()
    if "relay" not in skip:
        m.mbarrier_arrive(32, 0, second, 1, 13)
        assert m.mbarrier_try_wait_parity(0, 0, second, 0, 14)
    if "after_thread_sync" not in skip:
        m.fence(np.array([0]), "after_thread_sync", 15)
    m.issue(0, cp(slice(100, 104)), 16)
    return m


def test_a_commit_relayed_by_a_thread_without_tcgen05_fences_orders_the_cp():
    # Before the relay forwarded acquired tcgen05 knowledge, this was a race.
    assert mma_then_cp_through_a_third_thread().races == []


@pytest.mark.parametrize("part", ["relay", "after_thread_sync"])
def test_without_the_relay_or_the_fence_the_cp_races_with_the_mma(part):
    races = mma_then_cp_through_a_third_thread(skip={part}).races
    assert races and "PTX line 10" in races[0].message and races[0].ptx_line == 16


def later_commit(order: str):
    """Thread 0 issues two MMAs into disjoint columns, O (0-63) and S (64-127), each
    followed by a commit to its own mbarrier (o_done at MBAR, s_full at 256), in `order`;
    thread 32 waits on s_full, fences after_thread_sync, loads S, then waits on o_done
    with no fence after it and loads O (the softmax of the hand-written ping-pong form
    of examples/ws_attention_fwd_bf16.mlir, tests/kernels/ws_attention_gen.py)."""
    m = model()
    m.mbarrier_init(0, 0, 256, 1, line=6)
    everyone = np.arange(128)
    m.barrier(everyone, 7)
    mmas = {"O": (mma(acc=(0, 0, 128, 64, 1), cols=slice(0, 64)), MBAR),
            "S": (mma(acc=(0, 64, 128, 64, 1), cols=slice(64, 128)), 256)}
    for line, name in zip((10, 12), order):
        op, bar = mmas[name]
        m.issue(0, op, line)
        m.commit(0, 0, bar, 1, line + 1)
    while not m.mbarrier_try_wait_parity(32, 0, 256, 0, 14):
        assert m.progress()
    m.fence(np.array([32]), "after_thread_sync", 15)
    m.issue(32, ld(slice(32, 64), slice(64, 96)), 16)
    while not m.mbarrier_try_wait_parity(32, 0, MBAR, 0, 17):
        assert m.progress()
    m.issue(32, ld(slice(32, 64), slice(0, 32)), 18)
    return m


def test_a_later_commit_orders_every_earlier_mma_of_its_thread():
    """9.7.16.12.1: a commit tracks all prior asynchronous tcgen05 ops of its thread, so
    the commit to s_full after O's MMA and the fence after its wait order the load of O
    (9.7.16.6.3): the wait on o_done needs no fence of its own."""
    assert later_commit("OS").races == []


def test_an_earlier_commit_does_not_order_a_later_mma():
    """S committed before O's MMA is issued: the fence after the wait on s_full orders
    nothing of O, and without a fence after the wait on o_done (9.7.16.6.4.4) the load of
    O races with its MMA."""
    races = later_commit("SO").races
    assert races and races[0].ptx_line == 18 and "PTX line 12" in races[0].message
