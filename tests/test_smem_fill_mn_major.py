"""Cooperative fills of MN-major (transposed) shared-memory tiles.

A B matrix stored K x N row-major is MN-contiguous: filling an MN-major B tile from it
(src_layout = "k_mn") is a straight copy of 16-byte chunks, where a K-major tile needs a
transposing fill of one element per thread and instruction. These tests run GEMMs with
MN-major tiles, every swizzle mode Table 52 allows for 16-bit types, both source layouts
and a tile filled in two K halves (k_offset), through the whole pipeline into the
simulator, whose MN-major operand reading (tcgen05_lower.sim.tensor_core) comes from the
canonical layouts of 9.7.16.3.3 independently of the compiler; the reference is NumPy.
ptxas (an independent tool) assembles each kernel's PTX.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.driver import compile_source
from tcgen05_lower.sim.api import simulate

from conftest import requires_ptxas
from sim_checks import assert_matches

M, N, K = 128, 128, 64


def kernel(*, a_major: str, b_major: str, a_src: str, b_src: str, swizzle: str,
           blocks: int = 1) -> str:
    """C (M x N, f32) = A (M x KT) x B (KT x N), A and B bf16, KT = blocks * K, the tiles
    refilled for each K block of K, with the given tile major-ness, swizzle and source
    layouts (A is given M x KT row-major for mn_k and KT x M row-major for k_mn; B KT x N
    row-major for k_mn and N x KT for mn_k)."""
    total = blocks * K
    a_t = f'!tcgen05.smem<[{M}, {K}], bf16, "{a_major}", "{swizzle}">'
    b_t = f'!tcgen05.smem<[{N}, {K}], bf16, "{b_major}", "{swizzle}">'
    a_ld = total if a_src == "mn_k" else M
    b_ld = N if b_src == "k_mn" else total
    steps = []
    for block in range(blocks):
        k0 = block * K
        steps.append(f'''  %k{k0} = arith.constant {k0} : index
  "tcgen05.smem_fill"(%A, %a, %k{k0}) {{src_layout = "{a_src}", src_ld = {a_ld} : i64}}
      : (!llvm.ptr<1>, {a_t}, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %k{k0}) {{src_layout = "{b_src}", src_ld = {b_ld} : i64}}
      : (!llvm.ptr<1>, {b_t}, index) -> ()''')
        for k in range(0, K, 16):
            first = block == 0 and k == 0
            steps.append(f'''  "tcgen05.mma"(%acc, %a, %b, %{"overwrite" if first else "accumulate"}) {{kind = "f16", k_offset = {k} : i64}}
      : (!tcgen05.tmem<[{M}, {N}], f32>, {a_t}, {b_t}, i1) -> ()''')
    return f'''func.func @gemm_mn_major(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {{tcgen05.kernel = {{target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}}}} {{
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %cn = arith.constant {N} : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> {a_t}
  %b = "tcgen05.smem_buffer"() : () -> {b_t}
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[{M}, {N}], f32>
{chr(10).join(steps)}
  scf.for %col = %c0 to %cn step %c32 {{
    %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[{M}, {N}], f32>, index) -> !tcgen05.frag<[{M}, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {{ld = {N} : i64}} : (!tcgen05.frag<[{M}, 32], f32>, !llvm.ptr<1>, index) -> ()
  }}
  return
}}
'''


def check_file(a_src: str, b_src: str, blocks: int) -> str:
    total = blocks * K
    a_shape = (M, total) if a_src == "mn_k" else (total, M)
    b_shape = (total, N) if b_src == "k_mn" else (N, total)
    a_expr = 'inputs["A"]' if a_src == "mn_k" else 'inputs["A"].T'
    b_expr = 'inputs["B"]' if b_src == "k_mn" else 'inputs["B"].T'
    return f'''import numpy as np
BUFFERS = {{"A": ("bfloat16", {a_shape}), "B": ("bfloat16", {b_shape}),
           "C": ("float32", ({M}, {N}))}}
# f32 accumulation of KT exact bf16 products of inputs in [-1, 1): KT * KT * 2^-24.
TOLERANCE = (0.0, {total} * {total} * 2.0 ** -24)
def reference(inputs):
    return {{"C": {a_expr}.astype(np.float64) @ {b_expr}.astype(np.float64)}}
'''


CASES = [
    # (A major, B major, A source, B source, swizzle, K blocks)
    ("K", "MN", "mn_k", "k_mn", "128B", 1),   # row-major A and B: no transposing fill
    ("K", "MN", "mn_k", "k_mn", "64B", 1),
    ("K", "MN", "mn_k", "k_mn", "32B", 1),
    ("K", "MN", "mn_k", "k_mn", "none", 1),
    ("MN", "MN", "k_mn", "k_mn", "128B", 2),   # column-major A, two K blocks (k_offset 64)
    ("MN", "K", "mn_k", "mn_k", "64B", 1),     # an MN-major A from a K-contiguous source
]


@requires_ptxas
@pytest.mark.parametrize("a_major, b_major, a_src, b_src, swizzle, blocks", CASES,
                         ids=["-".join(map(str, c)) for c in CASES])
def test_gemm_with_mn_major_tiles_matches_numpy(tmp_path, a_major, b_major, a_src, b_src,
                                                swizzle, blocks):
    text = kernel(a_major=a_major, b_major=b_major, a_src=a_src, b_src=b_src,
                  swizzle=swizzle, blocks=blocks)
    path, check = tmp_path / "k.mlir", tmp_path / "k_check.py"
    path.write_text(text)
    check.write_text(check_file(a_src, b_src, blocks))
    assembled = run_ptxas(compile_source(text, "k.mlir").ptx, arch="sm_100a")
    assert assembled.ok, assembled.stderr
    ptx, manifest, problem, inputs = prepare(str(path), str(check), 0)
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    assert_matches(problem, inputs, simulate(ptx, manifest, args, schedule="late"))


def test_a_row_major_b_is_copied_in_16_byte_vectors():
    # The MN-contiguous fill of an MN-major tile loads and stores whole 16-byte chunks:
    # (LLVM prints the <4 x i32> load as ld.global.v2.b64), and no 16-bit access remains.
    ptx = compile_source(kernel(a_major="K", b_major="MN", a_src="mn_k", b_src="k_mn",
                                swizzle="128B"), "k.mlir").ptx
    assert ptx.count("ld.global.v2.b64") == 2  # one copy loop per tile
    assert not [line for line in ptx.splitlines()
                if "ld.global" in line and ("b16" in line or "u16" in line)]
