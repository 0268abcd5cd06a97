"""The persistent warp-specialized GEMM: TMA loads into 4-stage shared-memory rings, a
double-buffered accumulator, four output tiles, three roles.

examples/ws_persistent_gemm_bf16.mlir writes no synchronization; tcgen05-insert-sync
(tcgen05_lower/synchronization/rings.py) writes the protocol. The expected protocol is
the full/empty protocol of the 9.7.16.6.4 canonical patterns and 9.7.13.15 mbarriers,
counted here by hand (and in the hand-synchronized form of the same kernel,
tests/kernels/ws_persistent_gemm_bf16_hand.mlir, whose lines are counted independently
of the pass); results are checked against NumPy (examples/ws_persistent_gemm_bf16.check.py);
ptxas assembles the PTX.

The hand-synchronized kernel keeps its own tests: it runs clean, and deleting or
breaking any of its synchronization ops is caught by the simulator and by
tcgen05-verify-sync.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from conftest import example_pipeline, requires_ptxas
import example_runs
from sim_checks import SYNC_OP, assert_matches, judge, sync_lines
from test_sync_common import deletion_mutants, deletions, plan, verify
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE, LOWERING, override_options

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ws_persistent_gemm_bf16.mlir"
HAND = ROOT / "tests" / "kernels" / "ws_persistent_gemm_bf16_hand.mlir"
CHECK = ROOT / "examples" / "ws_persistent_gemm_bf16.check.py"
#: Six K blocks per tile on the 4-stage ring, three tiles on the 2 accumulator stages.
WRAPPING = ROOT / "tests" / "kernels" / "ws_persistent_gemm_k384_auto.mlir"
WRAPPING_CHECK = ROOT / "tests" / "kernels" / "ws_persistent_gemm_k384_auto.check.py"
#: One tile of two K blocks: no stage is refilled, no accumulator stage overwritten.
ONE_TILE = ROOT / "tests" / "kernels" / "ws_gemm_tma_one_tile_auto.mlir"
ONE_TILE_CHECK = ROOT / "tests" / "kernels" / "ws_gemm_tma_one_tile_auto.check.py"

#: The mutants run in the simulator are compiled without tcgen05-verify-sync's check of
#: the roles (the verify-sync tests check that separately), so that the simulator must
#: catch each of them itself.
UNCHECKED = "tcgen05-verify-sync{partitions=skip}"
#: What runs after tcgen05-insert-sync for a kernel already planned.
AFTER_SYNC = ",".join((UNCHECKED,) + LOWERING)

#: The protocol, counted by hand from docs/partitions.md: per K block, the load role's
#: wait on empty_s and expect_tx on full_s, the MMA role's wait on full_s and commit to
#: empty_s (4); per tile, the MMA role's wait on acc_empty_j, fence::after_thread_sync and
#: commit to acc_full_j (3), the epilogue's wait on acc_full_j, fence::after_thread_sync,
#: wait::ld, fence::before_thread_sync and arrive on acc_empty_j (5); the kernel's
#: fence::after_thread_sync after the join (1). Written once per loop body: 4 + 3 + 5 + 1;
#: and the producer tail after the load role's loops: a wait on each empty stage that
#: gets commits (4), since nothing else waits for the last commits and the arrivals of
#: two commits are not ordered (9.7.16.12.1).
PER_K_BLOCK = 4
TAIL = 4
PROTOCOL = {"mbarrier_wait": 4 + TAIL, "mbarrier_expect_tx": 1, "commit": 2,
            "mbarrier_arrive": 1, "fence::after": 3, "fence::before": 1, "wait::ld": 1}
#: The tail's (stage, parity), by hand: 4 tiles x 4 K blocks = 16 uses of 4 stages, 4
#: commits to each, the last in phase 3.
EXAMPLE_TAIL = [(0, 1), (1, 1), (2, 1), (3, 1)]
#: The wrapping kernel: 3 tiles x 6 K blocks = 18 uses of 4 stages, so stages 0 and 1
#: get 5 commits (uses s, s + 4, .., s + 16; the last in phase 4, parity 0) and stages
#: 2 and 3 get 4 (the last in phase 3, parity 1).
WRAPPING_TAIL = [(0, 0), (1, 0), (2, 1), (3, 1)]
#: The one-tile kernel under conservative: 2 uses of 4 stages, one commit to each of
#: stages 0 and 1 (phase 0), none to stages 2 and 3 (nothing to drain there).
ONE_TILE_TAIL = [(0, 0), (1, 0)]


def tail_of(text: str) -> list:
    """(stage, parity) of the producer tail's waits in the planned `text`, in order."""
    return [(int(s), int(p)) for s, p in re.findall(
        r'= "tcgen05\.mbarrier_stage"\(%\w+, %c(\d+)(?:_\d+)?\) [^\n]*\n'
        r'\s*%\w+ = arith\.constant (\d+) : i32[^\n]*\n'
        r'\s*"tcgen05\.mbarrier_wait"\([^\n]*producer tail', text)]


def named_parameters(text: str) -> str:
    """The planned kernel as printed names its parameters %arg0..%arg4; the check file
    binds A, B, C and the tensor maps by the source's names, in order."""
    names = ("A", "B", "C", "tmA", "tmB")
    return re.sub(r"%arg([0-4])\b", lambda m: "%" + names[int(m.group(1))], text)


def hand_verdict(text: str, schedule: str = "late", first_race: bool = False) -> str | None:
    """Why the hand-synchronized kernel `text` is rejected: by the compiler, else by the
    simulator (None: it runs clean and matches NumPy; `first_race`: sim_checks.judge's)."""
    pipeline = override_options(example_pipeline(HAND), [UNCHECKED])
    try:
        result = compile_source(text, HAND.name, pipeline=pipeline)
    except CompileFailed as failed:
        return f"rejected by the compiler: {failed}".splitlines()[0]
    return judge(result, CHECK, schedule, first_race=first_race)


#: planned kernel text -> its compile from after insert-sync (or the CompileFailed), once
#: per session: the deletion tests here and tests/test_sim_random_schedule.py run the
#: same 17 mutants (under the late schedule here, random seeds there).
_AFTER_SYNC_COMPILES: dict = {}


def compile_after_sync(text: str):
    """The planned kernel `text` compiled from after insert-sync (the example's source
    names bound to its parameters); raises CompileFailed."""
    if text not in _AFTER_SYNC_COMPILES:
        try:
            _AFTER_SYNC_COMPILES[text] = compile_source(named_parameters(text), EXAMPLE.name,
                                                        pipeline=AFTER_SYNC)
        except CompileFailed as failed:
            # kept without its traceback, whose frames would keep the compile's MLIR
            # context alive (tests/test_process_hygiene.py)
            failed.__traceback__ = failed.__context__ = failed.__cause__ = None
            _AFTER_SYNC_COMPILES[text] = failed
    outcome = _AFTER_SYNC_COMPILES[text]
    if isinstance(outcome, CompileFailed):
        raise outcome
    return outcome


def planned_verdict(text: str, schedule: str = "late", first_race: bool = False) -> str | None:
    """Why the simulator rejects the planned kernel `text` compiled from after
    insert-sync (None: it runs clean and matches NumPy; `first_race`: sim_checks.judge's)."""
    try:
        result = compile_after_sync(text)
    except CompileFailed as failed:
        return f"rejected by the compiler: {failed}".splitlines()[0]
    return judge(result, CHECK, schedule, first_race=first_race)


# -- the example, synchronized by tcgen05-insert-sync ------------------------------------------

def test_the_example_writes_no_synchronization():
    text = EXAMPLE.read_text()
    assert sync_lines(text) == []
    assert "alloc_mbarrier" not in text and "mbarrier_stage" not in text
    assert "!tcgen05.mbarrier" not in text   # its TMA loads name no mbarrier


@pytest.mark.parametrize("strategy", ["minimal", "conservative"])
def test_the_pass_writes_the_minimal_protocol(strategy):
    planned = plan(EXAMPLE, strategy)
    counts = planned.counts["ws_persistent_gemm_bf16"]
    assert {k: v for k, v in counts.items() if v and k != "total"} == PROTOCOL
    assert counts["total"] == sum(PROTOCOL.values()) == 17
    assert tail_of(planned.text) == EXAMPLE_TAIL
    # The hand-written ring form has the same ops, counted line by line in its source;
    # its tail is one wait in a loop over the 4 stages.
    assert len(sync_lines(HAND.read_text())) == 13 + 1
    assert verify(planned.text, planned.source_name) == []


def test_minimal_and_conservative_write_the_same_protocol():
    assert plan(EXAMPLE, "minimal").text == plan(EXAMPLE, "conservative").text


def test_sync_ops_per_k_block_are_the_minimum():
    """The ops inside the K-block loops (the loops whose bodies hold the TMA loads and
    the MMAs): 2 in the load role and 2 in the MMA role."""
    text = plan(EXAMPLE, "minimal").text
    per_loop = []
    for marker in ('"tcgen05.tma_load"', '"tcgen05.mma"'):
        lines = text.splitlines()
        first = next(i for i, line in enumerate(lines) if marker in line)
        start = max(i for i in range(first) if "scf.for" in lines[i])
        depth, end = 0, start
        for end in range(start, len(lines)):
            depth += lines[end].count("{") - lines[end].count("}")
            if depth == 0:
                break
        body = "\n".join(lines[start:end + 1])
        per_loop.append(len(re.findall(r'"tcgen05\.(mbarrier_wait|mbarrier_expect_tx|'
                                       r'commit|fence|wait|mbarrier_arrive)"', body)))
    assert per_loop == [2, 2] and sum(per_loop) == PER_K_BLOCK


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_the_example_matches_numpy_race_free(schedule):
    # the run of tests/test_sim_examples.py (the same compile, CHECK's seed-0 inputs),
    # simulated once per session (tests/example_runs.py)
    assert_matches(*example_runs.run(EXAMPLE.name, schedule))


@requires_ptxas
@pytest.mark.parametrize("arch", ["sm_100a", "sm_103a", "sm_110a"])
def test_ptxas_accepts_the_example(arch):
    result, assembled = example_runs.assembled(EXAMPLE.name, arch)   # shared, per session
    assert f".target {arch}" in result.ptx
    assert assembled.ok, assembled.stderr


@functools.lru_cache(maxsize=None)   # planned once per session (tests here and
def _mutants() -> tuple:               # in tests/test_sim_random_schedule.py)
    planned = plan(EXAMPLE, "minimal")
    return tuple(deletion_mutants(planned.text, planned.source_name))


def test_the_unmutated_planned_kernel_passes_the_mutation_harness():
    planned = plan(EXAMPLE, "minimal")
    assert verify(planned.text, planned.source_name) == []
    assert planned_verdict(planned.text) is None


def test_deleting_any_inserted_op_is_caught_by_verify_sync_and_the_simulator():
    """Each op is one step of the protocol (docs/partitions.md gives the table of what
    each deletion produces): verify-sync names the unordered pair or the wait that never
    returns, and the simulator reports a race, a deadlock or an mbarrier error."""
    mutants = _mutants()
    assert len(mutants) == 17
    unnoticed, tails = [], []
    for description, text in mutants:
        flagged = verify(text, EXAMPLE.name)
        found = planned_verdict(text, first_race=True)   # only whether it is caught
        # caught by the simulator itself: the mutants compile (verify-sync's role check
        # is skipped), so a compiler rejection would be a failure of the harness
        if not flagged or found is None or found.startswith("rejected by the compiler"):
            unnoticed.append((description, flagged, found))
        if "producer tail" in description:
            tails.append((flagged, found))
    assert unnoticed == []
    # A deleted tail wait: the last commit to that stage is in flight at exit (verify-sync
    # names it; the simulator: no wait of the CTA observed that arrival's phase).
    assert len(tails) == TAIL
    for flagged, found in tails:
        assert "may still be in flight when the CTA holding its mbarrier exits" in flagged[0]
        assert "is observed by no wait of that CTA before the CTA exits" in found


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_a_tile_whose_k_blocks_wrap_around_the_ring_matches_numpy(schedule):
    """it = 6 t + kb: tile 1 starts at stage 2 of round 1, so a fixed stage per K block
    (or a parity per tile) would be wrong; the counters make it right."""
    result = compile_source(WRAPPING.read_text(), WRAPPING.name)
    assert judge(result, WRAPPING_CHECK, schedule) is None


def test_deleting_any_inserted_op_of_the_wrapping_kernel_is_caught():
    planned = plan(WRAPPING, "minimal")
    assert planned.counts["ws_persistent_gemm_k384"]["total"] == 13 + TAIL
    assert tail_of(planned.text) == WRAPPING_TAIL
    unnoticed = []
    for description, text in deletion_mutants(planned.text, planned.source_name):
        flagged = verify(text, WRAPPING.name)
        try:
            result = compile_source(named_parameters(text), WRAPPING.name,
                                    pipeline=AFTER_SYNC)
            found = judge(result, WRAPPING_CHECK, "late", first_race=True)
        except CompileFailed as failed:
            found = str(failed)
        if not flagged or found is None:
            unnoticed.append((description, flagged, found))
    assert unnoticed == []


def test_minimal_leaves_out_the_release_of_stages_used_once():
    """Two K blocks on a 4-stage ring and one tile on 2 accumulator stages: nothing waits
    for a stage to be released. minimal writes, by hand: per K block the full wait and
    the expect_tx (2), the acc_full commit (1), the epilogue's wait, fence after,
    wait::ld and fence before (4), the fence before the dealloc (1): 8, and no producer
    tail (no commit to an empty stage); conservative the whole protocol, 13 as in the
    example, and a tail wait on the 2 stages that get a commit. Both are ordered; under
    minimal every op is needed."""
    minimal = plan(ONE_TILE, "minimal")
    counts = minimal.counts["ws_gemm_tma_one_tile"]
    assert counts["total"] == 8
    assert counts["mbarrier_wait"] == 2 and counts["commit"] == 1
    assert "mbarrier_arrive" not in counts
    assert tail_of(minimal.text) == []
    conservative = plan(ONE_TILE, "conservative")
    assert conservative.counts["ws_gemm_tma_one_tile"]["total"] == 13 + 2
    assert tail_of(conservative.text) == ONE_TILE_TAIL
    assert verify(conservative.text, conservative.source_name) == []
    assert verify(minimal.text, minimal.source_name) == []
    assert [description for description, ok in deletions(minimal) if ok] == []


@pytest.mark.parametrize("strategy", ["minimal", "conservative"])
def test_one_tile_matches_numpy_under_both_strategies(strategy):
    pipeline = override_options(DEFAULT_PIPELINE,
                                [f"tcgen05-insert-sync{{strategy={strategy}}}"])
    result = compile_source(ONE_TILE.read_text(), ONE_TILE.name, pipeline=pipeline)
    assert judge(result, ONE_TILE_CHECK, "late") is None


@pytest.mark.parametrize("stages", ["1", "2", "3"])
def test_ring_stages_option_makes_shallower_rings_that_match_numpy(stages):
    """tcgen05-insert-sync{ring-stages=N}: the A and B rings N deep (N x (16384 + 32768)
    bytes of shared memory), the stage each view takes (it mod N) the pass's own; the
    kernel runs race-free and matches NumPy."""
    pipeline = override_options(DEFAULT_PIPELINE,
                                [f"tcgen05-insert-sync{{ring-stages={stages}}}"])
    result = compile_source(EXAMPLE.read_text(), EXAMPLE.name, pipeline=pipeline)
    assert result.manifest["dynamic_smem_bytes"] == int(stages) * (16384 + 32768)
    assert judge(result, CHECK, "late") is None


def test_ring_stages_auto_is_the_deepest_ring_that_fits():
    """Derived by hand: a stage of A and B is 16384 + 32768 = 49152 bytes, and
    232448 // 49152 = 4 stages fit the 227 KiB of dynamic shared memory (5 need 245760):
    the example's own 4. The one-tile kernel has only 2 uses of its ring: 2 stages."""
    pipeline = override_options(DEFAULT_PIPELINE, ["tcgen05-insert-sync{ring-stages=auto}"])
    result = compile_source(EXAMPLE.read_text(), EXAMPLE.name, pipeline=pipeline)
    assert result.manifest["dynamic_smem_bytes"] == 4 * 49152
    one = compile_source(ONE_TILE.read_text(), ONE_TILE.name, pipeline=pipeline)
    assert one.manifest["dynamic_smem_bytes"] == 2 * 49152
    assert judge(one, ONE_TILE_CHECK, "late") is None


def test_ring_stages_past_the_shared_memory_is_refused_at_the_ring():
    pipeline = override_options(DEFAULT_PIPELINE, ["tcgen05-insert-sync{ring-stages=5}"])
    with pytest.raises(CompileFailed) as failed:
        compile_source(EXAMPLE.read_text(), EXAMPLE.name, pipeline=pipeline)
    assert re.search(r"ws_persistent_gemm_bf16\.mlir:\d+:\d+: error: shared-memory tiles "
                     r"need 245760 bytes", str(failed.value))


# -- the hand-synchronized ring form -------------------------------------------------------

def test_the_hand_kernel_has_the_sync_ops_of_its_protocol():
    text = HAND.read_text()
    ops = [SYNC_OP.search(text.splitlines()[i]).group(1) for i in sync_lines(text)]
    # The counts of PROTOCOL, by op name: 4 waits, 1 expect_tx, 2 commits, 1 arrive, the
    # tcgen05.wait::ld, 4 fences, and the tail's wait (in a loop over the stages).
    assert len(ops) == 14
    assert ops.count("mbarrier_wait") == 5 and ops.count("mbarrier_expect_tx") == 1
    assert ops.count("commit") == 2 and ops.count("mbarrier_arrive") == 1
    assert ops.count("wait") == 1 and ops.count("fence") == 4


def test_the_hand_kernel_runs_clean():
    assert hand_verdict(HAND.read_text()) is None


def off_by_one(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_an_off_by_one_empty_phase_deadlocks():
    """The load warp waits on a stage's empty mbarrier for the phase of the previous
    round (parity (r + 1) & 1). Waiting for round r's own phase instead (parity r & 1,
    the classic off-by-one) waits in round 0 for a phase that only the MMAs of the loads
    it has not issued yet can complete."""
    text = off_by_one(HAND.read_text(), "%er = arith.addi %r, %c1 : index",
                      "%er = arith.addi %r, %c0 : index")
    found = hand_verdict(text)
    assert found is not None and "deadlock" in found, found


def test_an_accumulator_empty_count_of_one_is_caught():
    """acc_empty has count 128: all 128 epilogue threads arrive after their loads. With
    count 1 the first thread to arrive completes the phase, and the MMA warp may
    overwrite the accumulator stage while the other threads still read it."""
    text = off_by_one(HAND.read_text(),
                      '%acc_empty = "tcgen05.alloc_mbarrier"() {count = 128 : i64',
                      '%acc_empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64')
    assert hand_verdict(text) is not None


def test_a_missing_expect_tx_in_the_ptx_is_caught_by_the_simulator():
    """tcgen05-verify refuses a tma_load without its expect_tx, so deleting the op is
    caught at compile time; deleting the PTX line of the expect_tx is caught by the
    simulator: the phase completes on the loads' complete_tx alone or the transaction
    count goes negative (9.7.13.15), a race or an error."""
    result = compile_source(HAND.read_text(), HAND.name, pipeline=example_pipeline(HAND))
    lines = result.ptx.splitlines()
    first = next(i for i, line in enumerate(lines) if "mbarrier.arrive.expect_tx" in line)
    del lines[first]
    assert judge(result, CHECK, "late", "\n".join(lines) + "\n") is not None


@pytest.mark.slow
@pytest.mark.parametrize("line", sync_lines(HAND.read_text()))
def test_deleting_any_hand_sync_op_is_caught_by_the_simulator(line):
    lines = HAND.read_text().splitlines()
    deleted = lines[line].strip()
    del lines[line]
    found = hand_verdict("\n".join(lines) + "\n", first_race=True)
    assert found is not None, f"deleting line {line + 1} ({deleted}) went unnoticed"


@pytest.mark.slow
@pytest.mark.parametrize("line", sync_lines(HAND.read_text()))
def test_deleting_any_hand_sync_op_is_rejected_by_verify_sync(line):
    """The independent static reading: the default pipeline (tcgen05-verify, then
    tcgen05-verify-sync checking the concurrent roles) refuses every mutant, with a
    located diagnostic."""
    lines = HAND.read_text().splitlines()
    deleted = lines[line].strip()
    del lines[line]
    with pytest.raises(CompileFailed) as failed:
        compile_source("\n".join(lines) + "\n", HAND.name,
                       pipeline=example_pipeline(HAND))
    assert re.search(r"ws_persistent_gemm_bf16_hand\.mlir:\d+:\d+: error: ",
                     str(failed.value)), f"deleting line {line + 1} ({deleted}): {failed.value}"


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("option", ["tcgen05-lower-to-llvm{issue=thread}",
                                    "tcgen05-lower-to-llvm{maxnreg=40,232}"])
def test_issue_and_register_budget_options_match_numpy_race_free(option, schedule):
    """The MMA warp issuing by thread index instead of elect.sync, and the warpgroups'
    setmaxnreg budgets (40 for the load and MMA warpgroup, 232 for the epilogue's), leave
    the results and the race-freedom unchanged."""
    pipeline = override_options(DEFAULT_PIPELINE, [option])
    result = compile_source(EXAMPLE.read_text(), EXAMPLE.name, pipeline=pipeline)
    assert judge(result, CHECK, schedule) is None
