// A persistent GEMM whose two accumulators swap roles through loop-carried values:
//   C (128 x 512, f32) = A (128 x 64, bf16) x B (64 x 512, bf16)   (all row-major)
// in four 128 x 128 tiles. Iteration t accumulates tile t into %cur while the epilogue
// drains tile t - 1 from %prev; then the loop yields them swapped, so that the next tile
// goes into the buffer just drained. Which TMEM buffer %cur and %prev name depends on
// the iteration: tcgen05-select-layouts and tcgen05-plan-tmem follow both buffers
// through the iteration arguments, tcgen05-insert-sync orders each MMA after the loads
// that last read its buffer, and the lowering carries the buffers' TMEM addresses
// through the loop.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tmem_128x128xf32 = !tcgen05.tmem<[128, 128], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @persistent_gemm_pingpong(%A: !gptr, %B: !gptr, %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c384 = arith.constant 384 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !tmem_128x128xf32
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !tmem_128x128xf32

  %last:2 = scf.for %t = %c0 to %c4 step %c1
      iter_args(%cur = %acc0, %prev = %acc1)
      -> (!tmem_128x128xf32, !tmem_128x128xf32) {
    // Main loop of tile %t (K = 64 in one block): B's columns start at %t * 128.
    %n = arith.muli %t, %c128 : index
    %n_i64 = arith.index_cast %n : index to i64
    %Bt = llvm.getelementptr %B[%n_i64] : (!gptr, i64) -> !gptr, bf16
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!gptr, !smem_128x64xbf16, index) -> ()
    "tcgen05.smem_fill"(%Bt, %b, %c0) {src_layout = "k_mn", src_ld = 512 : i64}
        : (!gptr, !smem_128x64xbf16, index) -> ()
    "tcgen05.mma"(%cur, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
        : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
    "tcgen05.mma"(%cur, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
    "tcgen05.mma"(%cur, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()
    "tcgen05.mma"(%cur, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tmem_128x128xf32, !smem_128x64xbf16, !smem_128x64xbf16, i1) -> ()

    // Epilogue of tile %t - 1 from %prev (none before the first tile).
    %has_previous = arith.cmpi ugt, %t, %c0 : index
    scf.if %has_previous {
      %np = arith.subi %n, %c128 : index
      scf.for %col = %c0 to %c128 step %c32 {
        %frag = "tcgen05.ld"(%prev, %col) : (!tmem_128x128xf32, index) -> !frag_128x32xf32
        %dest = arith.addi %np, %col : index
        "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 512 : i64}
            : (!frag_128x32xf32, !gptr, index) -> ()
      }
    }
    scf.yield %prev, %cur : !tmem_128x128xf32, !tmem_128x128xf32
  }

  // Epilogue of the last tile (3): the loop's last %cur, yielded as its second value.
  scf.for %col = %c0 to %c128 step %c32 {
    %frag = "tcgen05.ld"(%last#1, %col) : (!tmem_128x128xf32, index) -> !frag_128x32xf32
    %dest = arith.addi %c384, %col : index
    "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 512 : i64}
        : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
