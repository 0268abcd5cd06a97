"""The attention example's correction-warpgroup variant (tests/kernels/ws_attention_gen.py
option `correction`, FlashAttention-4: warps 12-15 rescale O_t in tensor memory and write
O_t / l; softmax t hands alpha and l over in C_t, a [128, 2] f32 alias on S_t's columns
32-33) with no synchronization written: tcgen05-insert-sync{strategy=handoffs} plans it,
per tile a ring of three roles, MMA -> softmax t -> correction -> MMA
(tcgen05_lower/synchronization/role_rings.py).

Expected values: examples/ws_attention_fwd_bf16.check.py (the online-softmax recurrence
in float64 with P rounded to bf16, NumPy only) in tcgen05-sim; the op counts by hand from
role_rings.py's table (below); tcgen05-verify-sync for the protocol and for each deletion.
The hand-written form's tests are tests/test_ws_attention.py's (correction_kernel)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sim_checks import assert_matches, judge, run
from test_sync_common import deletion_mutants, plan, verify
from test_ws_attention import INSERTED, LOW, NAME, SELECT, _unseen_by_the_simulator, check_file

sys.path.insert(0, str(Path(__file__).parent / "kernels"))
from ws_attention_gen import THRESHOLD, generate  # noqa: E402


def planned_correction(d: int = 64, rescale: str = "conditional",
                       threshold: float = THRESHOLD) -> str:
    """The correction variant whose synchronization strategy=handoffs writes (NAME's pass
    options, conftest.EXAMPLE_PASS_OPTIONS)."""
    return generate(d, 2, planned_loads=True, rescale=rescale, threshold=threshold,
                    p_over_s=True, correction=True, planned_handoffs=True)


def ring_ops(halves: int) -> dict:
    """The ops strategy=handoffs writes for the variant with `halves` 64-wide halves of O,
    counted by hand from role_rings.py's table: the 10 of the TMA loads (INSERTED) and per
    tile t (two):
    - the MMA role (first of the ring): a commit after S_t of block 0 (no wait: the first
      turn of all); in its loop a wait + fence before P_t V_j and a commit after S_t of
      block j + 1; after it a wait + fence and a commit (3 commits, 2 waits, 2 fences);
      its own order of S_t after P_t V_j (mma_hazards.py): a commit, a wait and a fence;
    - softmax t: before block j a wait + fence (it loads S_t, which the MMA wrote); after
      it wait::st, fence::before_thread_sync and an arrival (its loads were waited for:
      wait::ld before it stores P_t over S_t and before it stores alpha over the column of
      C_t it loaded, thread_order.py); before its epilogue (l into C_t's column 1) a wait
      and no fence (the turns since its last one, the MMA's P_t V_(n-1) and the
      correction's block n - 1, touch P_t's columns 0-31, alpha's column 32 and O_t, none
      of column 33), a wait::ld before the store of l, after it wait::st, fence and an
      arrival (2 waits, 1 fence, 3 wait::ld, 2 wait::st, 2 fence::before, 2 arrivals);
    - the correction: before block j a wait + fence, after it wait::ld (the load of alpha
      is still in flight when the warp skips the rescaling), wait::st, fence::before and
      an arrival, a wait::ld per half of O between its load and store of the same columns;
      before its epilogue (the last turn of all, no signal) a wait + fence (2 waits, 2
      fences, 1 + halves wait::ld, 1 wait::st, 1 fence::before, 1 arrival);
    and the correction role's end: wait::ld + fence::before (its last loads of O), the
    fence after the partitions op."""
    per_tile = {"commit": 4, "mbarrier_wait": 7, "fence::after": 6, "wait::ld": 4 + halves,
                "wait::st": 3, "fence::before": 3, "mbarrier_arrive": 3}
    counts = {k: 2 * v for k, v in per_tile.items()}
    counts["wait::ld"] += 1
    counts["fence::before"] += 1
    counts["fence::after"] += 1
    for k, v in INSERTED.items():
        if k != "total":
            counts[k] = counts.get(k, 0) + v
    counts["total"] = sum(counts.values())
    return counts


def _planned(tmp_path, d: int = 64, threshold: float = THRESHOLD):
    source = tmp_path / f"{NAME}.mlir"
    source.write_text(planned_correction(d, threshold=threshold))
    return plan(source, "handoffs")


@pytest.mark.parametrize("d", [64, 128])
def test_insert_sync_writes_the_ring_protocol(d, tmp_path):
    """75 ops for head dimension 64, 77 for 128; per tile three mbarriers of the ring
    (count 1 for the MMA's commits, 128 for each warpgroup's arrivals) and one of the
    MMA's own order (count 1); verify-sync accepts the result."""
    planned = _planned(tmp_path, d)
    counts = {k: v for k, v in planned.counts[NAME].items() if v}
    assert counts == ring_ops(d // 64)
    assert counts["total"] == (75 if d == 64 else 77)
    assert planned.text.count("count = 128 : i64") == 4
    # count 1: the TMA loads' once_full, full and empty, per tile the ring's MMA -> softmax
    # mbarrier and the MMA's own.
    assert planned.text.count("count = 1 : i64") == 3 + 2 + 2
    assert verify(planned.text, planned.source_name) == []


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("d, causal, rescale, threshold", [
    (64, 0, "conditional", THRESHOLD), (64, 1, "conditional", LOW),
    (128, 0, "always", THRESHOLD), (128, 1, "conditional", LOW)])
def test_planned_correction_matches_race_free(d, causal, rescale, threshold, schedule,
                                              tmp_path):
    """L = 200 (three full KV blocks, one of 8 keys) against the float64 recurrence with P
    rounded to bf16 (the check file's bound), race-free; at LOW the warps' votes go both
    ways (tests/test_ws_attention.py), so the correction rescales some warps and blocks
    and skips others; a random schedule too."""
    check = check_file(tmp_path, d=d, length=200, causal=causal)
    result, problem, inputs, sim = run(planned_correction(d, rescale, threshold), NAME,
                                       check, SELECT, schedule)
    assert_matches(problem, inputs, sim)
    assert result.manifest["threads"] == 512
    if schedule == "late":
        assert judge(result, check, "random", seed=1) is None


@pytest.mark.slow
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [0, 1])
def test_planned_correction_sequence_length_1000(d, causal, tmp_path):
    """L = 1000 (15 full KV blocks and one of 40 keys) under the late, eager and a random
    schedule."""
    check = check_file(tmp_path, d=d, length=1000, causal=causal)
    result, problem, inputs, sim = run(planned_correction(d), NAME, check, SELECT)
    assert_matches(problem, inputs, sim)
    assert judge(result, check, "eager") is None
    assert judge(result, check, "random", seed=0) is None


@pytest.mark.slow
def test_deleting_any_inserted_ring_op_is_rejected_by_verify_sync(tmp_path):
    """Each of the 75 ops deleted in turn: verify-sync rejects the kernel (an unordered
    pair, a wait that never returns, an arrival or commit missing, a load in flight at the
    join, a wait in a branch it cannot evaluate not repeated after it)."""
    planned = _planned(tmp_path)
    mutants = list(deletion_mutants(planned.text, planned.source_name))
    assert len(mutants) == ring_ops(1)["total"]
    accepted = [description for description, text in mutants
                if not verify(text, planned.source_name)]
    assert accepted == []


@pytest.mark.slow
def test_deleting_any_inserted_ring_op_is_caught_by_the_simulator(tmp_path):
    """The same 75 mutants at the LOW threshold (the correction rescales some warps and
    blocks, so its loads and stores of O run) compiled without verify-sync's check of the
    roles: the simulator (L = 150) reports a race, a deadlock, an mbarrier error, a
    problem at exit or a wrong O under the late or the eager schedule for every one. (At
    the default threshold no warp rescales after block 0 on these inputs: six deletions,
    per tile the wait::ld between the correction's load and store of O and its wait::st
    and fence before its arrival, then order nothing that runs.)"""
    unseen = _unseen_by_the_simulator(_planned(tmp_path, threshold=LOW), tmp_path,
                                      first_race=True)
    assert unseen == []


LIT = Path(__file__).resolve().parent.parent / "lit_tests" / "tcgen05-insert-sync" / \
    "rings.mlir"


def test_the_small_ring_every_op_needed(tmp_path):
    """lit_tests/tcgen05-insert-sync/rings.mlir's @ring (three roles, the shape of the
    correction warpgroup): 33 ops, counted by hand in the lit file's comment; verify-sync
    accepts it and rejects the deletion of each."""
    source = tmp_path / LIT.name
    source.write_text(LIT.read_text())
    planned = plan(source, "handoffs")
    assert planned.counts["ring"]["total"] == 33
    assert verify(planned.text, planned.source_name) == []
    mutants = list(deletion_mutants(planned.text, planned.source_name))
    assert len(mutants) == 33
    assert [description for description, text in mutants
            if not verify(text, planned.source_name)] == []
