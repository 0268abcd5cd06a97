// A CTA pair (cta_group::2, 9.7.16.5.1) computes
//   C (128 x 128, f32, row-major) = A (128 x 64, bf16, row-major) x B (64 x 128, bf16, row-major)
// with M = 128 dense MMAs (Layout B, 9.7.16.10.5.2). Each CTA holds its slice of the pair's
// operands in shared memory, as the MMA reads them (docs/cta-pairs.md): the CTA of rank r
// (%cluster_ctarank & 1) fills rows 64 r .. 64 r + 63 of A and columns 64 r .. 64 r + 63 of
// B, and holds rows 64 r .. 64 r + 63 of C: Layout B puts columns [0, 64) of those rows on
// lanes 0-63 and columns [64, 128) on lanes 64-127, each in 64 TMEM columns (tmem-facts
// section 1), so a 32-column slice of C is held by two of the four warps.

!gptr = !llvm.ptr<1>
!smem_64x64xbf16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tmem_128x128xf32 = !tcgen05.tmem<[128, 128], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @gemm_bf16_pair_m128(%A: !gptr, %B: !gptr, %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  // This CTA's 64 rows of A (M/2) and 64 of the 128 columns of B (N/2).
  %a = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_128x128xf32

  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_64x64xbf16, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 128 : i64}
      : (!gptr, !smem_64x64xbf16, index) -> ()

  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_128x128xf32, !smem_64x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_128x128xf32, !smem_64x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_128x128xf32, !smem_64x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_128x128xf32, !smem_64x64xbf16, !smem_64x64xbf16, i1) -> ()

  scf.for %col = %c0 to %c128 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x128xf32, index) -> !frag_128x32xf32
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 128 : i64}
        : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
