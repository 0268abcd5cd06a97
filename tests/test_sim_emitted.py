"""The executor on PTX the pipeline emits, with recording stand-ins for the tensor core and
the ordering model (tests/sim_standins.py): the whole kernel runs, its fills, allocation,
MMAs, commit/wait and epilogue reach the models with the operands the ISA defines."""

import sys
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from sim_standins import EagerOrdering, RecordingTensorCore  # noqa: E402

from tcgen05_lower.driver import compile_source  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def run_gemm():
    result = compile_source((ROOT / "examples/gemm_bf16_128x256.mlir").read_text(), "gemm")
    rng = np.random.default_rng(1)
    args = {"A": rng.uniform(-1, 1, (128, 64)).astype(ml_dtypes.bfloat16),
            "B": rng.uniform(-1, 1, (64, 256)).astype(ml_dtypes.bfloat16),
            "C": np.zeros((128, 256), np.float32)}
    tc = RecordingTensorCore()
    orderings = []

    def factory(*a):
        orderings.append(EagerOrdering(*a))
        return orderings[-1]
    sim = simulate(result.ptx, result.manifest, args, ordering_factory=factory,
                   tensor_core=tc)
    return sim, tc, orderings[0], args


def test_gemm_epilogue_reads_every_accumulator_cell_once_into_its_place():
    sim, tc, ordering, args = run_gemm()
    # 128 x 256 f32 accumulator: 256 columns allocated once, freed once
    assert ordering.allocs == [(0, 256, 0)] and ordering.deallocs == [(0, 0, 256)]
    lds = [c for c in tc.calls if c[0] == "ld"]
    assert len(lds) == 4 * 8  # four warps, eight 32-column loads each
    for _, opcode, taddr, warp, rank in lds:
        assert opcode == "tcgen05.ld.sync.aligned.32x32b.x32.b32"
        assert taddr >> 16 == 32 * warp  # each warp its own lane quarter (9.7.16.8.1)
    # the stand-in's ld returns lane * 1000 + column: C[row, col] must hold exactly that
    row, col = np.mgrid[0:128, 0:256]
    expect = (row * 1000 + col).astype(np.uint32).view(np.float32)
    assert np.array_equal(sim.outputs["C"].view(np.uint32), expect.view(np.uint32))


def test_gemm_mmas_reach_the_tensor_core_with_isa_operands():
    sim, tc, ordering, args = run_gemm()
    mmas = [c for c in tc.calls if c[0] == "async"]
    assert len(mmas) == 4
    for i, (_, opcode, operands, rank) in enumerate(mmas):
        assert opcode == "tcgen05.mma.cta_group::1.kind::f16"
        d, adesc, bdesc, idesc, enable = operands
        assert type(d).__name__ == "Address" and d == 0  # [d-tmem]: the allocated column 0
        assert isinstance(adesc, int) and isinstance(bdesc, int) and isinstance(idesc, int)
        assert enable is (i > 0)  # the first MMA overwrites, the rest accumulate
        # 9.7.16.4.1: bits 0-13 hold the start address >> 4; the K = 16 steps of a
        # 128B-swizzled K-major bf16 tile advance it by 32 bytes
        assert (adesc & 0x3FFF) - (mmas[0][2][1] & 0x3FFF) == 2 * i


def test_gemm_counts_and_speed():
    sim, tc, ordering, args = run_gemm()
    # counts are per warp, guarded-off warps included (each of the 4 warps executes the
    # @%p mma; one thread issues it)
    assert sim.counts["tcgen05.mma.cta_group::1.kind::f16"] == 4 * 4
    assert len([c for c in tc.calls if c[0] == "async"]) == 4
    assert sim.counts["st.global.b32"] == 4 * 8 * 32
    assert sim.seconds < 10
