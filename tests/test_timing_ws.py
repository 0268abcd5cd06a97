"""The timing model with TMA and warp roles (docs/timing.md): cp.async.bulk.tensor as an
asynchronous load whose complete_tx reaches its mbarrier in model time, and the
warp-specialized 4-stage TMA pipeline (tests/kernels/ws_gemm_bf16_tma_4stage.mlir)
against the single-buffered uniform kernels of the same problem.

Expected cycles of the hand-built traces are derived by hand from PARAMETERS; the
warp-specialized kernel's outputs are checked against NumPy (its check file) and its PTX
by ptxas; the rankings are outputs of the model, asserted as orderings."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import HAND_SYNCHRONIZED, requires_ptxas
from sim_checks import assert_matches
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.sim import timing as T
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.timing import ClusterTrace, Step, replay

ROOT = Path(__file__).resolve().parents[1]
P = {name: prm.value for name, prm in T.PARAMETERS.items()}
WS = ROOT / "tests" / "kernels" / "ws_gemm_bf16_tma_4stage.mlir"
WS_CHECK = ROOT / "tests" / "kernels" / "ws_gemm_bf16_tma_4stage.check.py"
WS_LARGE = ROOT / "benchmarks" / "strategies" / "ws_gemm_bf16_tma_k4096.mlir"
TAG = (0, 1024, 1, 0)     # (CTA, mbarrier address, generation, phase)
#: cycles per byte of a load of a lone SM (every byte a miss): the slower of its L2 port and
#: the DRAM bandwidth, all of it the SM's (docs/timing.md, "Memory")
STREAM = max(1 / P["l2_sm_bytes_per_cycle"], 1 / P["dram_bytes_per_cycle"])


def tma(nbytes: int, tag=TAG) -> Step:
    return Step("tma", tmas=[(0, 0, nbytes, [tag])])


# -- hand-built traces ---------------------------------------------------------------------------

def test_tma_load_completes_its_phase_after_latency_and_bytes():
    """arrive.expect_tx at t = 0, the load at t = 1: its first byte tma_latency later, its
    16 KiB at the DRAM share; the wait issues mbarrier_wait_latency after the last byte
    (rounded up to a cycle) and the warp ends a cycle later. The instruction after the
    load does not wait for it (asynchronous)."""
    steps = [Step("mbar_arrive", arrivals=[TAG]), tma(16384), Step("alu"),
             Step("mbar_wait", wait=TAG)]
    timing = replay(T.single_warp(steps))
    landed = 1 + P["tma_latency"] + STREAM * 16384
    assert timing.cycles == math.ceil(landed + P["mbarrier_wait_latency"]) + 1
    stalls = timing.stalls["CTA 0 warp 0"]
    # the alu issued at t = 2; only the wait stalled
    assert stalls["mbarrier wait"] == math.ceil(landed + P["mbarrier_wait_latency"]) - 3
    assert timing.dram_bytes == 16384


def test_tma_loads_queue_at_the_dram_share():
    """Two loads issued at t = 1 and 2: the second's bytes follow the first's."""
    steps = [Step("mbar_arrive", arrivals=[TAG]), tma(16384), tma(32768),
             Step("mbar_wait", wait=TAG)]
    timing = replay(T.single_warp(steps))
    landed = 1 + P["tma_latency"] + STREAM * (16384 + 32768)
    assert timing.cycles == math.ceil(landed + P["mbarrier_wait_latency"]) + 1


def test_the_phase_also_waits_for_its_expect_tx_arrival():
    """Warp 1 arrives (expect_tx) only after 1500 instructions: the phase completes at
    that arrival, long after the load of warp 0 has landed."""
    loader = [tma(16384), Step("mbar_wait", wait=TAG)]
    late = [Step("alu") for _ in range(1500)] + [Step("mbar_arrive", arrivals=[TAG])]
    timing = replay(ClusterTrace(2, 1, [loader, late]))
    arrival = 1500 + P["mbarrier_arrive_latency"]
    assert arrival > P["tma_latency"] + STREAM * 16384
    assert timing.cycles == arrival + P["mbarrier_wait_latency"] + 1


def test_warps_of_different_roles_issue_concurrently():
    """Warps 0 and 1 are on different schedulers (warp w on w mod 4): 100 instructions
    each end at cycle 100, not 200; warps 0 and 4 share scheduler 0 and take 200."""
    work = [Step("alu") for _ in range(100)]
    assert replay(ClusterTrace(2, 1, [list(work), list(work)])).cycles == 100
    idle = [[] for _ in range(3)]
    assert replay(ClusterTrace(5, 1, [list(work)] + idle + [list(work)])).cycles == 200


def test_calibration_row_of_a_tma_tile():
    landed, released = T.tma_tile_cycles(128 * 64 * 2)
    assert landed == pytest.approx(P["tma_latency"] + STREAM * 16384)
    assert released == math.ceil(1 + landed + P["mbarrier_wait_latency"]) - 1
    row = next(r for r in T.calibration() if r["operation"].startswith("TMA load"))
    assert row["model"].startswith(f"{landed:.0f} cycles issue to complete_tx")
    assert "tma_latency" in row["source"] and "420" in row["published"]


def test_tma_latency_is_documented_as_used():
    source = T.PARAMETERS["tma_latency"].source
    assert "not used" not in source and "arXiv:2512.02189" in source


# -- recorded kernels ----------------------------------------------------------------------------

def test_recorded_tma_loads_of_the_tma_example():
    """examples/gemm_bf16_tma.mlir: 8 K blocks, each one TMA load of A's 128 x 64 bf16
    tile (16 KiB) and one of B's 256 x 64 (32 KiB); the epilogue stores C, 128 x 256 f32.
    Those are all the DRAM bytes the model sees."""
    path = ROOT / "examples" / "gemm_bf16_tma.mlir"
    ptx, manifest, _, inputs = prepare(str(path), str(path.with_suffix(".check.py")), 0)
    timing = simulate(ptx, manifest, inputs, timing=True).timing
    cluster = timing.clusters[0]
    loads = [e["name"] for e in cluster.events if e["name"].startswith("TMA")]
    assert sorted(loads) == ["TMA 16384 B"] * 8 + ["TMA 32768 B"] * 8
    assert cluster.dram_bytes == 8 * (16384 + 32768) + 128 * 256 * 4


@pytest.fixture(scope="module")
def ws_kernel():
    return prepare(str(WS), str(WS_CHECK), 0, pass_options=HAND_SYNCHRONIZED)


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_ws_kernel_matches_numpy_race_free(ws_kernel, schedule):
    ptx, manifest, problem, inputs = ws_kernel
    fresh = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    assert_matches(problem, inputs, simulate(ptx, manifest, fresh, schedule=schedule))


def test_ws_kernel_has_a_four_stage_ring(ws_kernel):
    """4 stages x (A 16 KiB + B 32 KiB) of dynamic shared memory, and 8 TMA loads in
    the PTX's loop body: 4 stages x 2 operands."""
    ptx, manifest, _, _ = ws_kernel
    assert manifest["dynamic_smem_bytes"] == 4 * (16384 + 32768)
    assert len(re.findall(r"cp\.async\.bulk\.tensor", ptx)) == 8


@requires_ptxas
@pytest.mark.parametrize("target", ["sm_100a", "sm_103a", "sm_110a"])
def test_ws_kernel_assembles(target):
    from tcgen05_lower.driver import compile_source
    from conftest import example_pipeline
    result = compile_source(WS.read_text(), WS.name, arch=target,
                            pipeline=example_pipeline("ws_gemm_bf16"))
    assembled = run_ptxas(result.ptx, arch=target)
    assert assembled.ok, assembled.stderr


def test_large_kernel_is_the_test_kernel_with_k_4096():
    """benchmarks/strategies/WS.md's kernel differs from the tested one only in K (and
    its name and comments)."""
    def code(path, name):
        return [line.replace(name, "KERNEL") for line in path.read_text().splitlines()
                if not line.startswith("//")]
    small = code(WS, "ws_gemm_bf16_tma_4stage")
    large = code(WS_LARGE, "ws_gemm_bf16_tma_k4096")
    differ = [(a, b) for a, b in zip(small, large) if a != b]
    assert len(small) == len(large)
    assert differ == [("  %cK = arith.constant 512 : index",
                       "  %cK = arith.constant 4096 : index")]


# -- the ranking (issue 14, acceptance 2: warp-specialized pipeline vs uniform kernel) ---------

def _estimate(path: Path, pass_options=()):
    ptx, manifest, problem, inputs = prepare(
        str(path), str(path.with_suffix(".check.py")) if path.with_suffix(".check.py")
        .exists() else "gemm", 0, pass_options=pass_options)
    fresh = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    run = simulate(ptx, manifest, fresh, timing=True)
    assert_matches(problem, inputs, run)
    return run.timing


def test_ws_pipeline_is_estimated_faster_than_the_uniform_kernels():
    """On the K-loop problem (M = 128, N = 256, K = 512), the 4-stage warp-specialized
    TMA pipeline is estimated faster than the single-buffered uniform kernel, with its
    tiles filled by every thread (examples/gemm_bf16_kloop.mlir) or by TMA
    (examples/gemm_bf16_tma.mlir), and keeps the tensor pipe busier."""
    ws = _estimate(WS, HAND_SYNCHRONIZED)
    uniform = _estimate(ROOT / "examples" / "gemm_bf16_kloop.mlir")
    uniform_tma = _estimate(ROOT / "examples" / "gemm_bf16_tma.mlir")
    assert ws.cycles < uniform_tma.cycles < uniform.cycles
    assert ws.utilisation["tensor pipe"] > uniform_tma.utilisation["tensor pipe"]
    # the gain is overlap: the ring keeps loads in flight while the MMAs run, so the
    # DRAM share (the bottleneck) is busier
    assert ws.utilisation["DRAM share"] > uniform_tma.utilisation["DRAM share"]


def test_compare_runs_hand_synchronized_kernels(tool):
    """tcgen05-compare compiles a kernel with warp roles with insert-sync none and
    verify-sync checking its roles, whatever the grid says of insert-sync."""
    import json
    out = tool("tcgen05-compare", str(WS), "--grid",
               "tcgen05-insert-sync.strategy=minimal,conservative", "--format", "json",
               "--jobs", "1")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["combination"] for r in rows] == ["none / partitions=check"]
    assert rows[0]["compiled"] and rows[0]["same"] == "yes" and rows[0]["cycles"] > 0


def test_docs_tables_are_the_models():
    """docs/timing.md shows the parameter and calibration tables the code produces."""
    text = (ROOT / "docs" / "timing.md").read_text()
    assert T.parameters_markdown() in text
    assert T.calibration_markdown() in text
