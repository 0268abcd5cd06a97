"""The warp-specialized GEMM written with no synchronization
(examples/ws_gemm_bf16_auto.mlir): tcgen05-insert-sync plans the full/empty mbarrier
protocol across its roles (tcgen05_lower/synchronization/roles.py).

- the planned kernel runs in the simulator and matches NumPy, race-free, under the late
  and the eager schedule (the reference is NumPy, examples/ws_gemm_bf16_auto.check.py);
- the number of sync ops per stage and in all equals the hand-written protocol of
  examples/ws_gemm_bf16.mlir (counted in that file, independently of the pass);
- deleting any one op the pass added is flagged by tcgen05-verify-sync (an independent
  model, tests/test_mutation_sync.py checks every example this way) AND makes the
  simulator report a race, a deadlock, a problem at exit or a wrong result: each op is
  one step of a 9.7.16.6.4 canonical pattern or of the 9.7.16.6.5 proxy protocol.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import example_runs
from sim_checks import assert_matches, judge, sync_lines
from test_sync_common import deletion_mutants, plan, verify
from tcgen05_lower.driver import compile_source
from tcgen05_lower.pipeline import LOWERING

ROOT = Path(__file__).resolve().parent.parent
AUTO = ROOT / "examples" / "ws_gemm_bf16_auto.mlir"
CHECK = ROOT / "examples" / "ws_gemm_bf16_auto.check.py"
HAND = ROOT / "examples" / "ws_gemm_bf16.mlir"

#: What runs after tcgen05-insert-sync, for a kernel already planned: the mutants are
#: not checked statically here (verify-sync rejects each, asserted separately).
AFTER_SYNC = ",".join(("tcgen05-verify-sync{partitions=skip}",) + LOWERING)


def named_parameters(text: str) -> str:
    """The planned kernel as printed names its parameters %arg0..%arg2; the check file
    names them A, B, C (the source's names, in order)."""
    return re.sub(r"%arg([0-2])\b", lambda m: "%" + "ABC"[int(m.group(1))], text)


def simulate_verdict(text: str, pipeline: str, schedule: str = "late",
                     first_race: bool = False) -> str | None:
    """Why the simulator rejects `text` (None: it runs clean and matches NumPy;
    `first_race`: sim_checks.judge's)."""
    result = compile_source(named_parameters(text), AUTO.name, pipeline=pipeline)
    return judge(result, CHECK, schedule, first_race=first_race)


def test_the_example_writes_no_synchronization():
    assert sync_lines(AUTO.read_text()) == []
    assert "alloc_mbarrier" not in AUTO.read_text()


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_the_planned_example_runs_clean(schedule):
    # the run of tests/test_sim_examples.py (the same compile, CHECK's seed-0 inputs),
    # simulated once per session (tests/example_runs.py)
    assert_matches(*example_runs.run(AUTO.name, schedule))


@pytest.mark.parametrize("strategy", ["minimal", "conservative"])
def test_as_many_sync_ops_as_the_hand_written_protocol(strategy):
    # The hand-written example has 18 sync ops (tests/test_ws_gemm.py derives the 18:
    # 2 stages x 5, the accumulator's commit, the epilogue's 4, the kernel's fence after
    # the join, the producer tail's 2). Per stage and K block the minimum is 5
    # (docs/partitions.md).
    planned = plan(AUTO, strategy)
    counts = planned.counts["ws_gemm_bf16_auto"]
    assert counts["total"] == len(sync_lines(HAND.read_text())) == 18
    assert counts["mbarrier_arrive"] == counts["fence.proxy.async"] == 2   # per stage
    # full + empty per stage, the accumulator's, the tail's one per stage
    assert counts["mbarrier_wait"] == 2 * 2 + 1 + 2
    assert counts["commit"] == 2 + 1                                        # empty + acc
    assert verify(planned.text, planned.source_name) == []


def _mutants():
    planned = plan(AUTO, "minimal")
    return list(deletion_mutants(planned.text, planned.source_name))


@pytest.mark.slow
def test_deleting_any_inserted_op_is_caught_by_verify_sync_and_the_simulator():
    mutants = _mutants()
    assert len(mutants) == 18
    unnoticed = []
    for description, text in mutants:
        flagged = verify(text, AUTO.name) != []
        found = simulate_verdict(text, AFTER_SYNC, first_race=True)
        if not flagged or found is None:
            unnoticed.append((description, flagged, found))
    assert unnoticed == []


def test_the_unmutated_planned_kernel_passes_the_mutation_harness():
    # The harness itself: the planned kernel, compiled the way the mutants are, is clean
    # (so a verdict on a mutant comes from the deleted op).
    planned = plan(AUTO, "minimal")
    assert verify(planned.text, planned.source_name) == []
    assert simulate_verdict(planned.text, AFTER_SYNC) is None
