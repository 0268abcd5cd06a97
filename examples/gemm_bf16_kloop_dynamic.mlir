// The K-loop of gemm_bf16_kloop.mlir with K known only at run time, written with cf
// branches: C (128 x 256, f32) = A (128 x K, bf16, row-major) x B (K x 256, bf16,
// row-major), K a kernel argument: any positive multiple of 8 (so that A's rows, K
// elements apart, stay 16-byte aligned). K is A's row stride (the fill's src_ld
// operand) and the K extent of both fills (k_size): the last K block of 64 is
// zero-filled past K, so its MMAs add zeros.
// lift-cf-to-scf (the first pass of the default pipeline) turns the loop into an
// scf.while whose trip count no pass can know, so tcgen05-insert-sync completes the MMAs
// of each iteration inside it and waits on an mbarrier phase counted at run time.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_256x64xbf16 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @gemm_bf16_kloop_dynamic(%A: !gptr, %B: !gptr, %C: !gptr,
                                   %K: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_256x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_128x256xf32
  cf.br ^loop(%c0 : index)

^loop(%k: index):
  %more = arith.cmpi ult, %k, %K : index
  cf.cond_br %more, ^body, ^epilogue

^body:
  "tcgen05.smem_fill"(%A, %a, %k, %K, %K) {src_layout = "mn_k", dims = ["src_ld", "k_size"]}
      : (!gptr, !smem_128x64xbf16, index, index, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %k, %K) {src_layout = "k_mn", src_ld = 256 : i64,
                                       dims = ["k_size"]}
      : (!gptr, !smem_256x64xbf16, index, index) -> ()
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
  %next = arith.addi %k, %c64 : index
  cf.br ^loop(%next : index)

^epilogue:
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
        : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
