// Needs more than 512 columns: three 128 x 256 accumulators computed together and read
// together. Their cells alone fill 3 x 256 = 768 columns; every strategy reports the
// over-subscription at the third buffer.
// EXPECT: lower bound 768, optimal 768 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @over_three_256(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %acc2 = "tcgen05.tmem_buffer"() {name = "acc2"} : () -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc2, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %x0 = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x0, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x1 = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x1, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x2 = "tcgen05.ld"(%acc2, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x2, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
