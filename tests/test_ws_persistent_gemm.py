"""The persistent warp-specialized GEMM (examples/ws_persistent_gemm_bf16.mlir): TMA loads
into 4-stage shared-memory rings, a double-buffered accumulator, four output tiles, all
synchronization written by hand across three roles. It runs in the simulator and matches
NumPy under both schedules (tests/test_sim_examples.py; ptxas: tests/test_examples_ptxas.py),
and each of its synchronization ops is needed: deleting any one makes the simulator report
a race, a deadlock, a problem at exit or a wrong result. The expected verdicts follow from
the full/empty protocol of the 9.7.16.6.4 canonical patterns and 9.7.13.15 (each deleted op
is one step of it), not from the compiler."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import example_pipeline
from sim_checks import SYNC_OP, judge, sync_lines
from tcgen05_lower.driver import CompileFailed, compile_source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ws_persistent_gemm_bf16.mlir"
CHECK = ROOT / "examples" / "ws_persistent_gemm_bf16.check.py"

#: The mutants run in the simulator are compiled without tcgen05-verify-sync's check of
#: the roles (test_deleting_any_sync_op_is_rejected_by_verify_sync checks that), so that
#: the simulator must catch each of them itself.
UNCHECKED = "tcgen05-verify-sync{partitions=skip}"


def verdict(text: str, schedule: str = "late") -> str | None:
    """Why `text` is rejected: by the compiler (tcgen05-verify refuses a TMA load whose
    bytes no expect_tx announces), else by the simulator (None: it runs clean and
    matches NumPy)."""
    from tcgen05_lower.pipeline import override_options

    pipeline = override_options(example_pipeline(EXAMPLE), [UNCHECKED])
    try:
        result = compile_source(text, EXAMPLE.name, pipeline=pipeline)
    except CompileFailed as failed:
        return f"rejected by the compiler: {failed}".splitlines()[0]
    return simulated(result, schedule)


def simulated(result, schedule: str = "late", ptx: str | None = None) -> str | None:
    """Why the simulator rejects the compiled `result` (its PTX, or `ptx` instead)."""
    return judge(result, CHECK, schedule, ptx)


def test_the_example_has_the_sync_ops_of_its_protocol():
    text = EXAMPLE.read_text()
    ops = [SYNC_OP.search(text.splitlines()[i]).group(1) for i in sync_lines(text)]
    # Two tile bodies (one per accumulator stage) of four K-block positions (one per ring
    # stage). Load: per position a wait on the stage's empty mbarrier and an expect_tx on
    # its full one (8 + 8). MMA: per tile a wait on the accumulator stage's empty mbarrier
    # and fence::after_thread_sync, per position a wait on full and a commit to empty, and
    # the accumulator stage's commit (2 x (2 + 8 + 1)). Epilogue: per tile a wait on the
    # accumulator stage's full mbarrier, fence::after_thread_sync, wait::ld,
    # fence::before_thread_sync and the arrive on its empty mbarrier (2 x 5). The kernel's
    # fence::after_thread_sync after the partitions: 16 + 22 + 10 + 1 = 49.
    assert len(ops) == 49
    assert ops.count("mbarrier_expect_tx") == 8 and ops.count("commit") == 10
    assert ops.count("mbarrier_wait") == 8 + 2 + 8 + 2
    assert ops.count("mbarrier_arrive") == 2 and ops.count("wait") == 2
    assert ops.count("fence") == 2 + 4 + 1


def off_by_one(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_an_off_by_one_empty_phase_deadlocks():
    """The load warp waits on a stage's empty mbarrier for the phase of the previous
    round (parity (r + 1) & 1). Waiting for round r's own phase instead (parity r & 1,
    the classic off-by-one) in tile 0 waits for a phase that only the MMAs of the loads
    it has not issued yet can complete."""
    text = off_by_one(EXAMPLE.read_text(), "%er0_0 = arith.addi %r0_0, %c1 : index",
                      "%er0_0 = arith.addi %r0_0, %c0 : index")
    found = verdict(text)
    assert found is not None and "deadlock" in found, found


def test_an_accumulator_empty_count_of_one_is_caught():
    """acc_empty has count 128: all 128 epilogue threads arrive after their loads. With
    count 1 the first thread to arrive completes the phase, and the MMA warp may
    overwrite the accumulator stage while the other threads still read it."""
    text = off_by_one(EXAMPLE.read_text(),
                      '%acc_empty0 = "tcgen05.alloc_mbarrier"() {count = 128 : i64}',
                      '%acc_empty0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64}')
    assert verdict(text) is not None


def test_a_missing_expect_tx_in_the_ptx_is_caught_by_the_simulator():
    """tcgen05-verify refuses a tma_load without its expect_tx, so deleting the op is
    caught at compile time; deleting the PTX line of one (the first, stage 0 of tile 0)
    is caught by the simulator: the phase completes on the load thread's arrivals alone
    or the transaction count goes negative (9.7.13.15), a race or an error."""
    result = compile_source(EXAMPLE.read_text(), EXAMPLE.name,
                            pipeline=example_pipeline(EXAMPLE))
    lines = result.ptx.splitlines()
    first = next(i for i, line in enumerate(lines) if "mbarrier.arrive.expect_tx" in line)
    del lines[first]
    assert simulated(result, ptx="\n".join(lines) + "\n") is not None


@pytest.mark.slow
@pytest.mark.parametrize("line", sync_lines(EXAMPLE.read_text()))
def test_deleting_any_sync_op_is_caught_by_the_simulator(line):
    lines = EXAMPLE.read_text().splitlines()
    deleted = lines[line].strip()
    del lines[line]
    found = verdict("\n".join(lines) + "\n")
    assert found is not None, f"deleting line {line + 1} ({deleted}) went unnoticed"


@pytest.mark.slow
@pytest.mark.parametrize("line", sync_lines(EXAMPLE.read_text()))
def test_deleting_any_sync_op_is_rejected_by_verify_sync(line):
    """The independent static reading: the default pipeline (tcgen05-verify, then
    tcgen05-verify-sync checking the concurrent roles) refuses every mutant, with a
    located diagnostic."""
    lines = EXAMPLE.read_text().splitlines()
    deleted = lines[line].strip()
    del lines[line]
    with pytest.raises(CompileFailed) as failed:
        compile_source("\n".join(lines) + "\n", EXAMPLE.name,
                       pipeline=example_pipeline(EXAMPLE))
    assert re.search(r"ws_persistent_gemm_bf16\.mlir:\d+:\d+: error: ", str(failed.value)), \
        f"deleting line {line + 1} ({deleted}): {failed.value}"
