"""A sweep of the warp-specialized persistent GEMM (examples/ws_persistent_gemm_bf16.mlir
on one CTA, examples/ws_gemm_2cta_bf16.mlir on a CTA pair) over its tile N, the depth of
its shared-memory ring and 1 or 2 CTAs:

    tcgen05-sweep examples/sweep_ws_gemm.py --grid N=32,64,128,256 --grid stages=2,3,4 \\
        --grid ctas=1,2 --jobs 2 -o benchmarks/sweep/REPORT.md \\
        --csv benchmarks/sweep/results.csv --plot benchmarks/sweep/plot.svg \\
        --x stages --series N,ctas --metric utilisation

The problem is the examples' own, so their check files are the references: on one CTA
C (128 x 1024) = A (128 x 256) x B^T, on a pair C (256 x 512) (the same 2^25
multiply-adds); K = 256 in four blocks of 64. A tile is 128 x N on one CTA, 256 x N on a
pair (each CTA holding N/2 rows of B, docs/cta-pairs.md); the tiles are the persistent
loop's, so a smaller N means more tiles. The ring depth is tcgen05-insert-sync's
``ring-stages`` option: the kernel is written for 4 stages and the pass resizes the rings
(README, "ring-stages=N"); 6 stages of N = 256 on one CTA need 288 KiB of shared memory,
more than a CTA has, and that point fails to compile (a row of the table, not an error).
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))

#: The reference of each CTA count (tcgen05-sim --check files).
CHECKS = {1: os.path.join(HERE, "ws_persistent_gemm_bf16.check.py"),
          2: os.path.join(HERE, "ws_gemm_2cta_bf16.check.py")}

#: C promises 16-byte alignment, as in examples/ws_persistent_gemm_bf16.mlir: it is a whole
#: buffer (cuMemAlloc, or the simulator's arrays), so the epilogue stores 16 bytes at a time.
TEMPLATE = """\
func.func @ws_gemm_n{N}_ctas{ctas}(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %C: !llvm.ptr<1> {{llvm.align = 16 : i64}},
    %tmA: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}}}},
    %tmB: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "B", box = array<i64: 64, {BN}>,
                                              swizzle = "128B"}}}})
    attributes {{tcgen05.kernel = {{target = "sm_100a", threads = 256 : i64, cta_group = {ctas} : i64}}}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %cN = arith.constant {N} : index
  %cT = arith.constant {tiles} : index
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, {BN}, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {{name = "acc"}} : () -> !tcgen05.tmem<[2, {M}, {N}], f32>
  "tcgen05.partitions"() ({{
    "tcgen05.role"() ({{
      scf.for %t = %c0 to %cT step %c1 {{
        %n = arith.muli %t, %cN : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {{
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, {BN}, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[{BN}, 64], bf16, "K", "128B">
          "tcgen05.tma_load"(%tmA, %as, %k, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n) : (!llvm.ptr<1>, !tcgen05.smem<[{BN}, 64], bf16, "K", "128B">, index, index) -> ()
        }}
      }}
      "gpu.yield"() : () -> ()
    }}) {{name = "load", first_warp = 0 : i64, warps = 1 : i64}} : () -> ()
    "tcgen05.role"() ({{
      scf.for %t = %c0 to %cT step %c1 {{
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, {M}, {N}], f32>, index) -> !tcgen05.tmem<[{M}, {N}], f32>
        scf.for %kb = %c0 to %c4 step %c1 {{
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, {BN}, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[{BN}, 64], bf16, "K", "128B">
          %accumulate = arith.cmpi ne, %kb, %c0 : index
{mmas}
        }}
      }}
      "gpu.yield"() : () -> ()
    }}) {{name = "mma", first_warp = 1 : i64, warps = 1 : i64}} : () -> ()
    "tcgen05.role"() ({{
      scf.for %t = %c0 to %cT step %c1 {{
        %n = arith.muli %t, %cN : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, {M}, {N}], f32>, index) -> !tcgen05.tmem<[{M}, {N}], f32>
        scf.for %col = %c0 to %cN step %c32 {{
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[{M}, {N}], f32>, index) -> !tcgen05.frag<[{M}, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {{ld = {NT} : i64}} : (!tcgen05.frag<[{M}, 32], f32>, !llvm.ptr<1>, index) -> ()
        }}
      }}
      "gpu.yield"() : () -> ()
    }}) {{name = "epilogue", first_warp = 4 : i64, warps = 4 : i64}} : () -> ()
    "gpu.yield"() : () -> ()
  }}) : () -> ()
  return
}}
"""

MMA = ('          "tcgen05.mma"(%d, %as, %bs, {enable}) {{kind = "f16", k_offset = {k} : i64}}'
       ' : (!tcgen05.tmem<[{M}, {N}], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,'
       ' !tcgen05.smem<[{BN}, 64], bf16, "K", "128B">, i1) -> ()')


def kernel(N: int, ctas: int) -> str:
    """The MLIR text of the GEMM with tiles of N columns on `ctas` CTAs (1 or 2)."""
    if ctas not in (1, 2):
        raise ValueError(f"ctas = {ctas}: the kernel runs on one CTA or a CTA pair")
    total_n = 1024 // ctas
    if total_n % N:
        raise ValueError(f"N = {N} does not divide the {total_n} columns of C")
    shapes = dict(N=N, ctas=ctas, M=128 * ctas, BN=N // ctas, NT=total_n,
                  tiles=total_n // N)
    mmas = "\n".join(MMA.format(enable="%accumulate" if k == 0 else "%true", k=16 * k,
                                **shapes) for k in range(4))
    return TEMPLATE.format(mmas=mmas, **shapes)


def build(N=256, stages=4, ctas=1):
    """The kernel of one point and its ring depth (tcgen05-insert-sync's option)."""
    return kernel(N, ctas), [f"tcgen05-insert-sync{{ring-stages={stages}}}"]


def check(N=256, stages=4, ctas=1):
    """The reference of one point: the example's check file for its CTA count."""
    return CHECKS[ctas]
