// One CTA (one warpgroup, 128 threads) computes
//   C (128 x 256, f32, row-major) = A (128 x 64, bf16, row-major) x B (64 x 256, bf16, row-major)
// A and B are copied into shared memory as K-major tiles with 128-byte swizzle, four
// K = 16 MMAs (kind::f16) accumulate into a 128 x 256 f32 TMEM buffer, and the warpgroup
// loads the accumulator 32 columns at a time and stores C.
//
// Nothing here is planned: no TMEM columns, no layouts, no synchronization. The passes add
// them (tcgen05-lower --emit=mlir shows the planned IR).

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_256x64xbf16 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @gemm_bf16_128x256(%A: !gptr, %B: !gptr, %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_256x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_128x256xf32

  // A is stored with K contiguous; B with N contiguous, so its fill transposes it.
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_128x64xbf16, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!gptr, !smem_256x64xbf16, index) -> ()

  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()

  // Epilogue: 32 columns per load keeps 32 registers per thread live.
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
        : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
