"""Which tiles a persistent grid's clusters have in L2 together (sim/timing/wave.py), and
what a multicast TMA load costs the L2 (issue 36: "TMA multicast within a cluster reads
L2 once and writes every receiving SM").

Expected bytes and cycles are hand derivations from the kernels' tile schedulers and from
PARAMETERS (each test says how)."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from tcgen05_lower.sim import timing as T
from tcgen05_lower.sim.timing import ClusterTrace, MemoryContext, Recording, Step

ROOT = Path(__file__).resolve().parents[1]
P = {name: prm.value for name, prm in T.PARAMETERS.items()}
TILE = 16384


def _tiles(tiles) -> ClusterTrace:
    """One load warp issuing, per tile (m, n), a TMA load of A block m and of B block n
    (16 KiB each), then waiting for both."""
    steps = []
    for i, (m, n) in enumerate(tiles):
        tag = (0, 1024, 1, i)
        steps += [Step("mbar_arrive", arrivals=[tag]),
                  Step("tma", tmas=[(0, 0, TILE, [tag], ("A", 0, m, TILE))]),
                  Step("tma", tmas=[(0, 0, TILE, [tag], ("B", 0, n, TILE))]),
                  Step("mbar_wait", wait=tag)]
    return T.single_warp(steps)


def test_a_persistent_grid_shares_what_its_scheduler_hands_out_together():
    """4 persistent CTAs over 2 x 6 tiles, M first (tile l = (l mod 2, l div 2); CTA c
    takes tiles c, c + 4, c + 8): CTA 0 walks (0, 0), (0, 2), (0, 4). CTA 0 is recorded
    whole, the others for their first tile only (a timing-only estimate). By hand: the
    launch reads the 2 A blocks and 6 B blocks once each from DRAM (the L2 holds them all):
    8 x 16 KiB. (Before the wave's prefixes were aligned, the replay took them for whole
    runs: 6 x 16 KiB.)"""
    def walk(c):
        return [((c + 4 * i) % 2, (c + 4 * i) // 2) for i in range(3)]
    traces = [_tiles(walk(0))] + [_tiles(walk(c)[:1]) for c in (1, 2, 3)]
    rec = Recording(traces, [(c, 0, 0) for c in range(4)], (4, 1, 1),
                    partial=[(c, 0, 0) for c in (1, 2, 3)])
    result = rec.replay({"sms": 4})
    assert sum(c.dram_bytes for c in result.clusters) == pytest.approx(8 * TILE)
    assert "first loads show" in result.how


def test_a_step_shared_by_part_of_the_wave():
    """4 CTAs over 2 x 6 tiles, N first (tile l = (l div 6, l mod 6)), each recorded for its
    first tile only but CTA 0: CTA 0 walks (0, 0), (0, 4), (1, 2). Over the first step the
    wave's A loads are of one block (r = 1/4: 4 CTAs, 1 distinct), its B loads of four
    (r = 1). CTA 0 loads A block 0 twice (the wave: 2 / (1/4) = 8 times, each load misses
    1/8), A block 1 once (1/4) and each B block once (in full): its DRAM bytes are
    16 KiB x (2/8 + 1/4 + 3) (hand derivation; the 4 CTAs replayed alike)."""
    def walk(c):
        return [((c + 4 * i) // 6, (c + 4 * i) % 6) for i in range(3)]
    traces = [_tiles(walk(0))] + [_tiles(walk(c)[:1]) for c in (1, 2, 3)]
    rec = Recording(traces, [(c, 0, 0) for c in range(4)], (4, 1, 1),
                    partial=[(c, 0, 0) for c in (1, 2, 3)])
    result = rec.replay({"sms": 4})
    assert result.clusters[0].dram_bytes == pytest.approx(TILE * (2 / 8 + 1 / 4 + 3))


@pytest.mark.parametrize("raster", [0, 1])
def test_the_flagship_timing_only_reads_each_tile_once(raster):
    """examples/ws_gemm_bf16_grid_2cta.mlir at M = 512, N = 1536, K = 64 on its check
    file's grid of 8 CTAs (4 pairs) over 2 x 6 tiles of 256 x 256: whichever the raster,
    the launch reads A (512 x 64 bf16 = 64 KiB) and B (1536 x 64 = 192 KiB) once from DRAM
    (the L2 holds them), and writes C (512 x 1536 f32 = 3 MiB): 3328 KiB, by hand. The
    timing-only estimate (cluster (0, 0, 0) whole, the others for their first
    instructions) must say the same; the one-neighbour inference gave 3296 KiB (M first)
    and 3520 KiB (N first)."""
    from tcgen05_lower.cli.sim import prepare
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.timing.wave import timing_only_clusters
    path = ROOT / "examples" / "ws_gemm_bf16_grid_2cta.mlir"
    scalars = {"M": 512, "N": 1536, "K": 64, "raster": raster}
    ptx, manifest, _, inputs = prepare(str(path), str(path.with_suffix(".check.py")), 0,
                                       scalars=scalars)
    clusters, budget = timing_only_clusters((4, 1, 1), 2, True)
    assert clusters == [(c, 0, 0) for c in range(4)]
    result = simulate(ptx, manifest, inputs, timing=True, functional_only=True,
                      clusters=clusters, budgets={c: budget for c in clusters[1:]})
    assert result.timing.recording.partial    # a timing-only estimate, not every run
    dram = sum(c.dram_bytes for c in result.timing.clusters)
    assert dram == pytest.approx((64 + 192 + 3072) * 1024)


# -- multicast -----------------------------------------------------------------------------------

def _pair_loads(multicast: bool) -> ClusterTrace:
    """A CTA pair receiving the same 16 KiB tile: one multicast load by thread 0 (two
    copies, sim/tma.py records one per receiving CTA) or a load by each CTA's thread."""
    tag0, tag1 = (0, 1024, 1, 0), (1, 1024, 1, 0)
    key = ("A", 0, 0, TILE)
    if multicast:
        w0 = [Step("tma", tmas=[(0, 0, TILE, [tag0], key), (0, 1, TILE, [tag1], key)])]
        w1 = []
    else:
        w0 = [Step("tma", tmas=[(0, 0, TILE, [tag0], key)])]
        w1 = [Step("tma", rank=1, tmas=[(32, 1, TILE, [tag1], key)])]
    return ClusterTrace(1, 2, [w0, w1])


def test_a_multicast_load_reads_the_l2_once():
    """Both ways each SM's port moves 16 KiB and DRAM gives the tile once; the multicast
    reads the L2 once (16 KiB), two loads twice (32 KiB). In a full wave (148 SMs) an SM's
    share of the L2's total bandwidth is 10752.69 / 148 = 72.65 B/cycle, below its port's
    128: the two loads stream at the share (16384 / 72.65 = 225.5 cycles), the multicast's
    copies at the port (each reads half the tile of the L2: 8192 / 72.65 = 112.8 cycles,
    less than the port's 16384 / 128 = 128)."""
    ctx = MemoryContext(148, MappingProxyType({("A", 0, 0, TILE): 0.0}))
    times = {}
    for multicast in (True, False):
        timing = T.replay(_pair_loads(multicast), memory=ctx)
        assert timing.l2_bytes == 2 * TILE
        assert timing.l2_read_bytes == (TILE if multicast else 2 * TILE)
        times[multicast] = max(ev["end"] - ev["start"] for ev in timing.events
                               if ev["cat"] == "memory")
    share = P["l2_bytes_per_cycle"] / 148
    assert times[True] == pytest.approx(TILE / P["l2_sm_bytes_per_cycle"])
    assert times[False] == pytest.approx(TILE / share)
    alone = T.replay(_pair_loads(True))
    assert alone.dram_bytes == pytest.approx(TILE)   # the key's 2 copies miss 1/2 each


def test_a_timing_param_that_is_no_number_names_the_known_parameters():
    """Issue 36's acceptance: a --timing-param that is not a number gets an error naming
    the known parameters (as an unknown name does)."""
    with pytest.raises(ValueError, match="l2_latency='soon' is not a number; known "
                                         "parameters: clock_ghz, sms"):
        T.parse_timing_params(["l2_latency=soon"])


def test_a_multicast_is_one_load_whatever_the_l2_holds():
    """A multicast to 2 CTAs is recorded as 2 copies of one key but is one load step: DRAM
    gives its bytes once (each copy misses 1/2) even when the L2 holds nothing for later
    steps (l2_bytes = 1), where two loads of the key at different steps would each miss in
    full; so are two CTAs' loads of the key at the same place of their load sequences (by
    hand, from the rule in sim/timing/wave.py)."""
    from tcgen05_lower.sim.timing.wave import BufferSharing, load_events, one_wave_miss
    key = ("A", 0, 0, TILE)
    trace = _pair_loads(True)
    assert load_events(trace) == {key: 1}
    alone = {"A": BufferSharing(distinct=2, loads=2, steps=1, clusters=2)}
    miss, _ = one_wave_miss(T.memory_keys(trace), alone, 1.0, load_events(trace))
    assert miss[key] == pytest.approx(0.5)
    assert load_events(_pair_loads(False)) == {key: 1}
    twice, _ = one_wave_miss({key: [2, float(TILE)]}, alone, 1.0, {key: 2})
    assert twice[key] == pytest.approx(1.0 - 0.5 * (1.0 / (2 * TILE)), rel=1e-3)
