// The K-loop GEMM of gemm_bf16_kloop.mlir with its tiles loaded by TMA (docs/tma.md):
//   C (128 x 256, f32) = A (128 x 512, bf16, row-major) x B^T, B (256 x 512, bf16, row-major)
// Both operands are K-contiguous, so each 64-element K-block of a row is one 128-byte row
// of a K-major 128B-swizzled tile, which is what TMA writes for the box {64, rows} with
// CU_TENSOR_MAP_SWIZZLE_128B. %tmA and %tmB are the global addresses of the CUtensorMaps
// the host encoded for A and B (their argument attributes say for which array, box and
// swizzle; tcgen05-verify checks them against the tiles).
//
// The TMA synchronization is the kernel's (tcgen05-insert-sync does not add it yet;
// tcgen05-verify-sync checks it): per K-block, the issuing thread announces the bytes of
// both tiles on %full (mbarrier_expect_tx: 16384 + 32768 bytes, computed from the tiles
// that follow) and issues both loads; every thread waits for %full's phase before the MMAs
// read the tiles; the barrier after that wait keeps every thread's wait apart from the
// next K-block's arrival on %full. tcgen05-insert-sync adds the rest: the MMAs' commit and
// its wait before the next K-block's loads overwrite the tiles (the refill), the wait and
// fence::after_thread_sync before the epilogue reads the accumulator, and what the
// dealloc needs.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_256x64xbf16 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>
!mbar = !tcgen05.mbarrier

func.func @gemm_bf16_tma(%A: !gptr, %B: !gptr, %C: !gptr,
    %tmA: !gptr {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                       swizzle = "128B"}},
    %tmB: !gptr {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                       swizzle = "128B"}})
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
  %full = "tcgen05.alloc_mbarrier"() : () -> !mbar

  scf.for %k = %c0 to %c512 step %c64 {
    "tcgen05.mbarrier_expect_tx"(%full) : (!mbar) -> ()
    // Coordinates innermost first: {k, row}.
    "tcgen05.tma_load"(%tmA, %a, %full, %k, %c0)
        : (!gptr, !smem_128x64xbf16, !mbar, index, index) -> ()
    "tcgen05.tma_load"(%tmB, %b, %full, %k, %c0)
        : (!gptr, !smem_256x64xbf16, !mbar, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!mbar) -> ()
    "tcgen05.barrier"() : () -> ()
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
