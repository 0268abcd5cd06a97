// A CTA pair (cta_group::2, 9.7.16.5.1) computes
//   C (256 x 128, f32, row-major) = A (256 x 64, bf16, row-major) x B (64 x 128, bf16, row-major)
// with M = 256 MMAs (Layout A, 9.7.16.10.5.1). Each CTA holds its slice of the pair's
// operands in shared memory, as the MMA reads them (docs/cta-pairs.md): the CTA of rank r
// (%cluster_ctarank & 1) fills rows 128 r .. 128 r + 127 of A and columns 64 r .. 64 r + 63
// of B (rows of the K-major B tile), and holds rows 128 r .. 128 r + 127 of C in its tensor
// memory. Thread 0 of the even CTA issues the MMAs for the pair; each CTA's warpgroup
// stores its own rows of C.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_64x64xbf16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tmem_256x128xf32 = !tcgen05.tmem<[256, 128], f32>
!frag_256x32xf32 = !tcgen05.frag<[256, 32], f32>

func.func @gemm_bf16_pair_m256(%A: !gptr, %B: !gptr, %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  // This CTA's 128 rows of A and 64 of the 128 columns of B (N/2), K-major, 128B swizzle.
  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_256x128xf32

  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_128x64xbf16, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 128 : i64}
      : (!gptr, !smem_64x64xbf16, index) -> ()

  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_256x128xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_256x128xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_256x128xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_256x128xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()

  // Epilogue: each CTA loads its 128 rows, 32 columns at a time, and stores them at rows
  // 128 r .. of C.
  scf.for %col = %c0 to %c128 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tmem_256x128xf32, index) -> !frag_256x32xf32
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 128 : i64}
        : (!frag_256x32xf32, !gptr, index) -> ()
  }
  return
}
