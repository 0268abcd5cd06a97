// Needs exactly 512 columns, and only a careful placement finds them: the fragmentation
// case of 24_small_first_fit_fragments at twice the size. a and c (128 columns each)
// live long, b (128) dies early, d (256) starts after b. First fit puts a, b, c at 0,
// 128, 256 and has no 256-column gap for d below 384: it needs 640 columns and fails.
// Hand bound: a + c + d = 512 columns, reached by putting b and then d at column 0.
// EXPECT: lower bound 512, optimal 512 (derived above by hand)
!n128 = !tcgen05.tmem<[128, 128], f32>
!n256 = !tcgen05.tmem<[128, 256], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb256 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @exact_512_first_fit_fails(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %sa = "tcgen05.smem_buffer"() : () -> !ta
  %b128 = "tcgen05.smem_buffer"() : () -> !tb128
  %b256 = "tcgen05.smem_buffer"() : () -> !tb256
  %a = "tcgen05.tmem_buffer"() {name = "a"} : () -> !n128
  "tcgen05.mma"(%a, %sa, %b128, %f) {kind = "f16"} : (!n128, !ta, !tb128, i1) -> ()
  %b = "tcgen05.tmem_buffer"() {name = "b"} : () -> !n128
  "tcgen05.mma"(%b, %sa, %b128, %f) {kind = "f16"} : (!n128, !ta, !tb128, i1) -> ()
  %c = "tcgen05.tmem_buffer"() {name = "c"} : () -> !n128
  "tcgen05.mma"(%c, %sa, %b128, %f) {kind = "f16"} : (!n128, !ta, !tb128, i1) -> ()
  %xb = "tcgen05.ld"(%b, %c0) : (!n128, index) -> !frag
  "tcgen05.store_fragment"(%xb, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %dd = "tcgen05.tmem_buffer"() {name = "d"} : () -> !n256
  "tcgen05.mma"(%dd, %sa, %b256, %f) {kind = "f16"} : (!n256, !ta, !tb256, i1) -> ()
  %xa = "tcgen05.ld"(%a, %c0) : (!n128, index) -> !frag
  "tcgen05.store_fragment"(%xa, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %xc = "tcgen05.ld"(%c, %c0) : (!n128, index) -> !frag
  "tcgen05.store_fragment"(%xc, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %xd = "tcgen05.ld"(%dd, %c0) : (!n256, index) -> !frag
  "tcgen05.store_fragment"(%xd, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
