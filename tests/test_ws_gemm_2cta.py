"""The warp-specialized TMA GEMM on a CTA pair, synchronized by hand
(tests/kernels/ws_gemm_2cta_bf16_hand.mlir; examples/ws_gemm_2cta_bf16.mlir is the same
kernel with no synchronization, which tcgen05-insert-sync writes:
tests/test_ws_gemm_2cta_auto.py): three warp roles in each CTA of a cta_group::2 cluster,
TMA loads of each CTA's slices completing on the even CTA's full mbarriers, M = 256 MMAs
issued by the even CTA, commits multicast to both CTAs' empty and accumulator-full
mbarriers, both CTAs' epilogues arriving on the even CTA's accumulator-empty mbarrier,
all synchronization written by hand. It runs in the simulator as a cluster of 2 and
matches NumPy under both schedules (below). tcgen05-verify-sync checks its roles once per
CTA of the pair (tests/test_verify_sync_pairs.py); here each synchronization op is shown
needed by the simulator, independently of the verifier (the mutants are compiled with
partitions=skip): deleting any one gives a race, a deadlock, an mbarrier over-arrival or
a wrong result. The expected verdicts follow from the protocol of the 9.7.16.6.4
canonical patterns and 9.7.13.15 across the pair (docs/cta-pairs.md), not from the
compiler."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import HAND_SYNCHRONIZED, PAIR_HAND_SYNCHRONIZED, requires_ptxas
from sim_checks import SYNC_OP, judge, sync_lines
from tcgen05_lower.driver import CompileFailed, compile_source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "tests" / "kernels" / "ws_gemm_2cta_bf16_hand.mlir"
CHECK = ROOT / "examples" / "ws_gemm_2cta_bf16.check.py"


def verdict(text: str, schedule: str = "late", first_race: bool = False) -> str | None:
    """Why `text` is rejected: by the compiler (its roles unchecked: partitions=skip),
    else by the simulator (None: it runs clean and matches NumPy; `first_race`:
    sim_checks.judge's)."""
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options

    unchecked = override_options(DEFAULT_PIPELINE, list(PAIR_HAND_SYNCHRONIZED))
    try:
        result = compile_source(text, EXAMPLE.name, pipeline=unchecked)
    except CompileFailed as failed:
        return f"rejected by the compiler: {failed}".splitlines()[0]
    return judge(result, CHECK, schedule, first_race=first_race)


def replaced(text: str, old: str, new: str, count: int = 1) -> str:
    assert text.count(old) == count, old
    return text.replace(old, new)


def test_the_example_has_the_sync_ops_of_its_protocol():
    text = EXAMPLE.read_text()
    ops = [SYNC_OP.search(text.splitlines()[i]).group(1) for i in sync_lines(text)]
    # Two tile bodies (one per accumulator stage) of four K blocks (ring stage kb mod 2).
    # Load: per K block a wait on the stage's empty mbarrier and an expect_tx on its full
    # one (8 + 8). MMA: per tile a wait on the accumulator stage's empty mbarrier and
    # fence::after_thread_sync, per K block a wait on full and a commit to empty, and the
    # accumulator stage's commit (2 x (2 + 8 + 1)). Epilogue: per tile a wait on the
    # accumulator stage's full mbarrier, fence::after_thread_sync, wait::ld,
    # fence::before_thread_sync and the arrive on the even CTA's empty mbarrier (2 x 5).
    # The kernel's fence::after_thread_sync after the partitions, and the load warp's
    # producer tail (a wait on each empty mbarrier after its loop): 16 + 22 + 10 + 1 + 2
    # = 51.
    assert len(ops) == 51
    assert ops.count("mbarrier_expect_tx") == 8 and ops.count("commit") == 10
    assert ops.count("mbarrier_wait") == 8 + 2 + 8 + 2 + 2
    assert ops.count("mbarrier_arrive") == 2 and ops.count("wait") == 2
    assert ops.count("fence") == 2 + 4 + 1
    # Every commit signals both CTAs; every arrival goes to the even CTA.
    assert text.count("{multicast_mask = 3 : i64}") == 10
    assert text.count('"tcgen05.mbarrier_arrive"(%acc_empty0) {cta = "even"}') == 1
    assert text.count('"tcgen05.mbarrier_arrive"(%acc_empty1) {cta = "even"}') == 1


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_the_hand_kernel_matches_numpy_race_free(schedule):
    """The hand protocol runs clean as a cluster of 2 (compiled with its roles checked by
    tcgen05-verify-sync, conftest.EXAMPLE_PASS_OPTIONS)."""
    from conftest import example_pipeline

    result = compile_source(EXAMPLE.read_text(), EXAMPLE.name,
                            pipeline=example_pipeline(EXAMPLE))
    assert judge(result, CHECK, schedule) is None


@requires_ptxas
@pytest.mark.parametrize("arch", ["sm_100a", "sm_103a", "sm_110a"])
def test_ptxas_accepts_the_hand_kernel(arch):
    from conftest import example_pipeline
    from tcgen05_lower.backend import run_ptxas

    result = compile_source(EXAMPLE.read_text(), EXAMPLE.name, arch=arch,
                            pipeline=example_pipeline(EXAMPLE))
    assembled = run_ptxas(result.ptx, arch=arch)
    assert assembled.ok, assembled.stderr


def test_verify_sync_checks_the_pairs_roles_with_partitions_check():
    """The default tcgen05-verify-sync (partitions=check) runs both CTAs' roles as
    concurrent programs and finds the kernel ordered (tcgen05_lower/sync_check/pairs.py)."""
    import io

    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options

    pipeline = override_options(DEFAULT_PIPELINE, list(HAND_SYNCHRONIZED) +
                                ["tcgen05-verify-sync{report=true}"])
    report = io.StringIO()
    compile_source(EXAMPLE.read_text(), EXAMPLE.name, pipeline=pipeline, emit="mlir",
                   report_stream=report)
    assert re.search(r"kernel @ws_gemm_2cta_bf16: roles run concurrently, \d+ events run, "
                     r"\d+ pairs checked: ordered", report.getvalue()), report.getvalue()


def test_an_off_by_one_empty_phase_deadlocks():
    """Each CTA's load warp waits for the phase of the previous round of a stage's empty
    mbarrier (parity (r + 1) & 1); waiting for round r's own phase (parity r & 1) in
    tile 0's first K block waits for a commit that only the MMAs of the loads it has not
    issued can make."""
    text = replaced(EXAMPLE.read_text(), "%er0_0 = arith.addi %r0_0, %c1 : index",
                    "%er0_0 = arith.addi %r0_0, %c0 : index")
    found = verdict(text)
    assert found is not None and "deadlock" in found, found


def test_an_accumulator_empty_count_of_one_cta_is_refused():
    """acc_empty has count 256: the 128 epilogue threads of each CTA of the pair arrive
    at the even CTA's mbarrier. Count 128 (one CTA's threads, the count of a one-CTA
    kernel) would complete a phase on the first CTA's arrivals and count the other
    CTA's towards the next one: tcgen05-verify refuses it at the arrive (256 arrivals
    per execution, the count not a multiple of them). So does a count of 384."""
    for count in (128, 384):
        text = replaced(EXAMPLE.read_text(),
                        '%acc_empty0 = "tcgen05.alloc_mbarrier"() {count = 256 : i64}',
                        f'%acc_empty0 = "tcgen05.alloc_mbarrier"() {{count = {count} : i64}}')
        found = verdict(text)
        assert found is not None and "rejected by the compiler" in found and \
            f"count = {count}, not a multiple of 256" in found and \
            "in both CTAs of the pair" in found, found


def test_arrivals_at_each_ctas_own_mbarrier_deadlock():
    """Without cta = "even" each CTA's epilogue arrives at its own acc_empty: 128 of the
    256 arrivals of a phase in each, so the MMA warp's wait for the second round of an
    accumulator stage never returns."""
    text = EXAMPLE.read_text().replace(' {cta = "even"}', "")
    found = verdict(text)
    assert found is not None and "deadlock" in found, found


def test_a_commit_to_the_even_ctas_empty_mbarrier_only_is_caught():
    """The commit releasing a ring stage must signal both CTAs' empty mbarriers: each CTA
    refills its own half of the stage. A plain commit (the even CTA's mbarrier only)
    leaves the odd CTA's load warp without the release: its TMA load overwrites the
    stage while the MMAs still read it, or it waits forever."""
    text = replaced(EXAMPLE.read_text(),
                    '"tcgen05.commit"(%empty0) {multicast_mask = 3 : i64}',
                    '"tcgen05.commit"(%empty0) {multicast_mask = 1 : i64}', count=4)
    assert verdict(text) is not None


@pytest.mark.slow
@pytest.mark.parametrize("line", sync_lines(EXAMPLE.read_text()))
def test_deleting_any_sync_op_is_caught(line):
    lines = EXAMPLE.read_text().splitlines()
    deleted = lines[line].strip()
    del lines[line]
    found = verdict("\n".join(lines) + "\n", first_race=True)
    assert found is not None, f"deleting line {line + 1} ({deleted}) went unnoticed"


def test_compare_compiles_the_pair_with_its_roles_checked():
    """tcgen05-compare replaces a hand-synchronized kernel's insert-sync / verify-sync
    options with strategy=none and partitions=check, for a pair kernel as for a one-CTA
    kernel."""
    from tcgen05_lower.cli.compare import HAND_SYNCHRONIZED_COMBO, kernel_combinations

    combos = [(("tcgen05-insert-sync", "strategy", "minimal"),)]
    assert kernel_combinations(str(EXAMPLE), combos) == [HAND_SYNCHRONIZED_COMBO]
    one_cta = ROOT / "tests" / "kernels" / "ws_persistent_gemm_bf16_hand.mlir"
    assert kernel_combinations(str(one_cta), combos) == [HAND_SYNCHRONIZED_COMBO]


def test_timing_replay_of_the_pair():
    """The timing model replays the cluster of 2: each warp passes each cluster barrier
    once (an arrive and one wait step per barrier, although a wait that blocks runs
    again when released), and the estimate exists."""
    from tcgen05_lower.cli.sim import prepare
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.timing import RecordingMachine

    from conftest import example_pass_options

    ptx, manifest, _, inputs = prepare(str(EXAMPLE), str(CHECK), 0,
                                       pass_options=example_pass_options(EXAMPLE))
    traces = []
    original = RecordingMachine.__init__

    def keep(self, *args, **kw):
        original(self, *args, **kw)
        traces.append(self.recorder.trace)

    RecordingMachine.__init__ = keep
    try:
        result = simulate(ptx, manifest, inputs, timing=True)
    finally:
        RecordingMachine.__init__ = original
    assert result.timing is not None and result.timing.cycles > 0
    for steps in traces[0].warps:
        arrives = [s.barrier for s in steps if s.kind == "cluster_arrive"]
        waits = [s.barrier for s in steps if s.kind == "cluster_wait"]
        # the entry barrier after allocation, the partitions' join, the one after dealloc
        assert arrives == waits == [0, 1, 2]
