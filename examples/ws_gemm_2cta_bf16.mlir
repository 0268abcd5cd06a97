// A persistent warp-specialized GEMM on a CTA pair (cta_group::2), TMA-fed through a
// 2-stage shared-memory ring, with a double-buffered accumulator, written with NO
// synchronization (docs/cta-pairs.md, "Warp roles and TMA in a CTA pair"):
//   C (256 x 512, f32) = A (256 x 256, bf16) x B^T, B (512 x 256, bf16), all row-major
// The pair computes the four 256 x 128 tiles of C (tile t: columns 128 t ..) with
// M = 256 MMAs (Layout A, 9.7.16.10.5.1): the CTA of rank r (%cluster_ctarank & 1) holds
// rows 128 r .. 128 r + 127 of A and of each tile of C, and rows 64 r .. 64 r + 63 of the
// tile's 128 rows of B (N/2), in its own shared and tensor memory at the same offsets.
// K = 256 in four K blocks of 64. Each CTA runs three roles at once, each written as the
// loops it runs (the same roles as examples/ws_persistent_gemm_bf16.mlir):
//   load     (warp 0):    for each tile and K block, the TMA loads of the CTA's own slices
//                         of the A and B blocks into ring stage s (no mbarrier operand:
//                         the compiler picks it);
//   mma      (warp 1):    for each tile, into accumulator stage j, for each K block the
//                         four K = 16 MMAs for the pair out of ring stage s (issued by the
//                         even CTA; in the odd CTA the role issues nothing);
//   epilogue (warps 4-7): in each CTA, for each tile, loads its own 128 TMEM lanes of
//                         accumulator stage j (tcgen05.ld) and stores its 128 rows of C.
// K block kb of tile t is the ring's it = 4 t + kb-th use, of stage s = it mod 2; tile t
// uses accumulator stage j = t mod 2 (warps 2 and 3 have no role).
//
// Shared memory, per CTA: the A ring [2, 128, 64] and the B ring [2, 64, 64] (128B
// swizzle, K-major: what TMA writes for the boxes {64, 128} and {64, 64}); a stage of A is
// 16384 bytes, of B 8192. TMEM, per CTA: the accumulator [2, 256, 128] f32 (its 128 rows
// of each stage), 256 columns.
//
// tcgen05-insert-sync (the default, strategy=minimal) writes the pair protocol
// (tcgen05_lower/synchronization/rings.py, docs/cta-pairs.md): full[2] (count 1, the
// even CTA's: its expect_tx of both CTAs' 2 x 24576 bytes, every TMA load completing
// there with .cta_group::2; the MMA warp waits in the even CTA), empty[2] (count 1, both
// CTAs': commit multicast 0b11; each CTA's load warp waits on its own), acc_full[2]
// (count 1, both CTAs': commit multicast 0b11; each CTA's epilogue waits on its own) and
// acc_empty[2] (count 256: both CTAs' 128 epilogue threads arrive on the even CTA's with
// cta = "even"; the MMA warp waits in the even CTA), with the parities from the loop
// counters, the fences of 9.7.16.6.4.3 / .4 and the fence before the dealloc.
// lit_tests/examples/ws_gemm_2cta_bf16.mlir checks the planned IR;
// tests/kernels/ws_gemm_2cta_bf16_hand.mlir is the same kernel synchronized by hand.

!gptr = !llvm.ptr<1>
!smem_2x128x64xbf16 = !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
!smem_2x64x64xbf16 = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_64x64xbf16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tmem_2x256x128xf32 = !tcgen05.tmem<[2, 256, 128], f32>
!tmem_256x128xf32 = !tcgen05.tmem<[256, 128], f32>
!frag_256x32xf32 = !tcgen05.frag<[256, 32], f32>

func.func @ws_gemm_2cta_bf16(%A: !gptr, %B: !gptr, %C: !gptr,
    %tmA: !gptr {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                       swizzle = "128B"}},
    %tmB: !gptr {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>,
                                       swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !smem_2x128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_2x64x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_2x256x128xf32

  "tcgen05.partitions"() ({
    // Load role: warp 0 of each CTA; one thread issues the TMA loads of the CTA's slices.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c128 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c2 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!smem_2x128x64xbf16, index) -> !smem_128x64xbf16
          %bs = "tcgen05.smem_stage"(%b, %s) : (!smem_2x64x64xbf16, index) -> !smem_64x64xbf16
          "tcgen05.tma_load"(%tmA, %as, %k, %c0) : (!gptr, !smem_128x64xbf16, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n) : (!gptr, !smem_64x64xbf16, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1; its first thread in the even CTA issues the pair's MMAs.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tmem_2x256x128xf32, index) -> !tmem_256x128xf32
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c2 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!smem_2x128x64xbf16, index) -> !smem_128x64xbf16
          %bs = "tcgen05.smem_stage"(%b, %s) : (!smem_2x64x64xbf16, index) -> !smem_64x64xbf16
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tmem_256x128xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tmem_256x128xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tmem_256x128xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tmem_256x128xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7 of each CTA, one warpgroup (warp w reads lanes 32 (w % 4) ..
    // of its own CTA's tensor memory: the CTA's 128 rows of the tile).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c128 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tmem_2x256x128xf32, index) -> !tmem_256x128xf32
        scf.for %col = %c0 to %c128 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tmem_256x128xf32, index) -> !frag_256x32xf32
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 512 : i64}
              : (!frag_256x32xf32, !gptr, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
