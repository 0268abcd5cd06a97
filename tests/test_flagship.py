"""The flagship, examples/ws_gemm_bf16_grid_2cta.mlir (issue 36 item 3, issue 38 item 2):
a persistent CTA-pair GEMM with a tile scheduler, run-time M, N, K, a TMA ring and a
double-buffered accumulator, synchronized by tcgen05-insert-sync; and its cluster
variants with TMA multicast (benchmarks/strategies/grid_2cta.py). Expected values:
NumPy's float64 product within the check file's f32 summation bound, at sizes that are
not multiples of the 256 x 256 tile nor of the 64-element K block."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conftest import requires_ptxas
from sim_checks import judge
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.driver import compile_source

ROOT = Path(__file__).resolve().parent.parent
FLAGSHIP = ROOT / "examples" / "ws_gemm_bf16_grid_2cta.mlir"
CHECK = ROOT / "examples" / "ws_gemm_bf16_grid_2cta.check.py"
VARIANTS = ROOT / "benchmarks" / "strategies" / "grid_2cta"


def _generator():
    spec = importlib.util.spec_from_file_location(
        "grid_2cta", ROOT / "benchmarks" / "strategies" / "grid_2cta.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sized_check(tmp_path, **sizes) -> Path:
    """The check file with other default sizes (its SCALARS), for judge()."""
    text = CHECK.read_text()
    start = text.index("SCALARS = {")
    end = text.index("}", start) + 1
    scalars = {"M": 300, "N": 520, "K": 136, "raster": 0, **sizes}
    path = tmp_path / "sized.check.py"
    path.write_text(text[:start] + f"SCALARS = {scalars!r}" + text[end:])
    return path


def compiled(path: Path):
    return compile_source(path.read_text(), path.name)


def test_the_flagship_writes_no_synchronization():
    text = FLAGSHIP.read_text()
    for op in ("mbarrier_wait", "mbarrier_expect_tx", "commit", "mbarrier_arrive",
               "alloc_mbarrier", '"tcgen05.fence"'):
        assert op not in text.split("func.func", 1)[1], op


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_odd_sizes_match_numpy_race_free(schedule):
    # M = 300, N = 520: 2 x 3 tiles of 256, the last of each with a partial edge;
    # K = 136: three K blocks, the last 8 wide; 4 CTAs: two pairs, three tiles each
    # (an accumulator stage is reused, the 4-stage ring wraps: 9 uses).
    assert judge(compiled(FLAGSHIP), CHECK, schedule) is None


def test_rasterization_along_n_matches_numpy(tmp_path):
    assert judge(compiled(FLAGSHIP), sized_check(tmp_path, raster=1), "late") is None


@pytest.mark.slow
def test_the_issue_sizes_match_numpy(tmp_path):
    # M = 520, N = 776, K = 200 (issue 36): 3 x 4 tiles, 8 CTAs (4 pairs, 3 tiles each).
    check = sized_check(tmp_path, M=520, N=776, K=200)
    assert judge(compiled(FLAGSHIP), check, "late") is None


def test_the_variants_are_what_the_generator_writes():
    generator = _generator()
    for name, (cx, cy, mc) in generator.VARIANTS.items():
        path = VARIANTS / f"ws_gemm_bf16_grid_2cta_{name}.mlir"
        assert path.read_text() == generator.variant(cx, cy, mc), name
    for name, parameters in generator.TWIN_VARIANTS.items():
        path = VARIANTS / f"ws_gemm_bf16_grid_2cta_{name}.mlir"
        assert path.read_text() == generator.twin_variant(name, parameters), name


@pytest.mark.parametrize("name,multicasts", [("1cta", 0), ("1cta_2x1", 1)])
def test_the_one_cta_variants_match_numpy_race_free(name, multicasts):
    # The 1-CTA variants (the twin's cta_group=1: 128 x 256 tiles, cta_group::1 MMAs; in
    # a 2 x 1 cluster B's load multicast) at the check file's odd sizes: M = 300 is 3
    # tiles of 128, the last partial; N = 520 3 of 256; 4 CTAs walk the 9 tiles.
    # Reference: NumPy (the check file).
    result = compiled(VARIANTS / f"ws_gemm_bf16_grid_2cta_{name}.mlir")
    assert "cta_group::1" in result.ptx and "cta_group::2" not in result.ptx
    assert result.ptx.count("global.tile.mbarrier::complete_tx::bytes.multicast") == \
        multicasts
    assert judge(result, CHECK, "late") is None


@pytest.mark.parametrize("name", ["2x2", "4x1"])
def test_multicast_clusters_match_numpy_race_free(name):
    result = compiled(VARIANTS / f"ws_gemm_bf16_grid_2cta_{name}.mlir")
    assert result.ptx.count(".multicast::cluster.cta_group::2 [") == 1
    assert judge(result, CHECK, "late") is None


@requires_ptxas
def test_ptxas_accepts_the_flagship_and_its_variants():
    for path in [FLAGSHIP] + sorted(VARIANTS.glob("*.mlir")):
        checked = run_ptxas(compiled(path).ptx, arch="sm_100a")
        assert checked.ok, (path.name, checked.stderr)


def test_timing_only_budgets_count_the_neighbours_prefix_only():
    """The instruction limit of a timing-only run counts cluster (0, 0, 0) once plus the
    budgeted prefix of its neighbour, not the neighbour as a whole second cluster (which
    refused the flagship's 8192^3 estimate before it ran the neighbour)."""
    from sim_checks import file_problem, make_inputs, output_names
    from tcgen05_lower.sim.api import simulate

    result = compiled(FLAGSHIP)
    problem = file_problem(str(CHECK), result.manifest)

    def inputs():
        return make_inputs(problem, result.manifest,
                           output_names(problem, result.manifest, 0), 0)

    alone = simulate(result.ptx, result.manifest, inputs(), timing=True,
                     clusters=[(0, 0, 0)])
    first = alone.warp_instructions
    # 1.5 first clusters allowed; the neighbour may run a tenth of one: 1.1 in all.
    run = simulate(result.ptx, result.manifest, inputs(), timing=True,
                   clusters=[(0, 0, 0), (1, 0, 0)], budgets={(1, 0, 0): first // 10},
                   max_instructions=first * 3 // 2)
    assert run.timing is not None and run.warp_instructions <= first + first // 10 + 64
