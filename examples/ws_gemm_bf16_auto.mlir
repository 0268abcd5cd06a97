// The warp-specialized K-loop GEMM of examples/ws_gemm_bf16.mlir with no synchronization
// written: C (128 x 128, f32) = A (128 x 256, bf16, row-major) x B (256 x 128, bf16,
// row-major). A load warp fills a 2-stage shared-memory ring (two explicit tiles per
// operand, stage s = K block 2i + s), an MMA warp multiplies each stage, an epilogue
// warpgroup drains the accumulator. tcgen05-insert-sync{strategy=minimal} finds the
// dependences between the roles and writes the protocol of examples/ws_gemm_bf16.mlir
// (docs/partitions.md, "Synchronization that tcgen05-insert-sync writes"): per stage a
// full mbarrier (count 32: the load warp's threads arrive behind fence.proxy.async) and
// an empty one (count 1: tcgen05.commit after the stage's MMAs), the accumulator's
// full mbarrier (commit after the K loop; the epilogue waits and fences
// after_thread_sync), the epilogue's wait::ld and fence::before_thread_sync, and the
// kernel's fence::after_thread_sync after the roles join (before the dealloc).

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tmem_128x128xf32 = !tcgen05.tmem<[128, 128], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @ws_gemm_bf16_auto(%A: !gptr, %B: !gptr, %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a0 = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %a1 = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b0 = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b1 = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_128x128xf32

  "tcgen05.partitions"() ({
    // Load role: warp 0.
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        %k1 = arith.addi %k, %c64 : index
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!gptr, !smem_128x64xbf16, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "k_mn", src_ld = 128 : i64}
            : (!gptr, !smem_128x64xbf16, index) -> ()
        "tcgen05.smem_fill"(%A, %a1, %k1) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!gptr, !smem_128x64xbf16, index) -> ()
        "tcgen05.smem_fill"(%B, %b1, %k1) {src_layout = "k_mn", src_ld = 128 : i64}
            : (!gptr, !smem_128x64xbf16, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        // The first MMA of the first K block overwrites the accumulator.
        %not_first = arith.cmpi ne, %k, %c0 : index
        "tcgen05.mma"(%acc, %a0, %b0, %not_first) {kind = "f16", k_offset = 0 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %col = %c0 to %c128 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x128xf32, index) -> !frag_128x32xf32
        "tcgen05.store_fragment"(%frag, %C, %col) {ld = 128 : i64}
            : (!frag_128x32xf32, !gptr, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
