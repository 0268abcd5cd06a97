"""A fill's 16-byte vector loads are taken only where the run-time values keep them
aligned (issue 33, point 3). examples/gemm_bf16_grid.mlir reads A (K contiguous) in
16-byte vectors; with lda known only at run time, a packed K = 70 (rows of 140 bytes)
used to load misaligned vectors, which fault (the simulator's SimError, as the hardware
traps). The lowering now tests the source pointer and lda * 2 bytes modulo 16 at run time
(K offsets from the loop 0, 64, 128, ... are known aligned) and copies element by element
where the test fails: K = 70 computes the right C, and an aligned lda still takes the
vector path (the PTX has the vector load, and the simulator executes it)."""

import io
import re
from pathlib import Path

import numpy as np
import pytest

from tcgen05_lower.cli.sim_check_file import file_problem
from tcgen05_lower.cli.sim_problem import make_inputs, output_names
from tcgen05_lower.driver import compile_source
from tcgen05_lower.sim.api import simulate
from sim_checks import assert_matches

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNEL = EXAMPLES / "gemm_bf16_grid.mlir"
CHECK = EXAMPLES / "gemm_bf16_grid.check.py"
#: A 16-byte global vector load as the NVPTX backend prints it.
VECTOR_LOAD = re.compile(r"ld\.global\.(v2\.b64|v4\.b32|v4\.u32)")


@pytest.fixture(scope="module")
def compiled():
    return compile_source(KERNEL.read_text(), KERNEL.name)


def run(compiled, sizes: dict, schedule: str):
    """(check problem, inputs as given, simulation, executed trace lines)."""
    problem = file_problem(str(CHECK), compiled.manifest, sizes)
    inputs = make_inputs(problem, compiled.manifest,
                         output_names(problem, compiled.manifest, 0), 0)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    trace = io.StringIO()
    sim = simulate(compiled.ptx, compiled.manifest, inputs, schedule=schedule, trace=trace)
    return problem, originals, sim, trace.getvalue().splitlines()


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_packed_k70_computes_c_without_vector_loads(compiled, schedule):
    # lda = K = 70 (check file's derived): rows 140 bytes apart, 12 bytes past a multiple
    # of 16 for every other row. Before the fix: "misaligned load of 16 bytes".
    problem, inputs, sim, trace = run(compiled, {"M": 128, "N": 256, "K": 70}, schedule)
    assert inputs["lda"] == 70
    assert_matches(problem, inputs, sim)
    assert not any(VECTOR_LOAD.search(line) for line in trace)


def test_aligned_lda_still_takes_the_vector_path(compiled):
    # In the PTX: the vector load, and the run-time test beside it (x & 15 of the source
    # pointer or-ed with lda * 2).
    assert VECTOR_LOAD.search(compiled.ptx)
    assert re.search(r"and\.b64\s+%rd\d+, %rd\d+, 15;", compiled.ptx)
    # In the run: K = lda = 128 (256-byte rows) executes vector loads and matches NumPy.
    problem, inputs, sim, trace = run(compiled, {"M": 128, "N": 256, "K": 128}, "late")
    assert_matches(problem, inputs, sim)
    executed = sum(1 for line in trace if VECTOR_LOAD.search(line))
    # A's tile: 128 rows x 128 bytes per K block = 1024 vectors, 2 K blocks, one vector
    # per thread per warp instruction: 2 * 1024 / 32 warp instructions.
    assert executed == 2 * 1024 // 32


def test_constant_strides_need_no_run_time_test():
    # gemm_bf16_128x256.mlir: src_ld = 64 constant, K offset 0: the compiler knows the
    # alignment (tcgen05-verify refuses a misaligned constant), so no test is emitted.
    ptx = compile_source((EXAMPLES / "gemm_bf16_128x256.mlir").read_text(), "g.mlir").ptx
    assert VECTOR_LOAD.search(ptx)
    assert not re.search(r"and\.b64\s+%rd\d+, %rd\d+, 15;", ptx)


# The MN-contiguous fill of an MN-major tile (src_layout = "k_mn") copies 16-byte chunks
# along N, rows ldb apart: with ldb a kernel argument it takes the same run-time test.
MN_MAJOR = """
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "MN", "128B">
!acc = !tcgen05.tmem<[128, 128], f32>
func.func @mn_major(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>, %ldb: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true
  %b_ld = arith.index_castui %ldb : i32 to index
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0, %b_ld) {src_layout = "k_mn", dims = ["src_ld"]} : (!llvm.ptr<1>, !tb, index, index) -> ()
  "tcgen05.mma"(%d, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64} : (!acc, !ta, !tb, i1) -> ()
  scf.for %col = %c0 to %c128 step %c32 {
    %frag = "tcgen05.ld"(%d, %col) : (!acc, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 128 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}
"""


@pytest.mark.parametrize("ldb, vectors", [(130, False), (136, True)])
def test_mn_major_fill_with_a_run_time_stride(ldb, vectors):
    import ml_dtypes

    result = compile_source(MN_MAJOR, "mn_major.mlir")
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (128, 64)).astype(ml_dtypes.bfloat16)
    b = rng.uniform(-1, 1, (64, ldb)).astype(ml_dtypes.bfloat16)  # K x N, rows ldb apart
    c = np.full((128, 128), np.nan, np.float32)
    trace = io.StringIO()
    sim = simulate(result.ptx, result.manifest,
                   {"A": a.copy(), "B": b.copy(), "C": c, "ldb": ldb}, trace=trace)
    assert not sim.races and not sim.problems
    want = a.astype(np.float64) @ b[:, :128].astype(np.float64)
    # f32 accumulation of 64 exact bf16 products: |error| <= 64 * 2^-24 * (|A| @ |B|).
    bound = 64 * 2.0 ** -24 * (np.abs(a.astype(np.float64)) @ np.abs(b[:, :128].astype(np.float64)))
    assert np.all(np.abs(sim.outputs["C"] - want) <= bound + 1e-30)
    executed = sum(1 for line in trace.getvalue().splitlines() if VECTOR_LOAD.search(line))
    # A's fill (constant src_ld) is always 128 x 128 bytes of vectors: 1024 / 32 warp
    # instructions; B's 64 x 256 bytes add as many where ldb keeps them aligned.
    assert executed == (1024 // 32) * (2 if vectors else 1)


def test_edge_fill_keeps_the_warp_converged():
    # A fill with run-time extents (gemm_bf16_grid.mlir: M, K and lda arguments) copies a
    # 16-byte vector that straddles K's end element by element. Whether a thread's chunk
    # straddles differs between the threads of a warp, so the choice must not split the
    # warp: a .sync.aligned tcgen05 instruction may follow the fill (PTX ISA 9.7.16.8.5,
    # all threads of the warp execute it together; campaign 39's finding). In the PTX:
    # the warp votes on the vector path (vote.sync.all), the element loads are
    # predicated, and no conditional branch jumps over an element's load (the old
    # lowering's "@%p bra; ld.global.b16" per element; the branch to the vector copy
    # after the vote is the same in the whole warp).
    ptx = compile_source(KERNEL.read_text(), KERNEL.name).ptx
    lines = [line.strip() for line in ptx.splitlines()]
    assert "vote.sync.all.pred" in ptx
    assert any(re.match(r"@%p\d+ ld\.global\.b16 ", line) for line in lines)
    branches_over_loads = [line for line, after in zip(lines, lines[1:])
                           if re.match(r"@!?%p\d+ bra", line)
                           and after.startswith("ld.global.b16")]
    assert not branches_over_loads, branches_over_loads
