"""The timing model's memory hierarchy and whole-grid estimate (issue 36): an L2 between
global / TMA accesses and DRAM, DRAM and L2 bandwidth shared by the SMs active in a wave,
reuse of a tile that several CTAs of a wave load; Recording (record once, replay under
other parameters); --timing-param and --timing-only; the Chrome trace's names.

Expected cycles and bytes of hand-built traces are derived by hand from PARAMETERS; the
ring-depth ordering is the model's output on recordings of the one-tile warp-specialized
GEMM (benchmarks/timing/ring_depth.py, each checked against NumPy when recorded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcgen05_lower.sim import timing as T
from tcgen05_lower.sim.timing import ClusterTrace, Recording, Step

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "timing"
P = {name: prm.value for name, prm in T.PARAMETERS.items()}
TAG = (0, 1024, 1, 0)
TILE = 32768


def _loader(key, nbytes=TILE) -> ClusterTrace:
    """One warp: arrive.expect_tx, a TMA load of `key`, the wait for it."""
    return T.single_warp([Step("mbar_arrive", arrivals=[TAG]),
                          Step("tma", tmas=[(0, 0, nbytes, [TAG], key)]),
                          Step("mbar_wait", wait=TAG)])


def _landed(timing) -> float:
    return max(ev["end"] for ev in timing.events if ev["cat"] == "memory")


# -- the memory hierarchy, hand-built traces -------------------------------------------------------

def test_a_lone_sm_streams_at_its_l2_port():
    """Alone on the GPU the SM has all of the DRAM bandwidth (4301 B/cycle), so its L2 port
    (128 B/cycle) bounds it: the load lands tma_latency + 32768 / 128 cycles after its issue
    at t = 1."""
    timing = T.replay(_loader(("A", 0, 0, TILE)))
    assert _landed(timing) == pytest.approx(1 + P["tma_latency"]
                                            + TILE / P["l2_sm_bytes_per_cycle"])
    assert timing.dram_bytes == TILE and timing.l2_bytes == TILE


def test_dram_is_shared_by_the_active_sms():
    """148 CTAs in one wave each load a tile of their own: each SM's DRAM share is
    4301 / 148 = 29.06 B/cycle, slower than its L2 port, so the load streams at the share."""
    rec = Recording([_loader(("A", i, 0, TILE)) for i in range(148)],
                    [(i, 0, 0) for i in range(148)], (148, 1, 1))
    result = rec.replay()
    assert result.waves == 1
    share = P["dram_bytes_per_cycle"] / 148
    assert share < P["l2_sm_bytes_per_cycle"]
    assert _landed(result.clusters[0]) == pytest.approx(1 + P["tma_latency"] + TILE / share)


def test_a_tile_the_wave_shares_costs_dram_once():
    """Four CTAs of a wave load the same tile: DRAM gives its bytes once (a quarter of each
    load misses), and each SM's latency is l2_latency + (tma_latency - l2_latency) / 4."""
    rec = Recording([_loader(("A", 0, 0, TILE)) for _ in range(4)],
                    [(i, 0, 0) for i in range(4)], (4, 1, 1))
    result = rec.replay()
    assert sum(c.dram_bytes for c in result.clusters) == pytest.approx(TILE)
    latency = P["l2_latency"] + (P["tma_latency"] - P["l2_latency"]) / 4
    stream = max(TILE / P["l2_sm_bytes_per_cycle"], TILE / 4 / (P["dram_bytes_per_cycle"] / 4))
    assert _landed(result.clusters[0]) == pytest.approx(1 + latency + stream)


def test_a_wave_larger_than_the_l2_loses_its_reuse():
    """With l2_bytes half the wave's distinct bytes, a reload hits only half the time: of
    the 2 loads of one tile, each misses 1/2 + 1/2 * 1/2 = 3/4 (hand derivation)."""
    rec = Recording([_loader(("A", 0, 0, TILE)) for _ in range(2)],
                    [(0, 0, 0), (1, 0, 0)], (2, 1, 1))
    result = rec.replay({"l2_bytes": TILE / 2})
    assert sum(c.dram_bytes for c in result.clusters) == pytest.approx(2 * TILE * 0.75)


def test_waves_are_taken_in_launch_order_with_the_sm_count():
    """sms = 2: 5 CTAs run in 3 waves; the last wave's CTA is alone."""
    rec = Recording([_loader(("A", i, 0, TILE)) for i in range(5)],
                    [(i, 0, 0) for i in range(5)], (5, 1, 1))
    result = rec.replay({"sms": 2})
    assert result.waves == 3
    lone = T.replay(_loader(("A", 4, 0, TILE)))
    assert result.clusters[4].cycles == lone.cycles


def test_timing_only_shares_rows_and_columns_of_the_grid():
    """A grid of 4 x 2 clusters, one wave (sms = 8). Cluster (x, y) loads A tile (0, y) and
    B tile (x, 0); the recorded neighbours show A shared along the row and B along the
    column. So A is loaded by the 4 clusters of a row (each misses 1/4 of it), B by the 2 of
    a column (1/2): cluster (0, 0) takes A / 4 + B / 2 bytes from DRAM (hand derivation)."""
    def cta(x, y):
        tag_a, tag_b = (0, 1024, 1, 0), (0, 1032, 1, 0)
        return T.single_warp([Step("mbar_arrive", arrivals=[tag_a, tag_b]),
                              Step("tma", tmas=[(0, 0, 16384, [tag_a], ("A", 0, y, 16384))]),
                              Step("tma", tmas=[(0, 0, TILE, [tag_b], ("B", x, 0, TILE))]),
                              Step("mbar_wait", wait=tag_a), Step("mbar_wait", wait=tag_b)])
    rec = Recording([cta(0, 0), cta(1, 0), cta(0, 1)], [(0, 0, 0), (1, 0, 0), (0, 1, 0)],
                    (4, 2, 1))
    assert not rec.complete
    assert rec.key_classes() == {("A", 0, 0, 16384): "row", ("B", 0, 0, TILE): "column"}
    result = rec.replay({"sms": 8})
    assert result.waves == 1 and len(result.clusters) == 8
    assert result.clusters[0].dram_bytes == pytest.approx(16384 / 4 + TILE / 2)
    assert "timing only" in result.how


# -- record once, replay many ------------------------------------------------------------------

def test_a_saved_recording_replays_as_the_original(tmp_path):
    rec = Recording([_loader(("A", 0, 0, TILE)), _loader(("A", 0, 0, TILE))],
                    [(0, 0, 0), (1, 0, 0)], (2, 1, 1))
    T.save_recording(rec, tmp_path / "r.json.gz")
    again = T.load_recording(tmp_path / "r.json.gz")
    for overrides in (None, {"l2_sm_bytes_per_cycle": 64}):
        assert again.replay(overrides).cycles == rec.replay(overrides).cycles
    slower = again.replay({"tma_latency": 2 * P["tma_latency"]}).cycles
    # both CTAs' loads half miss: the latency grows by half the tma_latency added
    assert slower == pytest.approx(rec.replay().cycles + P["tma_latency"] / 2, abs=1)


def test_overrides_are_checked():
    with pytest.raises(ValueError, match="unknown timing parameter 'l3_bytes'; known: "
                                         "clock_ghz, sms"):
        T.parse_timing_params(["l3_bytes=4"])
    with pytest.raises(ValueError, match="l2_latency='fast' is not a number"):
        T.parse_timing_params(["l2_latency=fast"])
    with pytest.raises(ValueError, match="must be positive"):
        T.parse_timing_params(["sms=0"])
    with pytest.raises(ValueError, match="at least 0"):
        T.parse_timing_params(["l2_latency=-1"])
    assert T.parse_timing_params(["l2_latency=0"]) == {"l2_latency": 0.0}
    assert T.parse_timing_params(["l2_latency=300", "sms=74"]) == {"l2_latency": 300.0,
                                                                   "sms": 74.0}


# -- acceptance: the ring depth of the one-tile warp-specialized GEMM ---------------------------

def _ring(depth):
    return T.load_recording(DATA / f"ws_one_tile_k2048_ring{depth}.json.gz")


def test_utilisation_rises_with_the_ring_depth():
    """The one-tile 128 x 256, K = 2048 GEMM (benchmarks/timing/RING_DEPTH.md), shipped
    parameters: 1 < 2 < 3 stages, 4 no worse than 3."""
    u = [_ring(d).replay().utilisation["tensor pipe"] for d in (1, 2, 3, 4)]
    assert u[0] < u[1] < u[2] <= u[3]
    # a 1-deep ring serializes loads and MMAs; the MMAs alone take 128 x 128 cycles
    assert u[0] < 0.5 and u[3] > 0.8


def test_the_ring_table_is_the_scripts():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "ring_depth", ROOT / "benchmarks" / "timing" / "ring_depth.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "benchmarks" / "timing" / "RING_DEPTH.md").read_text() == \
        module.ring_table()


# -- the Chrome trace and the stall attribution ----------------------------------------------------

def test_chrome_trace_names_events_by_opcode_with_args():
    events = _ring(2).replay().chrome_trace()["traceEvents"]
    sync = [e for e in events if e.get("cat") == "sync"]
    assert sync and not any(e["name"].startswith("{") for e in sync)
    waits = [e for e in sync if e["name"].startswith("mbarrier.try_wait.parity")]
    assert waits and {"PTX line", "PTX", "role", "phase", "parity"} <= set(waits[0]["args"])
    loads = [e for e in sync if e["name"].startswith("cp.async.bulk.tensor")]
    # 32 K blocks, a 128 x 64 A box (16 KiB) and a 256 x 64 B box (32 KiB) each
    assert sorted({e["args"]["bytes"] for e in loads}) == [16384, 32768] and len(loads) == 64
    tracks = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert {"CTA 0 warp 0 (TMA loads)", "CTA 0 warp 1 (MMA)",
            "CTA 0 warp 4 (epilogue)"} <= tracks


# -- the command line ------------------------------------------------------------------------------

def test_sim_refuses_a_bad_timing_param(tool):
    out = tool("tcgen05-sim", ROOT / "examples" / "gemm_bf16_grid.mlir", "--check",
               ROOT / "examples" / "gemm_bf16_grid.check.py", "--timing",
               "--timing-param", "dram_tb_per_s=8")
    assert out.returncode == 1
    assert "unknown timing parameter 'dram_tb_per_s'; known: clock_ghz" in out.stderr
    assert "Traceback" not in out.stderr


def test_compare_refuses_a_timing_param_that_is_no_number(tool):
    out = tool("tcgen05-compare", ROOT / "examples" / "gemm_bf16_grid.mlir",
               "--timing-param", "l2_latency=soon")
    assert out.returncode == 1
    assert "timing parameter l2_latency='soon' is not a number" in out.stderr


def test_timing_only_refuses_a_grid_too_large_up_front(tool):
    out = tool("tcgen05-sim", ROOT / "examples" / "gemm_bf16_grid.mlir", "--check",
               ROOT / "examples" / "gemm_bf16_grid.check.py", "--timing-only",
               "--grid", f"{T.TIMING_ONLY_MAX_CLUSTERS + 1}")
    assert out.returncode == 1
    assert "more than the 1,048,576 a timing-only estimate walks" in out.stderr
    assert "warp instructions" not in out.stderr + out.stdout   # nothing was simulated


def test_partial_neighbours_show_which_buffers_a_grid_shares():
    """examples/gemm_bf16_grid.mlir at M = 256, N = 512, K = 128 (a 2 x 2 grid): cluster
    (x, y) fills its A tile from rows 128 y.. and its B tile from columns 256 x.. (the
    kernel's text). Recording (0, 0, 0) whole and its neighbours for their first 3,000 warp
    instructions, every ld.global line of A that (0, 0, 0) reads counts as shared along
    its grid row, every line of B along its column."""
    from tcgen05_lower.cli.sim import prepare
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.executor import GLOBAL_BASE, GLOBAL_STRIDE
    path = ROOT / "examples" / "gemm_bf16_grid.mlir"
    ptx, manifest, _, inputs = prepare(str(path), str(path.with_suffix(".check.py")), 0)
    neighbours = [(1, 0, 0), (0, 1, 0)]
    result = simulate(ptx, manifest, inputs, timing=True,
                      clusters=[(0, 0, 0)] + neighbours,
                      budgets={c: 3000 for c in neighbours})
    rec = result.timing.recording
    assert rec.partial == neighbours and not rec.complete
    buffer_a, buffer_b = ((GLOBAL_BASE + i * GLOBAL_STRIDE) >> 36 for i in (0, 1))
    classes = rec.key_classes()
    by_buffer = {}
    for key, cls in classes.items():
        by_buffer.setdefault(T._buffer_of(key), set()).add(cls)
    assert by_buffer == {buffer_a: {"row"}, buffer_b: {"column"}}
    # A: 128 rows x 128 K x 2 B, B: 128 K x 256 columns x 2 B, in 128-byte lines
    assert len(classes) == (128 * 128 * 2 + 128 * 256 * 2) // 128
    assert "(1, 0, 0) (its first instructions)" in result.timing.how


def test_calibration_table_has_sourced_rows():
    """benchmarks/timing/CALIBRATION.md (calibration.py): at least five rows, each with a
    public source address and a verdict."""
    text = (ROOT / "benchmarks" / "timing" / "CALIBRATION.md").read_text()
    rows = [line for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| source")]
    assert len(rows) >= 5
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert "https://" in cells[0] and cells[3], row
