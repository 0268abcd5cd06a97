// A whole GEMM with a fused epilogue, its sizes and strides as kernel arguments:
//   C (M x N, bf16) = bf16(A (M x K, bf16) x B (K x N, bf16) + bias (N, f32)),
// all row-major with leading dimensions lda, ldb and ldc (in elements), bias added to
// every row. The grid has one CTA per 128 x 128 tile of C (x = ceildiv(N, 128),
// y = ceildiv(M, 128)), as in gemm_bf16_grid.mlir. The epilogue is a tcgen05.frag_map
// (bias add and the conversion to bf16, rounding to nearest even) whose result is
// stored with the tile's place and C's extents as run-time dims: each CTA writes its
// own tile, and only what lies inside C. M, N and K need not be multiples of the tile;
// K must be at least 1. The reference is examples/gemm_bf16_grid_bias.check.py.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tmem_128x128xf32 = !tcgen05.tmem<[128, 128], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>
!frag_128x32xbf16 = !tcgen05.frag<[128, 32], bf16>

func.func @gemm_bf16_grid_bias(%A: !gptr, %B: !gptr, %bias: !gptr,
                               %C: !gptr, %M: i32, %N: i32, %K: i32,
                               %lda: i32, %ldb: i32, %ldc: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["ceildiv(N, 128)", "ceildiv(M, 128)"]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %accumulate = arith.constant true
  %m = arith.index_castui %M : i32 to index
  %n = arith.index_castui %N : i32 to index
  %k_size = arith.index_castui %K : i32 to index
  %a_ld = arith.index_castui %lda : i32 to index
  %b_ld = arith.index_castui %ldb : i32 to index
  %c_ld = arith.index_castui %ldc : i32 to index
  %n_last = arith.subi %n, %c1 : index

  // This CTA's tile: rows [m0, m0 + 128) and columns [n0, n0 + 128) of C.
  %tile_n = gpu.block_id x
  %tile_m = gpu.block_id y
  %m0 = arith.muli %tile_m, %c128 : index
  %n0 = arith.muli %tile_n, %c128 : index

  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_128x128xf32

  scf.for %k = %c0 to %k_size step %c64 {
    // Rows m0.. of A (K contiguous) and columns n0.. of B (N contiguous: the fill
    // transposes it), K offset k; zeros past M, N and K.
    "tcgen05.smem_fill"(%A, %a, %k, %a_ld, %m0, %m, %k_size)
        {src_layout = "mn_k", dims = ["src_ld", "row_offset", "rows", "k_size"]}
        : (!gptr, !smem_128x64xbf16, index, index, index, index, index) -> ()
    "tcgen05.smem_fill"(%B, %b, %k, %b_ld, %n0, %n, %k_size)
        {src_layout = "k_mn", dims = ["src_ld", "row_offset", "rows", "k_size"]}
        : (!gptr, !smem_128x64xbf16, index, index, index, index, index) -> ()
    // The first MMA of the first K block overwrites the accumulator.
    %not_first = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %a, %b, %not_first) {kind = "f16", k_offset = 0 : i64}
        : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
  }

  // The epilogue, 32 columns at a time: C = bf16(acc + bias[column]), each element
  // stored only inside C.
  scf.for %col = %c0 to %c128 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x128xf32, index) -> !frag_128x32xf32
    %out = "tcgen05.frag_map"(%frag) ({
    ^bb0(%x: f32, %row: index, %c: index):
      // bias[n0 + col + c]; a column past N (which the store skips) reads bias[N - 1],
      // so that no thread reads past the bias vector.
      %j0 = arith.addi %n0, %col : index
      %j1 = arith.addi %j0, %c : index
      %j = arith.minui %j1, %n_last : index
      %j64 = arith.index_cast %j : index to i64
      %bp = llvm.getelementptr %bias[%j64] : (!gptr, i64) -> !gptr, f32
      %bv = llvm.load %bp : !gptr -> f32
      %h = arith.addf %x, %bv : f32
      %y = arith.truncf %h : f32 to bf16
      gpu.yield %y : bf16
    }) : (!frag_128x32xf32) -> !frag_128x32xbf16
    "tcgen05.store_fragment"(%out, %C, %col, %c_ld, %m0, %n0, %m, %n)
        {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}
        : (!frag_128x32xbf16, !gptr, index, index, index, index, index, index) -> ()
  }
  return
}
