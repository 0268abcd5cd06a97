// Values through arith.select: after a first look at both accumulators, the epilogue
// reads whichever of the two a flag selects, so both stay live until that read is
// complete (its registers are used by the store). A third accumulator defined after the
// store reuses their columns. (The MMAs are known complete at the direct loads: a load
// through the select may read either buffer, so it proves nothing about either.)
// tcgen05-select-layouts follows both accumulators through the select: 128 x 256 and
// 128 x 128 f32 Layout D buffers (256 and 128 columns, all lanes). Hand bound: 256 + 256
// = 512 columns.
// EXPECT: lower bound 512, optimal 512 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!acc2 = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tb2 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @select_alias(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %b2 = "tcgen05.smem_buffer"() : () -> !tb2
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %p0 = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%p0, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %p1 = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%p1, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %pick = arith.select %flag, %acc0, %acc1 : !acc
  %x = "tcgen05.ld"(%pick, %c32) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %late = "tcgen05.tmem_buffer"() {name = "late"} : () -> !acc2
  "tcgen05.mma"(%late, %a, %b2, %f) {kind = "f16"} : (!acc2, !ta, !tb2, i1) -> ()
  %y = "tcgen05.ld"(%late, %c0) : (!acc2, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
