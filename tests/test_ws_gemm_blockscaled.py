"""The block-scaled warp-specialized GEMMs (issue 38, item 1): examples/
ws_gemm_mxf8_blockscaled.mlir (kind::mxf8f6f4, e4m3 with ue8m0 factors, block 32),
examples/ws_gemm_nvf4_blockscaled.mlir (kind::mxf4nvf4, e2m1 with ue4m3 factors,
block 16) and examples/ws_gemm_mxf4_blockscaled.mlir (kind::mxf4, e2m1 with ue8m0
factors, block 32). Each writes no synchronization; tcgen05-insert-sync writes the TMA ring
protocol with the scale factors' tcgen05.cp per stage (tcgen05_lower/synchronization/
scale_copies.py) around a K loop whose trip count is a kernel argument
(synchronization/rings.py, run-time trip counts).

Expected values: the protocol is counted by hand from the ring protocol's table
(rings.py, docs/partitions.md) plus the one fence scale_copies.py adds (9.7.16.6.4.2);
the results come from the check files' NumPy references (ml_dtypes decodes the elements
and factors, independently of the compiler and the simulator); ptxas assembles the PTX.
Deleting any op the pass inserted must be caught by tcgen05-verify-sync and by the
simulator (the mutation machinery of tests/test_ws_persistent_gemm.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import example_runs
from conftest import requires_ptxas
from sim_checks import judge, sync_lines
from test_sync_common import deletion_mutants, plan, verify
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.sync_check.runtime_bounds import trip_counts
from tcgen05_lower.pipeline import LOWERING

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MXF8 = EXAMPLES / "ws_gemm_mxf8_blockscaled.mlir"
MXF8_CHECK = EXAMPLES / "ws_gemm_mxf8_blockscaled.check.py"
NVF4 = EXAMPLES / "ws_gemm_nvf4_blockscaled.mlir"
NVF4_CHECK = EXAMPLES / "ws_gemm_nvf4_blockscaled.check.py"
MXF4 = EXAMPLES / "ws_gemm_mxf4_blockscaled.mlir"
MXF4_CHECK = EXAMPLES / "ws_gemm_mxf4_blockscaled.check.py"
#: (kernel, check file, the PTX of its MMA and of its copies, sizes to run besides the
#: check file's: a grid of 2 x 2 CTAs with edge tiles on both sides, and one partial K
#: block, fewer uses than the ring's stages).
KERNELS = {
    "mxf8": (MXF8, MXF8_CHECK, "kind::mxf8f6f4.block_scale.scale_vec::1X",
             [{"M": 200, "N": 136, "K": 272}, {"M": 64, "N": 40, "K": 48}]),
    "nvf4": (NVF4, NVF4_CHECK, "kind::mxf4nvf4.block_scale.scale_vec::4X",
             [{"M": 200, "N": 136, "K": 288}, {"M": 60, "N": 30, "K": 32}]),
    "mxf4": (MXF4, MXF4_CHECK, "kind::mxf4.block_scale.block32",
             [{"M": 200, "N": 136, "K": 288}, {"M": 60, "N": 30, "K": 32}]),
}
#: The copies per K block (one per scale buffer: A and B, times the MMAs of a block
#: that each need their own, Table 54 / 9.7.16.10.7.2).
COPIES = {"mxf8": 2, "nvf4": 4, "mxf4": 2}
#: The mutants are compiled without verify-sync's check of the roles, so that the
#: simulator must catch each one itself.
AFTER_SYNC = ",".join(("tcgen05-verify-sync{partitions=skip}",) + LOWERING)
#: The kernel's parameters in order: the planned kernel prints them as %arg0.., and the
#: check file binds them by the source's names.
PARAMS = ("A", "B", "SFA", "SFB", "C", "M", "N", "K", "tmA", "tmB", "tmSFA", "tmSFB")

#: The protocol, by hand: per K block the load role's wait on empty_s and expect_tx on
#: full_s (2), the MMA role's wait on full_s, fence::after_thread_sync before the copies
#: (the next round's cp into a TMEM stage after the MMAs that read it) and commit to
#: empty_s (3); per tile the commit to acc_full (1; the accumulator holds one tile, so no
#: acc_empty under minimal), the epilogue's wait on acc_full, fence::after_thread_sync,
#: wait::ld and fence::before_thread_sync (4); the kernel's fence::after_thread_sync after
#: the join (1); the producer tail, a wait on each of the 2 empty stages (2).
PROTOCOL = {"mbarrier_wait": 1 + 1 + 1 + 2, "mbarrier_expect_tx": 1, "commit": 2,
            "fence::after": 3, "fence::before": 1, "wait::ld": 1}


def named(text: str) -> str:
    """The kernel's parameters by their source names (%arg12 on are region arguments)."""
    return re.sub(r"%arg(\d+)\b", lambda m: "%" + PARAMS[int(m.group(1))]
                  if int(m.group(1)) < len(PARAMS) else m.group(0), text)


def planned_verdict(text: str, check: Path, schedule: str = "late",
                    first_race: bool = False) -> str | None:
    """Why the simulator rejects the planned `text` (None: clean and right; `first_race`:
    sim_checks.judge's)."""
    try:
        result = compile_source(named(text), check.name.replace(".check.py", ".mlir"),
                                pipeline=AFTER_SYNC)
    except CompileFailed as failed:
        return f"rejected by the compiler: {failed}".splitlines()[0]
    return judge(result, check, schedule, first_race=first_race)


@pytest.mark.parametrize("which", KERNELS)
def test_the_example_writes_no_synchronization(which):
    text = KERNELS[which][0].read_text()
    assert sync_lines(text) == []
    assert "alloc_mbarrier" not in text and "!tcgen05.mbarrier" not in text
    assert text.count('"tcgen05.cp"') == COPIES[which]


@pytest.mark.parametrize("which", KERNELS)
def test_the_pass_writes_the_protocol_with_one_fence_for_the_copies(which):
    path = KERNELS[which][0]
    planned = plan(path, "minimal")
    counts = planned.counts[path.stem]
    assert {k: v for k, v in counts.items() if v and k != "total"} == PROTOCOL
    assert counts["total"] == 13
    # The fence sits between the MMA role's full_s wait and the stage's first cp.
    lines = planned.text.splitlines()
    first_cp = next(i for i, line in enumerate(lines) if '"tcgen05.cp"' in line)
    before = [line for line in lines[:first_cp] if '"tcgen05.' in line][-2:]
    assert '"tcgen05.mbarrier_wait"' in before[0] and "after_thread_sync" in before[1]
    # The producer tail's parities are computed at run time (the number of K blocks is
    # a kernel argument), not constants.
    assert planned.text.count("producer tail") == 2
    assert "arith.maxsi" in planned.text
    assert verify(planned.text, planned.source_name) == []


def test_verify_sync_runs_every_count_of_the_phase_period():
    # Rings of 2 stages (full, empty; the accumulator's acc_full has 1): period
    # 2 * lcm(2, 2, 1) = 4, counts 1 .. 6.
    planned = plan(MXF8, "minimal")
    from tcgen05_lower import dialect as d
    from tcgen05_lower.parsing import parse_module

    with d.make_context():
        module = parse_module(planned.text, MXF8.name)
        kernel = d.kernels(module)[0]
        assert trip_counts(kernel) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("sizes", [0, 1, 2])
@pytest.mark.parametrize("which", KERNELS)
def test_the_example_matches_numpy_race_free(which, sizes, schedule, tmp_path):
    """The check file's sizes (one CTA, 3 or 4 K blocks, the last partial: the ring
    wraps), a grid of 2 x 2 CTAs with edge tiles on both sides, and one partial K block
    (fewer uses than stages: the tail's wait on stage 1 is for the phase before its
    first)."""
    path, check, _, more = KERNELS[which]
    if sizes:
        text = check.read_text()
        check = tmp_path / check.name
        check.write_text(re.sub(r"\nSCALARS = \{[^}]*\}", f"\nSCALARS = {more[sizes - 1]!r}",
                                text))
    result = compile_source(path.read_text(), path.name)
    assert judge(result, check, schedule) is None


@requires_ptxas
@pytest.mark.parametrize("which", KERNELS)
def test_ptxas_accepts_the_example(which):
    path, _, mma, _ = KERNELS[which]
    result, assembled = example_runs.assembled(path.name, "sm_100a")   # shared, per session
    assert result.ptx.count("tcgen05.cp.cta_group::1.32x128b.warpx4") == COPIES[which]
    assert mma in result.ptx
    assert assembled.ok, assembled.stderr


@pytest.mark.slow   # about 30 s each: 13 mutants, each verified and simulated
@pytest.mark.parametrize("which", KERNELS)
def test_deleting_any_inserted_op_is_caught_by_verify_sync_and_the_simulator(which):
    """Among them the fence before the copies: without it the next round's cp into a
    TMEM stage is not ordered after the MMAs that read the previous round's factors
    (verify-sync names the two copies; the simulator reports the race)."""
    path, check, _, _ = KERNELS[which]
    planned = plan(path, "minimal")
    assert planned_verdict(planned.text, check) is None
    mutants = list(deletion_mutants(planned.text, planned.source_name))
    assert len(mutants) == 13
    unnoticed = []
    for description, text in mutants:
        flagged = verify(text, path.name)
        found = planned_verdict(text, check, first_race=True)   # only whether it is caught
        # caught by the simulator itself: the mutants compile (verify-sync's role check
        # is skipped), so a compiler rejection would be a failure of the harness
        if not flagged or found is None or found.startswith("rejected by the compiler"):
            unnoticed.append((description, flagged, found))
    assert unnoticed == []


def test_the_check_files_input_ranges_are_checked(tmp_path):
    from tcgen05_lower.cli.sim_check_file import file_problem
    from tcgen05_lower.cli.sim_problem import CheckFileError

    result = compile_source(MXF8.read_text(), MXF8.name)
    good = file_problem(str(MXF8_CHECK), result.manifest)
    assert good.ranges == {"SFA": (120, 134), "SFB": (120, 134)}
    bad = tmp_path / "bad.check.py"
    bad.write_text(MXF8_CHECK.read_text().replace('"SFB": (120, 134)', '"SFB": (134, 120)'))
    with pytest.raises(CheckFileError, match="INPUT_RANGES must be a dict"):
        file_problem(str(bad), result.manifest)


# -- the CTA-pair variant (examples/ws_gemm_mxf8_blockscaled_2cta.mlir) ------------------------

MXF8_2CTA = EXAMPLES / "ws_gemm_mxf8_blockscaled_2cta.mlir"
MXF8_2CTA_CHECK = EXAMPLES / "ws_gemm_mxf8_blockscaled_2cta.check.py"
#: Sizes besides the check file's (one pair, 4 K blocks): 2 x 2 pairs with edge tiles on
#: both sides (8 CTAs), and one pair with one partial K block whose odd CTA holds no row
#: of A (M <= 128: its rows are all outside A, TMA fills zeros).
MORE_2CTA = [{"M": 300, "N": 136, "K": 272}, {"M": 100, "N": 40, "K": 48}]


def test_the_pair_example_writes_no_synchronization_and_gets_the_one_cta_protocol():
    """The pair protocol has the one-CTA op count (docs/cta-pairs.md: the signals go where
    the waits are), so the hand count PROTOCOL holds; verify-sync accepts it."""
    text = MXF8_2CTA.read_text()
    assert sync_lines(text) == [] and "alloc_mbarrier" not in text
    planned = plan(MXF8_2CTA, "minimal")
    counts = planned.counts[MXF8_2CTA.stem]
    assert {k: v for k, v in counts.items() if v and k != "total"} == PROTOCOL
    assert verify(planned.text, planned.source_name) == []
    # The even CTA's expect_tx announces both CTAs' bytes of a stage: 2 x (A 16384 +
    # B 8192 + SFA 512 + SFB 512) = 51200 (each CTA loads its own copy of SFB's tile).
    assert "bytes = 51200" in planned.text


@pytest.mark.parametrize("schedule, sizes", [("late", 0), ("eager", 0), ("late", 1),
                                             ("eager", 2)])
def test_the_pair_example_matches_numpy_race_free(schedule, sizes, tmp_path):
    """Each CTA's A scale factors are its own rows' and the B scale factors all N in both
    CTAs: were the copy to give the odd CTA the even CTA's tile (the reading of
    tcgen05.cp.cta_group::2 before pair_scale_tiles.py), rows 128 .. of each pair tile
    would get the wrong factors (max relative error 1.25 at the check file's sizes); were
    the odd CTA's SFB load shifted by its rank like A's, its B factors would be the next
    K block's."""
    check = MXF8_2CTA_CHECK
    if sizes:
        check = tmp_path / check.name
        check.write_text(re.sub(r"\nSCALARS = \{[^}]*\}",
                                f"\nSCALARS = {MORE_2CTA[sizes - 1]!r}",
                                MXF8_2CTA_CHECK.read_text()))
    result = compile_source(MXF8_2CTA.read_text(), MXF8_2CTA.name)
    assert judge(result, check, schedule) is None


@requires_ptxas
def test_ptxas_accepts_the_pair_example():
    result, assembled = example_runs.assembled(MXF8_2CTA.name, "sm_100a")  # shared
    assert result.ptx.count("tcgen05.cp.cta_group::2.32x128b.warpx4") == 2
    assert "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X" in result.ptx
    assert assembled.ok, assembled.stderr


# Deleting any inserted op of the pair example: tests/test_sim_mutation.py (every example
# the compiler synchronizes), verify-sync and the simulator.
