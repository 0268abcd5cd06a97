// M = 64 pairs in a loop: four 64 x 128 Layout F accumulators accumulate across a K-loop
// and are read after it; they pair up on the two lane halves of two 128-column blocks.
// Hand bound: 4 x 128 / 2 = 256 columns.
// EXPECT: lower bound 256, optimal 256 (derived above by hand)
!acc = !tcgen05.tmem<[64, 128], f32>
!ta = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[64, 32], f32>
func.func @m64_four_in_loop(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %acc2 = "tcgen05.tmem_buffer"() {name = "acc2"} : () -> !acc
  %acc3 = "tcgen05.tmem_buffer"() {name = "acc3"} : () -> !acc
  scf.for %k = %c0 to %c8 step %c1 {
    %acc_in = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc0, %a, %b, %acc_in) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc1, %a, %b, %acc_in) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc2, %a, %b, %acc_in) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc3, %a, %b, %acc_in) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  }
  %x0 = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x0, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x1 = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x1, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x2 = "tcgen05.ld"(%acc2, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x2, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x3 = "tcgen05.ld"(%acc3, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x3, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
