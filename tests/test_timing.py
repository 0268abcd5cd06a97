"""The timing model (tcgen05_lower/sim/timing/) and tcgen05-compare.

Expected cycles are derived by hand from PARAMETERS; the rankings are deterministic outputs
of the model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import synchronized_by_the_compiler
from tcgen05_lower.sim import timing as T
from tcgen05_lower.sim.timing import ClusterTrace, MmaCost, Step, mma_cycles, replay

ROOT = Path(__file__).resolve().parents[1]
P = {name: prm.value for name, prm in T.PARAMETERS.items()}


def test_mma_cycles_follow_the_published_rates():
    # 2 * 128 * 256 * 16 FLOP at 8192 FLOP/cycle; the 12 KiB of A and B at 128 B/cycle
    # take 96 cycles, so the math bounds it
    assert mma_cycles(MmaCost("f16", 128, 256)) == (128.0, 128.0)
    # N = 64: 32 cycles of math, (4096 + 2048) B / 128 B/cycle = 48 cycles of reading
    assert mma_cycles(MmaCost("f16", 128, 64)) == (48.0, 32.0)
    # tf32 at half the f16 rate with half the K: the same 128 cycles
    assert mma_cycles(MmaCost("tf32", 128, 256)) == (128.0, 128.0)
    # fp4 at four times the f16 rate with four times the K
    assert mma_cycles(MmaCost("mxf4nvf4", 128, 256)) == (128.0, 128.0)
    # a pair's M = 256: each SM computes 128 rows
    assert mma_cycles(MmaCost("f16", 256, 256, cta_group=2)) == (128.0, 128.0)
    # M = 64 takes the time of 128 rows (half the datapath idle)
    assert mma_cycles(MmaCost("f16", 64, 256))[1] == 128.0


def _single_mma_trace(cost):
    tag = (0, 1032, 1, 0)
    return ClusterTrace(1, 1, [[Step("async", asyncs=[(0, 0, "mma", cost)]),
                                Step("commit", commits=[(0, [tag])]),
                                Step("mbar_wait", wait=tag)]])


def test_one_mma_then_commit_then_wait():
    # t = 0 the MMA issues, enters the pipe mma_issue_latency later, runs 128 cycles and
    # completes mma_latency after; the commit (t = 1) arrives commit_latency after that;
    # the wait issues mbarrier_wait_latency after the arrival and the warp ends a cycle on
    timing = replay(_single_mma_trace(MmaCost("f16", 128, 256)))
    done = P["mma_issue_latency"] + 128 + P["mma_latency"]
    arrival = done + P["commit_latency"]
    assert timing.cycles == arrival + P["mbarrier_wait_latency"] + 1
    assert timing.tensor_busy == 128
    stalls = timing.stalls["CTA 0 warp 0"]
    assert stalls["mbarrier wait"] == arrival + P["mbarrier_wait_latency"] - 2


def test_mmas_queue_in_the_tensor_pipe():
    cost = MmaCost("f16", 128, 256)
    tag = (0, 1032, 1, 0)
    trace = ClusterTrace(1, 1, [[Step("async", asyncs=[(0, 0, "mma", cost)]),
                                 Step("async", asyncs=[(0, 0, "mma", cost)]),
                                 Step("commit", commits=[(0, [tag])]),
                                 Step("mbar_wait", wait=tag)]])
    # the second MMA starts when the first leaves the pipe: 8 + 2 * 128 + drain
    done = P["mma_issue_latency"] + 2 * 128 + P["mma_latency"]
    assert replay(trace).cycles == done + P["commit_latency"] + \
        P["mbarrier_wait_latency"] + 1


def test_tmem_load_then_wait_ld():
    # .32x32b.x32: 4096 B at 128 B/cycle = 32 cycles, then tmem_ld_latency
    trace = T.single_warp([Step("tmem_ld", nbytes=4096, dsts=("%r1",)), Step("wait_ld")])
    timing = replay(trace)
    assert timing.cycles == 32 + P["tmem_ld_latency"] + 1
    assert timing.stalls["CTA 0 warp 0"]["wait::ld"] == 32 + P["tmem_ld_latency"] - 1


def test_global_load_latency_and_register_dependency():
    trace = T.single_warp([Step("ld_global", nbytes=512, dsts=("%r1",)),
                           Step("alu", srcs=("%r1",))])
    timing = replay(trace)
    # the data is back global_latency after issue (a miss: nothing else loads it) plus its
    # 512 bytes at the slower of the SM's L2 port and its DRAM share (the SM alone: all
    # of the DRAM bandwidth); the add issues on the next whole cycle
    stream = max(512 / P["l2_sm_bytes_per_cycle"], 512 / P["dram_bytes_per_cycle"])
    ready = int(np.ceil(P["global_latency"] + stream))
    assert timing.cycles == ready + 1
    assert timing.stalls["CTA 0 warp 0"]["register dependency"] == ready - 1


def test_barrier_waits_for_every_warp():
    slow = [Step("alu") for _ in range(10)] + [Step("barrier", barrier=0), Step("alu")]
    fast = [Step("barrier", barrier=0), Step("alu")]
    timing = replay(ClusterTrace(2, 1, [slow, fast]))
    release = 10 + P["barrier_latency"]     # the slow warp arrives at cycle 10
    assert timing.cycles == release + 1
    assert timing.stalls["CTA 0 warp 1"]["barrier"] == release - 1


def test_overrides_change_the_estimate():
    base = replay(_single_mma_trace(MmaCost("f16", 128, 256))).cycles
    slower = replay(_single_mma_trace(MmaCost("f16", 128, 256)),
                    {"mma_flops_f16": 4096}).cycles
    assert slower == base + 128


def test_calibration_table_rows():
    rows = T.calibration()
    mma = rows[0]
    assert "kind::f16 M=128 N=256 K=16" in mma["operation"]
    assert mma["model"].startswith("128 cycles in the pipe (2.26 PFLOP/s")
    assert any("TMA" in r["operation"] for r in rows)
    assert all(r["source"] for r in rows)


def _compile(path):
    from tcgen05_lower.driver import compile_source
    return compile_source(Path(path).read_text(), str(path))


def _gemm_inputs(path, manifest):
    from tcgen05_lower.cli.compare import kernel_inputs
    return kernel_inputs(str(path), manifest, 0)[0]


def test_timing_leaves_the_functional_run_unchanged(tmp_path):
    from tcgen05_lower.sim.api import simulate
    path = ROOT / "examples" / "gemm_bf16_128x256.mlir"
    result = _compile(path)
    plain = simulate(result.ptx, result.manifest, _gemm_inputs(path, result.manifest))
    timed = simulate(result.ptx, result.manifest, _gemm_inputs(path, result.manifest),
                     timing=True)
    assert plain.timing is None and timed.timing is not None
    assert plain.counts == timed.counts and plain.ok and timed.ok
    for name in plain.outputs:
        assert np.array_equal(plain.outputs[name], timed.outputs[name], equal_nan=True)
    # every warp instruction of the functional run is replayed, but failed try_waits and
    # the branch back of their spin loop
    replayed = timed.timing.clusters[0].warp_instructions
    spins = timed.counts.get("mbarrier.try_wait.parity.shared::cta.b64", 0)
    assert plain.warp_instructions - 2 * spins <= replayed <= plain.warp_instructions
    # the Chrome trace has a track per warp and per unit
    trace_file = tmp_path / "t.json"
    timed.timing.write_chrome_trace(trace_file)
    events = json.loads(trace_file.read_text())["traceEvents"]
    tracks = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    # warp tracks are named by what the warp does (here every warp loads from TMEM)
    assert {f"CTA 0 warp {w}" for w in range(4)} == {t.split(" (")[0] for t in tracks
                                                     if " warp " in t}
    assert all(t.endswith("epilogue)") for t in tracks if " warp " in t)
    assert {"CTA 0 tensor pipe", "CTA 0 memory (L2 port)"} <= tracks
    assert any(e["name"].startswith("mma.f16 M128 N256") for e in events)


def _estimate(path, pipeline=None):
    from tcgen05_lower.driver import compile_source
    kwargs = {"pipeline": pipeline} if pipeline else {}
    return _estimate_compiled(path, compile_source(Path(path).read_text(), str(path),
                                                   **kwargs))


def _estimate_compiled(path, result):
    from tcgen05_lower.sim.api import simulate
    run = simulate(result.ptx, result.manifest, _gemm_inputs(path, result.manifest),
                   timing=True)
    assert run.ok
    return run.timing


def test_double_buffered_accumulator_is_estimated_faster():
    double = _estimate(ROOT / "examples" / "persistent_gemm_bf16.mlir")
    single = _estimate(ROOT / "tests" / "kernels" / "persistent_gemm_one_accumulator.mlir")
    assert double.cycles < single.cycles
    # the overlap shows as less time waiting for the MMAs
    waits = lambda t: sum(s["mbarrier wait"] for s in t.stalls.values())  # noqa: E731
    assert waits(double) < waits(single)


@pytest.mark.slow
@pytest.mark.parametrize("path", synchronized_by_the_compiler(
    sorted((ROOT / "examples").glob("*.mlir"))), ids=lambda p: p.stem)
def test_conservative_sync_is_never_estimated_faster(path):
    from tcgen05_lower.cli.compare import pipeline_for
    from tcgen05_lower.driver import compile_source

    compiled = [compile_source(Path(path).read_text(), str(path), pipeline=pipeline_for(
        (("tcgen05-insert-sync", "strategy", strategy),))) for strategy in
        ("minimal", "conservative")]
    minimal = _estimate_compiled(path, compiled[0])
    if len({(c.ptx, json.dumps(c.manifest, sort_keys=True)) for c in compiled}) == 1:
        # both strategies wrote the same protocol (the warp-role kernels' rings): the same
        # PTX on the same inputs gives the same estimate, so one simulation decides it
        return
    conservative = _estimate_compiled(path, compiled[1])
    assert conservative.cycles >= minimal.cycles


def test_compare_cli_json(tool):
    out = tool("tcgen05-compare", str(ROOT / "examples" / "gemm_bf16_128x256.mlir"),
               "--grid", "tcgen05-insert-sync.strategy=minimal,conservative",
               "--format", "json", "--jobs", "1")
    rows = json.loads(out.stdout)
    assert [r["combination"] for r in rows] == ["minimal", "conservative"]
    assert all(r["compiled"] and r["same"] == "yes" for r in rows)
    assert rows[0]["tmem_columns"] == 256 and rows[0]["sync"]["commit"] == 1
    assert rows[1]["sync"]["commit"] > rows[0]["sync"]["commit"]
    assert rows[0]["cycles"] <= rows[1]["cycles"]
    assert rows[0]["spill_bytes"] == 0 and rows[0]["registers"] > 0


def test_compare_cli_rejects_a_bad_grid(tool):
    out = tool("tcgen05-compare", str(ROOT / "examples" / "gemm_bf16_128x256.mlir"),
               "--grid", "tcgen05-plan-tmem")
    assert out.returncode == 1 and "PASS.OPTION=VALUE" in out.stderr


def test_count_instructions():
    from tcgen05_lower.cli.compare import count_instructions
    ptx = """.version 8.6
.visible .entry k(
)
{
	.reg .b32 %r<3>;
$L__BB0_1:
	mov.u32 %r1, 0; // a comment
	@%p1 bra $L__BB0_1;
	{ .reg .pred d; w: mbarrier.try_wait.parity.shared::cta.b64 d, [%r1], %r2; @!d bra w; }
	ret;
}
"""
    assert count_instructions(ptx) == 5


def test_a_wait_that_lost_the_issue_slot_is_booked_as_a_wait_and_one_slot():
    """Warp 4 shares scheduler 0 with warp 0, which issues every cycle. Warp 1 arrives
    at t = 0; the phase completes mbarrier_arrive_latency later and warp 4 may issue
    mbarrier_wait_latency after that (t = 30), but warp 0 holds that cycle's slot, so
    warp 4 issues at 31: 30 cycles of mbarrier wait and 1 of issue slot (hand
    derivation), not 31 of issue slot."""
    tag = (0, 1032, 1, 0)
    busy = [Step("alu") for _ in range(100)]
    arriver = [Step("mbar_arrive", arrivals=[tag])]
    waiter = [Step("mbar_wait", wait=tag)]
    timing = replay(ClusterTrace(5, 1, [busy, arriver, [], [], waiter]))
    ready = P["mbarrier_arrive_latency"] + P["mbarrier_wait_latency"]
    stalls = timing.stalls["CTA 0 warp 4"]
    assert stalls["mbarrier wait"] == ready
    assert stalls["issue slot"] == 1
