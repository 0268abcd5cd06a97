"""The warp-specialized TMA GEMM on a CTA pair written with no synchronization
(examples/ws_gemm_2cta_bf16.mlir): tcgen05-insert-sync writes the pair protocol
(tcgen05_lower/synchronization/rings.py; docs/cta-pairs.md, "Warp roles and TMA in a CTA
pair").

The expected protocol is derived by hand from the ISA, not from the pass: the one-CTA
ring protocol of the 9.7.16.6.4 canonical patterns and 9.7.13.15 mbarriers (13 ops
written once per loop body, and the producer tail's wait on each empty stage after the
load role's loops, as for examples/ws_persistent_gemm_bf16.mlir), with the
signals of a pair: the even CTA's expect_tx announces both CTAs' bytes, 2 x (128 x 64 x 2
+ 64 x 64 x 2) = 49152, since each CTA's loads complete on the even CTA's full mbarrier
(.cta_group::2, 9.7.9.25.5.1); the commits go to both CTAs (multicast_mask 0b11,
9.7.16.12.1), because each CTA's load warp refills its own half of a stage and each
CTA's epilogue loads its own lanes; acc_empty counts both CTAs' 128 epilogue threads
(256), which arrive at the even CTA's copy (cta = "even"). The results are checked
against NumPy in the simulator run as a cluster of 2 (examples/ws_gemm_2cta_bf16.check.py)
and ptxas assembles the PTX. Each op the pass adds, deleted alone, must be rejected by
tcgen05-verify-sync (an independent model, tcgen05_lower/sync_check/pairs.py) and give a race,
a deadlock or a wrong result in the simulator (compiled with the roles unchecked).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import requires_ptxas
import example_runs
from sim_checks import assert_matches, judge, sync_lines
from test_sync_common import deletion_mutants, plan, verify
from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.pipeline import LOWERING

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ws_gemm_2cta_bf16.mlir"
HAND = ROOT / "tests" / "kernels" / "ws_gemm_2cta_bf16_hand.mlir"
CHECK = ROOT / "examples" / "ws_gemm_2cta_bf16.check.py"
NAME = "ws_gemm_2cta_bf16"

#: The mutants run in the simulator are compiled without tcgen05-verify-sync's check of
#: the roles, so that the simulator must catch each of them itself.
AFTER_SYNC = ",".join(("tcgen05-verify-sync{partitions=skip}",) + LOWERING)

#: Written once per loop body (module docstring): per K block the load role's wait on
#: empty_s and expect_tx on full_s, the MMA role's wait on full_s and commit to empty_s;
#: per tile the MMA role's wait on acc_empty_j, fence::after_thread_sync and commit to
#: acc_full_j, the epilogue's wait on acc_full_j, fence::after_thread_sync, wait::ld,
#: fence::before_thread_sync and arrive; the kernel's fence::after_thread_sync; and the
#: producer tail, after the load role's loops, one wait per empty stage (2): the last
#: commits to empty_s are waited for by nothing else, and the arrivals of two commits are
#: not ordered (9.7.16.12.1).
PROTOCOL = {"mbarrier_wait": 6, "mbarrier_expect_tx": 1, "commit": 2, "mbarrier_arrive": 1,
            "fence::after": 3, "fence::before": 1, "wait::ld": 1}
#: Executions of each op of the protocol: 4 tiles x 4 K blocks = 16 per K block, 4 per
#: tile, 1 for the kernel's fence, 1 per tail wait: 4 x 16 + 8 x 4 + 1 + 2 = 99.
EXECUTED = 4 * 16 + 8 * 4 + 1 + 2
#: The producer tail's waits: 16 uses of 2 stages, 8 commits to each empty_s, the last
#: in phase 7: parity 1 on stage 0, then on stage 1.
TAIL = [(0, 1), (1, 1)]


def named_parameters(text: str) -> str:
    """The planned kernel as printed names its parameters %arg0..%arg4; the check file
    binds A, B, C and the tensor maps by the source's names, in order."""
    names = ("A", "B", "C", "tmA", "tmB")
    return re.sub(r"%arg([0-4])\b", lambda m: "%" + names[int(m.group(1))], text)


def planned_verdict(text: str, schedule: str = "late") -> str | None:
    """Why the simulator rejects the planned kernel `text` compiled from after
    insert-sync (None: it runs clean and matches NumPy)."""
    try:
        result = compile_source(named_parameters(text), EXAMPLE.name, pipeline=AFTER_SYNC)
    except CompileFailed as failed:
        return f"rejected by the compiler: {failed}".splitlines()[0]
    return judge(result, CHECK, schedule)


def executed_sync_ops(text: str) -> int:
    """How many synchronization ops `text` executes per thread of a role: each op once
    per iteration of the constant-bound scf.for loops around it (read from the IR's
    structure, independently of the pass)."""
    from tcgen05_lower.parsing import parse_module

    def constant(value) -> int:
        return ir.IntegerAttr(value.owner.attributes["value"]).value

    total = 0
    with d.make_context():
        module = parse_module(text, "kernel.mlir")
        for kernel in d.kernels(module):
            for op in d.walk_ops(kernel):
                if d.op_name(op) not in ("mbarrier_wait", "mbarrier_arrive",
                                         "mbarrier_expect_tx", "commit", "fence", "wait"):
                    continue
                times, parent = 1, op.parent
                while parent is not None and parent.name != "func.func":
                    if parent.name == "scf.for":
                        lb, ub, step = (constant(parent.operands[i]) for i in range(3))
                        times *= -(-(ub - lb) // step)
                    parent = parent.parent
                total += times
    return total


def test_the_example_writes_no_synchronization():
    text = EXAMPLE.read_text()
    assert sync_lines(text) == []
    assert "alloc_mbarrier" not in text and "mbarrier_stage" not in text
    assert "!tcgen05.mbarrier" not in text   # its TMA loads name no mbarrier
    assert "cta_group = 2" in text


@pytest.mark.parametrize("strategy", ["minimal", "conservative"])
def test_the_pass_writes_the_pair_protocol(strategy):
    planned = plan(EXAMPLE, strategy)
    counts = planned.counts[NAME]
    assert {k: v for k, v in counts.items() if v and k != "total"} == PROTOCOL
    assert counts["total"] == 15
    text = planned.text
    # The rings: full, empty, acc_full of count 1, acc_empty of 2 x 128, 2 stages each.
    counts = re.findall(r'"tcgen05\.alloc_mbarrier"\(\) \{count = (\d+) : i64, '
                        r'stages = (\d+) : i64\}', text)
    assert counts == [("1", "2"), ("1", "2"), ("1", "2"), ("256", "2")]
    assert re.findall(r'"tcgen05\.mbarrier_expect_tx"\(%\w+\) \{bytes = (\d+) : i64',
                      text) == [str(2 * (128 * 64 * 2 + 64 * 64 * 2))]
    commits = re.findall(r'"tcgen05\.commit"\(%\w+\) \{([^}]*)\}', text)
    assert len(commits) == 2 and all("multicast_mask = 3 : i64" in c for c in commits)
    arrives = re.findall(r'"tcgen05\.mbarrier_arrive"\(%\w+\) \{([^}]*)\}', text)
    assert len(arrives) == 1 and 'cta = "even"' in arrives[0]
    tail = re.findall(r'= "tcgen05\.mbarrier_stage"\(%\w+, %c(\d+)(?:_\d+)?\) [^\n]*\n'
                      r'\s*%\w+ = arith\.constant (\d+) : i32[^\n]*\n'
                      r'\s*"tcgen05\.mbarrier_wait"\([^\n]*producer tail', text)
    assert [(int(s), int(p)) for s, p in tail] == TAIL
    assert verify(text, planned.source_name) == []


def test_minimal_and_conservative_write_the_same_protocol():
    assert plan(EXAMPLE, "minimal").text == plan(EXAMPLE, "conservative").text


def test_the_pass_executes_as_many_sync_ops_as_the_hand_protocol():
    """The hand version is unrolled (two tiles per iteration, four K blocks per tile):
    51 ops written, 48 of them run twice, 99 executed. The pass writes each op once in
    its loop body: 15 written, the same 99 executed."""
    planned = plan(EXAMPLE, "minimal")
    hand = HAND.read_text()
    assert len(sync_lines(hand)) == 51
    assert executed_sync_ops(hand) == EXECUTED == 99
    assert executed_sync_ops(planned.text) == EXECUTED


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_the_example_matches_numpy_race_free_as_a_cluster_of_2(schedule):
    # the run of tests/test_sim_examples.py (the same compile, CHECK's seed-0 inputs),
    # simulated once per session (tests/example_runs.py)
    problem, inputs, result = example_runs.run(EXAMPLE.name, schedule)
    assert result.cluster == 2
    assert_matches(problem, inputs, result)


@requires_ptxas
@pytest.mark.parametrize("arch", ["sm_100a", "sm_103a", "sm_110a"])
def test_ptxas_accepts_the_example(arch):
    result, assembled = example_runs.assembled(EXAMPLE.name, arch)   # shared, per session
    assert f".target {arch}" in result.ptx and ".reqnctapercluster 2, 1, 1" in result.ptx
    assert assembled.ok, assembled.stderr


def test_the_unmutated_planned_kernel_passes_the_mutation_harness():
    planned = plan(EXAMPLE, "minimal")
    assert verify(planned.text, planned.source_name) == []
    assert planned_verdict(planned.text) is None


def mutation_table() -> list[tuple[str, str, str]]:
    """(deleted op, verify-sync's first message or "", the simulator's verdict or "")
    for each op insert-sync added, deleted alone from the planned IR."""
    planned = plan(EXAMPLE, "minimal")
    rows = []
    for description, text in deletion_mutants(planned.text, planned.source_name):
        flagged = verify(text, EXAMPLE.name)
        found = planned_verdict(text)
        rows.append((description, flagged[0] if flagged else "", found or ""))
    return rows


def test_deleting_any_inserted_op_is_caught_by_verify_sync_and_the_simulator():
    rows = mutation_table()
    assert len(rows) == 15
    # the simulator itself: the mutants compile (verify-sync's role check is skipped)
    unnoticed = [row for row in rows if not row[1] or not row[2]
                 or row[2].startswith("rejected by the compiler")]
    assert unnoticed == []
    # Each producer-tail wait deleted: the last commits to that stage's copies are in
    # flight at exit, which verify-sync names, and the simulator sees that no wait of the
    # CTA observed the phase of the last commit's arrival before the CTA exited.
    tails = [row for row in rows if "producer tail" in row[0]]
    assert len(tails) == 2
    for _, message, verdict in tails:
        assert "may still be in flight when the CTA holding its mbarrier exits" in message
        assert "is observed by no wait of that CTA before the CTA exits" in verdict


if __name__ == "__main__":
    # The table of the mutation test: python tests/test_ws_gemm_2cta_auto.py
    for op, message, verdict in mutation_table():
        print(f"| {op.split(' (')[0]} ({op.split(' (', 1)[1][:70]}...) | {message[:160]} "
              f"| {verdict[:120]} |")
