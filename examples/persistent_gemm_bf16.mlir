// A persistent GEMM with a double-buffered accumulator: one CTA computes the four
// 128 x 256 tiles of
//   C (128 x 1024, f32) = A (128 x 128, bf16) x B (128 x 1024, bf16)   (all row-major)
// two at a time. Tile 2p accumulates in %acc0 and tile 2p + 1 in %acc1, so the MMAs of
// one tile run while the epilogue of the previous tile still reads the other
// accumulator:
//
//   for each pair p:   main loop of tile 2p      -> %acc0
//                      epilogue of tile 2p - 1   <- %acc1   (not in the first pair)
//                      main loop of tile 2p + 1  -> %acc1
//                      epilogue of tile 2p       <- %acc0
//   epilogue of the last tile                    <- %acc1
//
// Each main loop runs over K in two blocks of 64 and refills the same shared-memory tiles;
// the first MMA of a tile overwrites its accumulator. tcgen05-insert-sync finds every
// dependence: the refills wait for the MMAs that read the tiles, the epilogue of a tile
// waits for that tile's MMAs only, and a main loop waits for the loads of the epilogue
// that last read its accumulator before overwriting it.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_256x64xbf16 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @persistent_gemm_bf16(%A: !gptr, %B: !gptr, %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c768 = arith.constant 768 : index
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_256x64xbf16
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !tmem_128x256xf32
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !tmem_128x256xf32

  // %t: the first tile of the pair.
  scf.for %t = %c0 to %c4 step %c2 {
    // Main loop of tile %t into %acc0. Its B columns start at %t * 256.
    %n0 = arith.muli %t, %c256 : index
    %n0_i64 = arith.index_cast %n0 : index to i64
    %B0 = llvm.getelementptr %B[%n0_i64] : (!gptr, i64) -> !gptr, bf16
    scf.for %k = %c0 to %c128 step %c64 {
      "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 128 : i64}
          : (!gptr, !smem_128x64xbf16, index) -> ()
      "tcgen05.smem_fill"(%B0, %b, %k) {src_layout = "k_mn", src_ld = 1024 : i64}
          : (!gptr, !smem_256x64xbf16, index) -> ()
      %not_first = arith.cmpi ne, %k, %c0 : index
      "tcgen05.mma"(%acc0, %a, %b, %not_first) {kind = "f16", k_offset = 0 : i64}
          : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
      "tcgen05.mma"(%acc0, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
          : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
      "tcgen05.mma"(%acc0, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
          : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
      "tcgen05.mma"(%acc0, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
          : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
    }

    // Epilogue of the previous pair's second tile (%t - 1), from %acc1.
    %has_previous = arith.cmpi ugt, %t, %c0 : index
    scf.if %has_previous {
      %previous = arith.subi %t, %c1 : index
      %np = arith.muli %previous, %c256 : index
      scf.for %col = %c0 to %c256 step %c32 {
        %frag = "tcgen05.ld"(%acc1, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
        %dest = arith.addi %np, %col : index
        "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
            : (!frag_128x32xf32, !gptr, index) -> ()
      }
    }

    // Main loop of tile %t + 1 into %acc1.
    %t1 = arith.addi %t, %c1 : index
    %n1 = arith.muli %t1, %c256 : index
    %n1_i64 = arith.index_cast %n1 : index to i64
    %B1 = llvm.getelementptr %B[%n1_i64] : (!gptr, i64) -> !gptr, bf16
    scf.for %k = %c0 to %c128 step %c64 {
      "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 128 : i64}
          : (!gptr, !smem_128x64xbf16, index) -> ()
      "tcgen05.smem_fill"(%B1, %b, %k) {src_layout = "k_mn", src_ld = 1024 : i64}
          : (!gptr, !smem_256x64xbf16, index) -> ()
      %not_first = arith.cmpi ne, %k, %c0 : index
      "tcgen05.mma"(%acc1, %a, %b, %not_first) {kind = "f16", k_offset = 0 : i64}
          : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
      "tcgen05.mma"(%acc1, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
          : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
      "tcgen05.mma"(%acc1, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
          : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
      "tcgen05.mma"(%acc1, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
          : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
    }

    // Epilogue of tile %t, from %acc0, while the MMAs of tile %t + 1 run.
    scf.for %col = %c0 to %c256 step %c32 {
      %frag = "tcgen05.ld"(%acc0, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
      %dest = arith.addi %n0, %col : index
      "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
          : (!frag_128x32xf32, !gptr, index) -> ()
    }
  }

  // Epilogue of the last tile (3), from %acc1.
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc1, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
    %dest = arith.addi %c768, %col : index
    "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
        : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
