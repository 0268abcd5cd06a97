// Loops reusing an accumulator across iterations: a persistent loop over output tiles.
// The accumulator is defined once, overwritten by the first MMA of every tile and read by
// the tile's epilogue; the next tile reuses the same cells, so the buffer is live for the
// whole tile loop. A 128 x 64 staging buffer for a bias (written by tcgen05.st) lives only
// in the epilogue. Hand bound: 256 + 64 = 320 columns (allocation 512).
// EXPECT: lower bound 320, optimal 320 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!bias = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!bfrag = !tcgen05.frag<[128, 64], f32>
func.func @persistent_tiles(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>, %Bias: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  scf.for %tile = %c0 to %c8 step %c1 {
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
    "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 0 : i64} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 16 : i64} : (!acc, !ta, !tb, i1) -> ()
    %bias = "tcgen05.tmem_buffer"() {name = "bias"} : () -> !bias
    %bv = "tcgen05.load_fragment"(%Bias, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !bfrag
    "tcgen05.st"(%bias, %c0, %bv) : (!bias, index, !bfrag) -> ()
    scf.for %col = %c0 to %c256 step %c32 {
      %x = "tcgen05.ld"(%acc, %col) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%x, %C, %col) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    }
    %y = "tcgen05.ld"(%bias, %c0) : (!bias, index) -> !bfrag
    "tcgen05.store_fragment"(%y, %C, %c0) {ld = 256 : i64} : (!bfrag, !llvm.ptr<1>, index) -> ()
  }
  return
}
