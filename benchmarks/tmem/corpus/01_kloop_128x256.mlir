// Loops reusing an accumulator across iterations: a K-loop accumulates one 128 x 256 f32
// tile (Layout D, 256 columns); the accumulator is defined before the loop and read after
// it, so it is live for the whole loop. Hand bound: 256 columns.
// EXPECT: lower bound 256, optimal 256 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @kloop_128x256(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  scf.for %k = %c0 to %c1024 step %c64 {
    "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 1024 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
    "tcgen05.smem_fill"(%B, %b, %k) {src_layout = "k_mn", src_ld = 256 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
    %acc_in = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %a, %b, %acc_in) {kind = "f16", k_offset = 0 : i64} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 16 : i64} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 32 : i64} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 48 : i64} : (!acc, !ta, !tb, i1) -> ()
  }
  scf.for %col = %c0 to %c256 step %c32 {
    %x = "tcgen05.ld"(%acc, %col) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %col) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  return
}
