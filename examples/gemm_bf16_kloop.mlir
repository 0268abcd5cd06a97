// The 128 x 256 tile of gemm_bf16_128x256.mlir with K = 512, as a loop over K-blocks of 64:
//   C (128 x 256, f32) = A (128 x 512, bf16, row-major) x B (512 x 256, bf16, row-major)
// Each iteration refills the same (single-buffered) shared-memory tiles, so the fills of
// iteration i+1 must wait until the MMAs of iteration i have read them; the accumulator
// lives across the whole loop. tcgen05-insert-sync finds both dependences.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_256x64xbf16 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @gemm_bf16_kloop(%A: !gptr, %B: !gptr, %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_256x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_128x256xf32

  scf.for %k = %c0 to %c512 step %c64 {
    "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 512 : i64}
        : (!gptr, !smem_128x64xbf16, index) -> ()
    "tcgen05.smem_fill"(%B, %b, %k) {src_layout = "k_mn", src_ld = 256 : i64}
        : (!gptr, !smem_256x64xbf16, index) -> ()
    // The first MMA of the first K-block overwrites the accumulator.
    %not_first = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %a, %b, %not_first) {kind = "f16", k_offset = 0 : i64}
        : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
  }

  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
        : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
