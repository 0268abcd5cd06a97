// 2-CTA M = 256 (cta_group::2, Layout A): each CTA of the pair holds 128 of the 256 rows,
// row on lane, so a 256 x 256 f32 accumulator takes 256 columns in each CTA; the pair
// allocates the same columns in both CTAs (one warp of each, 9.7.16.7.1). A second
// 256 x 128 accumulator is computed in the same K-loop. Hand bound: 256 + 128 = 384
// columns per CTA (allocation 512).
// EXPECT: lower bound 384, optimal 384 (derived above by hand)
!acc = !tcgen05.tmem<[256, 256], f32>
!acc2 = !tcgen05.tmem<[256, 128], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb2 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
func.func @cta2_m256_kloop(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %b2 = "tcgen05.smem_buffer"() : () -> !tb2
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %acc2 = "tcgen05.tmem_buffer"() {name = "acc2"} : () -> !acc2
  scf.for %k = %c0 to %c8 step %c1 {
    %acc_in = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %a, %b, %acc_in) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc2, %a, %b2, %acc_in) {kind = "f16"} : (!acc2, !ta, !tb2, i1) -> ()
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc2, %c0) : (!acc2, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
