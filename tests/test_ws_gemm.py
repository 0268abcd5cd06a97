"""The warp-specialized GEMM (examples/ws_gemm_bf16.mlir), whose synchronization is
written by hand across its three roles: it runs in the simulator and matches NumPy
(tests/test_sim_examples.py), and each of its synchronization ops is needed: deleting
any one makes the simulator report a race, a deadlock, a problem at exit or a wrong
result. This shows that the simulator checks the ordering between roles (the expected
verdicts follow from the 9.7.16.6.4 canonical patterns and 9.7.16.6.5, not from the
compiler: each deleted op is one step of a pattern)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import example_pipeline
import example_runs
from sim_checks import assert_matches, judge, sync_lines
from tcgen05_lower.driver import compile_source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ws_gemm_bf16.mlir"
CHECK = ROOT / "examples" / "ws_gemm_bf16.check.py"

#: The mutants are compiled without the static check (tcgen05-verify-sync rejects each
#: of them, tests/test_verify_sync_roles.py): here the simulator must catch them.
UNCHECKED = "tcgen05-verify-sync{partitions=skip}"


def verdict(text: str, schedule: str = "late") -> str | None:
    """Why the simulator rejects `text` (None: it runs clean and matches NumPy), or
    only whether: the run stops at its first race (sim_checks.judge's first_race)."""
    from tcgen05_lower.pipeline import override_options

    pipeline = override_options(example_pipeline(EXAMPLE), [UNCHECKED])
    result = compile_source(text, EXAMPLE.name, pipeline=pipeline)
    return judge(result, CHECK, schedule, first_race=True)


def test_the_example_has_the_sync_ops_of_its_protocol():
    # 2 stages x (load: wait empty, proxy fence, arrive full; mma: wait full, commit
    # empty), the accumulator commit, the epilogue's wait, fence::after_thread_sync,
    # wait::ld and fence::before_thread_sync, and the kernel's fence::after_thread_sync
    # after the partitions (before the dealloc), and the producer tail's wait on each
    # empty mbarrier after the load loop: 2 * 5 + 1 + 4 + 1 + 2 = 18
    assert len(sync_lines(EXAMPLE.read_text())) == 18


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_the_example_runs_clean(schedule):
    # the run of tests/test_sim_examples.py (compiled with the example's pass options,
    # its roles checked; CHECK's seed-0 inputs), simulated once per session
    # (tests/example_runs.py)
    assert_matches(*example_runs.run(EXAMPLE.name, schedule))


@pytest.mark.slow
@pytest.mark.parametrize("line", sync_lines(EXAMPLE.read_text()))
def test_deleting_any_sync_op_is_caught_by_the_simulator(line):
    lines = EXAMPLE.read_text().splitlines()
    deleted = lines[line].strip()
    del lines[line]
    found = verdict("\n".join(lines) + "\n")
    assert found is not None, f"deleting line {line + 1} ({deleted}) went unnoticed"
