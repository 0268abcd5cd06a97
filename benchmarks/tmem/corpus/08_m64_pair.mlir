// M = 64 pair: two 64 x 128 f32 accumulators (Layout F: 16 lanes of each quarter, lane
// offset 0 or 16, 9.7.16.10.5) live together share the same 128 columns in the two lane
// halves. Hand bound: 2 x 128 / 2 = 128 columns.
// EXPECT: lower bound 128, optimal 128 (derived above by hand)
!acc = !tcgen05.tmem<[64, 128], f32>
!ta = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[64, 32], f32>
func.func @m64_pair(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
