// A persistent warp-specialized GEMM, TMA-fed through a 4-stage shared-memory ring, with a
// double-buffered accumulator, written with NO synchronization (docs/partitions.md):
//   C (128 x 1024, f32) = A (128 x 256, bf16) x B^T, B (1024 x 256, bf16), all row-major
// One CTA computes the four 128 x 256 tiles of C (tile t: columns 256 t ..), K = 256 in
// four K blocks of 64. Three roles run at once, each written as the loops it runs:
//   load     (warp 0):    for each tile and K block, the TMA loads of the A and B blocks
//                         into ring stage s (no mbarrier operand: the compiler picks it);
//   mma      (warp 1):    for each tile, into accumulator stage j, for each K block the
//                         four K = 16 MMAs out of ring stage s;
//   epilogue (warps 4-7): for each tile, loads accumulator stage j (tcgen05.ld) and
//                         stores C.
// K block kb of tile t is the ring's it = 4 t + kb-th use, of stage s = it mod 4; tile t
// uses accumulator stage j = t mod 2 (warps 2 and 3 have no role).
//
// Shared memory: the A ring [4, 128, 64] and the B ring [4, 256, 64] (128B swizzle,
// K-major: each 64-element K block of a row is one 128-byte row of a stage, what TMA
// writes for the boxes {64, 128} and {64, 256}); a stage of A is 16384 bytes, of B 32768,
// 196608 bytes in all. TMEM: the accumulator [2, 128, 256] f32 (tcgen05.tmem_stage), 512
// columns.
//
// tcgen05-insert-sync (the default, strategy=minimal) writes the whole protocol
// (tcgen05_lower/synchronization/rings.py): rings of mbarriers full[4] and empty[4] per
// shared-memory stage, acc_full[2] and acc_empty[2] (count 128) per accumulator stage,
// the expect_tx of each stage's 49152 bytes, the waits with their parities from the
// loop counters, the commits, the epilogue's wait::ld / fence::before_thread_sync /
// arrive, the fences after the waits of 9.7.16.6.4.3 / .4, and the fence before the
// dealloc. It proves that the stage indices written here (s, j) are the ones its
// counters give. lit_tests/examples/ws_persistent_gemm_bf16.mlir checks the planned IR;
// tests/kernels/ws_persistent_gemm_bf16_hand.mlir is the same kernel synchronized by hand.
// C promises 16-byte alignment (llvm.align): it is a whole buffer, from cuMemAlloc (256-byte
// aligned, tcgen05_lower/gpu.py) or the simulator (2^36-aligned arrays); with ld = 1024 and
// column offsets t * 256 + col (multiples of 4), the epilogue stores each thread's four
// consecutive columns as one st.global.v4.b32 (README, "Leaner kernels").

!gptr = !llvm.ptr<1>
!smem_4x128x64xbf16 = !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
!smem_4x256x64xbf16 = !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_256x64xbf16 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tmem_2x128x256xf32 = !tcgen05.tmem<[2, 128, 256], f32>
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @ws_persistent_gemm_bf16(%A: !gptr, %B: !gptr,
    %C: !gptr {llvm.align = 16 : i64},
    %tmA: !gptr {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                       swizzle = "128B"}},
    %tmB: !gptr {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                       swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !smem_4x128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_4x256x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_2x128x256xf32

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!smem_4x128x64xbf16, index) -> !smem_128x64xbf16
          %bs = "tcgen05.smem_stage"(%b, %s) : (!smem_4x256x64xbf16, index) -> !smem_256x64xbf16
          "tcgen05.tma_load"(%tmA, %as, %k, %c0) : (!gptr, !smem_128x64xbf16, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n) : (!gptr, !smem_256x64xbf16, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tmem_2x128x256xf32, index) -> !tmem_128x256xf32
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!smem_4x128x64xbf16, index) -> !smem_128x64xbf16
          %bs = "tcgen05.smem_stage"(%b, %s) : (!smem_4x256x64xbf16, index) -> !smem_256x64xbf16
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tmem_2x128x256xf32, index) -> !tmem_128x256xf32
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!frag_128x32xf32, !gptr, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
