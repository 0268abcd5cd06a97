"""Multi-stage shared-memory tiles (``!tcgen05.smem<[stages, rows, K], ...>``) and
``tcgen05.smem_stage``: the stage stride (hand-derived from Table 41), kernels that
use stages by smem_fill, TMA and MMA run in the simulator against NumPy, and assemble
with ptxas. The synchronization passes count a stage as its whole ring (the last test
shows what that costs: one commit / wait per refill, as for a single tile)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conftest import requires_ptxas
from tcgen05_lower import dialect as d
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.driver import compile_source
from tcgen05_lower.lowering.smem import stage_bytes, tile_bytes
from tcgen05_lower.sim.api import simulate

KERNELS = Path(__file__).resolve().parent / "kernels"
RING_TMA = KERNELS / "ring_tma.mlir"
BOTH_STAGES = KERNELS / "ring_both_stages.mlir"
BF16 = np.dtype(ml_dtypes.bfloat16)


def smem(text: str) -> d.SmemType:
    return d._parse_type_text(text)


@pytest.mark.parametrize("text, stride, total", [
    # 128 x 64 bf16 = 16384 bytes, a multiple of 1024 (Table 41, 128B swizzle).
    ('!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">', 16384, 4 * 16384),
    # 4 x 64 bf16 = 512 bytes, rounded up to the 1024-byte 128B pattern.
    ('!tcgen05.smem<[3, 4, 64], bf16, "K", "128B">', 1024, 3 * 1024),
    # 8 x 16 bf16 = 256 bytes, rounded up to the 512-byte 64B pattern.
    ('!tcgen05.smem<[2, 8, 16], bf16, "K", "64B">', 512, 1024),
    # 8 x 8 f16 = 128 bytes, rounded up to the 256-byte 32B pattern.
    ('!tcgen05.smem<[2, 8, 8], f16, "K", "32B">', 256, 512),
    # 8 x 24 bf16 = 384 bytes without swizzle: 16-byte alignment only.
    ('!tcgen05.smem<[2, 8, 24], bf16, "K", "none">', 384, 768),
])
def test_stage_stride_is_the_stage_rounded_up_to_its_swizzle_pattern(text, stride, total):
    tile = smem(text)
    assert stage_bytes(tile) == stride
    assert tile_bytes(tile) == total


def test_a_stage_is_a_single_tile_of_the_same_layout():
    tile = smem('!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">')
    assert (tile.stages, tile.rows, tile.k, tile.staged) == (4, 128, 64, True)
    assert tile.stage() == smem('!tcgen05.smem<[128, 64], bf16, "K", "128B">')
    assert not tile.stage().staged and tile.stage().stages == 1


def gemm_inputs(m: int, n: int, k: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"A": rng.uniform(-1, 1, (m, k)).astype(BF16),
            "B": rng.uniform(-1, 1, (n, k)).astype(BF16),
            "C": np.full((m, n), np.nan, np.float32)}


def assert_gemm(run, inputs: dict) -> None:
    """C = A x B^T within the bound of summing K products of bf16 values in f32 (gamma_K,
    from NumPy's float64 product)."""
    assert not run.races and not run.problems, (run.races, run.problems)
    a, b = inputs["A"].astype(np.float64), inputs["B"].astype(np.float64)
    bound = a.shape[1] * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T) + 1e-30
    assert (np.abs(run.outputs["C"] - a @ b.T) <= bound).all()


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_both_stages_hold_their_own_k_block(schedule):
    """Stage 0 holds K block 0 and stage 1 K block 1 at once: only distinct stage
    addresses (and descriptors of each stage's address) give NumPy's product."""
    result = compile_source(BOTH_STAGES.read_text(), BOTH_STAGES.name)
    assert result.manifest["dynamic_smem_bytes"] == 2 * 2 * 16384
    inputs = gemm_inputs(128, 128, 128)
    assert_gemm(simulate(result.ptx, result.manifest, dict(inputs), schedule=schedule),
                inputs)


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_tma_into_ring_stages_matches_numpy(schedule):
    """TMA loads into the stage k / 64 mod 2 of 2-stage rings (the box one stage), MMAs
    read that stage; insert-sync orders the refills."""
    result = compile_source(RING_TMA.read_text(), RING_TMA.name)
    assert result.manifest["dynamic_smem_bytes"] == 2 * 16384 + 2 * 32768
    inputs = gemm_inputs(128, 256, 512)
    assert_gemm(simulate(result.ptx, result.manifest, dict(inputs), schedule=schedule),
                inputs)


@requires_ptxas
@pytest.mark.parametrize("kernel", [RING_TMA, BOTH_STAGES], ids=lambda p: p.stem)
@pytest.mark.parametrize("target", ["sm_100a", "sm_103a", "sm_110a"])
def test_ring_kernels_assemble(kernel, target):
    result = compile_source(kernel.read_text(), kernel.name, arch=target)
    assembled = run_ptxas(result.ptx, arch=target)
    assert assembled.ok, assembled.stderr


def test_insert_sync_orders_a_refill_of_any_stage_after_the_reads_of_the_ring():
    """A stage view counts as its whole ring: the TMA refill of the next iteration (of the
    other stage) still waits for the MMAs of this one (the same commit / wait as a single
    tile would get), so the rings are no less synchronized than single tiles."""
    result = compile_source(RING_TMA.read_text(), RING_TMA.name, emit="mlir")
    assert "WAR on a shared-memory tile (next iteration)" in result.mlir
