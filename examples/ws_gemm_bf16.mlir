// A warp-specialized K-loop GEMM, all synchronization written by hand:
//   C (128 x 128, f32) = A (128 x 256, bf16, row-major) x B (256 x 128, bf16, row-major)
// Three roles run at once (docs/partitions.md): a load warp fills a 2-stage shared-memory
// ring (two explicit tiles per operand, stage s = K block 2i + s), an MMA warp multiplies
// each stage as soon as it is full and releases it, and an epilogue warpgroup drains the
// accumulator once every MMA has completed. Warps 2 and 3 have no role.
//
// Per stage s, two mbarriers (9.7.16.6.4 canonical patterns):
//   full_s  (count 32): each thread of the load warp arrives after its fill, behind
//           fence.proxy.async (the MMA reads shared memory through the async proxy); the
//           MMA warp waits for phase i of iteration i (parity i & 1), then issues its
//           MMAs. What crosses this wait is shared memory only (generic-proxy writes,
//           async-proxy reads), which the proxy fence and the mbarrier's release and
//           acquire order (9.7.16.6.5), as tcgen05-insert-sync orders smem_fill -> mma;
//           no TMEM access of another thread precedes the MMAs.
//   empty_s (count 1):  tcgen05.commit of the MMA warp after the stage's MMAs; the load
//           warp waits before refilling the stage in iteration i for the phase of
//           iteration i - 1 (parity (i + 1) & 1; in iteration 0 that is the phase before
//           the first, which a fresh mbarrier reports complete).
// The producer tail: after its loop the load warp waits once more on each empty_s, for
// the phase of the last commit to it (iteration 1: parity 1), so that no commit's
// arrival is still in flight to the CTA's shared memory when the CTA exits (the arrivals
// of two commits are not ordered, 9.7.16.12.1: the epilogue's wait on acc_ready's later
// commit proves nothing about them).
// acc_ready (count 1): the MMA warp's last commit (it tracks every MMA it issued); the
// epilogue waits for phase 0, fences after_thread_sync, loads and stores, then
// tcgen05.wait::ld and fence::before_thread_sync so that the dealloc that
// tcgen05-plan-tmem places after the partitions (behind their joining barrier and the
// kernel's after_thread_sync) follows its loads (9.7.16.6.4.4).
//
// Compile with tcgen05-insert-sync{strategy=none} (keeps this synchronization, adds
// nothing); tcgen05-verify-sync checks it, the roles as concurrent programs
// (docs/partitions.md, "What tcgen05-verify-sync checks").

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tmem_128x128xf32 = !tcgen05.tmem<[128, 128], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>
!mbar = !tcgen05.mbarrier

func.func @ws_gemm_bf16(%A: !gptr, %B: !gptr, %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %true = arith.constant true

  %a0 = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %a1 = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b0 = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b1 = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_128x128xf32
  %full0 = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mbar
  %full1 = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mbar
  %empty0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mbar
  %empty1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mbar
  %acc_ready = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mbar

  "tcgen05.partitions"() ({
    // Load role: warp 0.
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        %i = arith.divui %k, %c128 : index
        %i1 = arith.addi %i, %c1 : index
        %prev = arith.andi %i1, %c1 : index
        %empty_parity = arith.index_cast %prev : index to i32
        %k1 = arith.addi %k, %c64 : index
        "tcgen05.mbarrier_wait"(%empty0, %empty_parity) : (!mbar, i32) -> ()
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!gptr, !smem_128x64xbf16, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "k_mn", src_ld = 128 : i64}
            : (!gptr, !smem_128x64xbf16, index) -> ()
        "tcgen05.fence_proxy_async"() : () -> ()
        "tcgen05.mbarrier_arrive"(%full0) : (!mbar) -> ()
        "tcgen05.mbarrier_wait"(%empty1, %empty_parity) : (!mbar, i32) -> ()
        "tcgen05.smem_fill"(%A, %a1, %k1) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!gptr, !smem_128x64xbf16, index) -> ()
        "tcgen05.smem_fill"(%B, %b1, %k1) {src_layout = "k_mn", src_ld = 128 : i64}
            : (!gptr, !smem_128x64xbf16, index) -> ()
        "tcgen05.fence_proxy_async"() : () -> ()
        "tcgen05.mbarrier_arrive"(%full1) : (!mbar) -> ()
      }
      // The producer tail: the last commits to empty_0 and empty_1 (iteration 1).
      "tcgen05.mbarrier_wait"(%empty0, %p1) : (!mbar, i32) -> ()
      "tcgen05.mbarrier_wait"(%empty1, %p1) : (!mbar, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        %i = arith.divui %k, %c128 : index
        %cur = arith.andi %i, %c1 : index
        %full_parity = arith.index_cast %cur : index to i32
        // The first MMA of the first K block overwrites the accumulator.
        %not_first = arith.cmpi ne, %k, %c0 : index
        "tcgen05.mbarrier_wait"(%full0, %full_parity) : (!mbar, i32) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %not_first) {kind = "f16", k_offset = 0 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.commit"(%empty0) : (!mbar) -> ()
        "tcgen05.mbarrier_wait"(%full1, %full_parity) : (!mbar, i32) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
        "tcgen05.commit"(%empty1) : (!mbar) -> ()
      }
      "tcgen05.commit"(%acc_ready) : (!mbar) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%acc_ready, %p0) : (!mbar, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c128 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x128xf32, index) -> !frag_128x32xf32
        "tcgen05.store_fragment"(%frag, %C, %col) {ld = 128 : i64}
            : (!frag_128x32xf32, !gptr, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
