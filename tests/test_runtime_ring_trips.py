"""Ring protocols around a loop with a run-time trip count (tcgen05_lower/synchronization/
rings.py, ``Nest.dynamic`` and ``plan_dynamic_tail``; sync_check/runtime_bounds.py): examples/ws_persistent_gemm_bf16.mlir
with its tile loops (the outermost loop of each role) running to a kernel argument T
instead of the constant 4. tcgen05-insert-sync writes the same protocol, the producer
tail's parities computed at run time, and tcgen05-verify-sync checks the roles for the
counts 1 .. 2 lcm(4, 2) + 2; the kernel then matches NumPy race-free in the simulator
(the check file's reference, examples/ws_persistent_gemm_bf16.check.py, with T = 4: the
columns of the four tiles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim_checks import judge
from test_sync_common import plan, verify
from tcgen05_lower.driver import compile_source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ws_persistent_gemm_bf16.mlir"
CHECK = ROOT / "examples" / "ws_persistent_gemm_bf16.check.py"


def run_time_tiles() -> str:
    text = EXAMPLE.read_text()
    assert "%C: !gptr {llvm.align = 16 : i64}," in text   # the example's C parameter
    text = text.replace("%C: !gptr {llvm.align = 16 : i64},",
                        "%C: !gptr {llvm.align = 16 : i64}, %T: i32,")
    text = text.replace("  %true = arith.constant true\n",
                        "  %true = arith.constant true\n"
                        "  %tiles = arith.index_castui %T : i32 to index\n", 1)
    loops = text.count("scf.for %t = %c0 to %c4 step %c1 {")
    assert loops == 3   # the tile loop of each role
    return text.replace("scf.for %t = %c0 to %c4 step %c1 {",
                        "scf.for %t = %c0 to %tiles step %c1 {")


def test_the_protocol_is_the_constant_one_with_a_run_time_tail(tmp_path):
    """The 17 ops of tests/test_ws_persistent_gemm.py (13, and the 4 tail waits), the
    tail's parities computed from T (arith.maxsi of the trip count) instead of constants;
    verify-sync accepts it for every count it runs."""
    path = tmp_path / "ws_persistent_gemm_runtime_tiles.mlir"
    path.write_text(run_time_tiles())
    planned = plan(path, "minimal")
    assert planned.counts["ws_persistent_gemm_bf16"]["total"] == 17
    assert planned.text.count("producer tail") == 4 and "arith.maxsi" in planned.text
    assert verify(planned.text, planned.source_name) == []


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_a_run_time_tile_count_matches_numpy_race_free(schedule, tmp_path):
    result = compile_source(run_time_tiles(), "ws_persistent_gemm_runtime_tiles.mlir")
    check = tmp_path / "check.py"
    check.write_text(CHECK.read_text().replace("BUFFERS = {", 'SCALARS = {"T": 4}\nBUFFERS = {'))
    assert judge(result, check, schedule) is None


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
def test_the_run_time_tail_parity_is_the_constant_one(stages):
    """rings.plan_dynamic_tail's wait, for a stage s with uses U > s, on parity
    ((U - s - 1) / S) & 1, and none for U <= s, against the hand count behind
    ring_protocol.tail_parities: n_s = ceil((U - s) / S) commits to stage s, the last in phase
    n_s - 1, and no wait for a stage that gets no commit."""
    from tcgen05_lower.synchronization.ring_protocol import tail_parities

    for uses in range(0, 3 * stages + 2):
        constant = dict(tail_parities(uses, stages))
        for s in range(stages):
            commits = -(-(uses - s) // stages) if uses > s else 0
            runtime = ((uses - s - 1) // stages) & 1 if uses > s else None
            expected = (commits - 1) & 1 if commits else None
            assert runtime == expected == constant.get(s), (uses, s)
