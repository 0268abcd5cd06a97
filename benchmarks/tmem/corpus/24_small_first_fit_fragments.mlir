// Many small buffers with interleaved lifetimes, the classic case where program-order
// first fit fragments memory: a (64 columns) and c (64) live long, b (64) sits between
// them and dies early, and d (128) starts after b. First fit puts a, b, c at 0, 64, 128;
// d then fits nowhere below 192 and the peak is 320. Placing c before b leaves b's 64
// columns next to a free gap d can use. Hand bound: a + c + d = 256 columns.
// EXPECT: lower bound 256, optimal 256 (derived above by hand)
!n64 = !tcgen05.tmem<[128, 64], f32>
!n128 = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tb128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @small_first_fit_fragments(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %sa = "tcgen05.smem_buffer"() : () -> !ta
  %b64 = "tcgen05.smem_buffer"() : () -> !tb64
  %b128 = "tcgen05.smem_buffer"() : () -> !tb128
  %a = "tcgen05.tmem_buffer"() {name = "a"} : () -> !n64
  "tcgen05.mma"(%a, %sa, %b64, %f) {kind = "f16"} : (!n64, !ta, !tb64, i1) -> ()
  %b = "tcgen05.tmem_buffer"() {name = "b"} : () -> !n64
  "tcgen05.mma"(%b, %sa, %b64, %f) {kind = "f16"} : (!n64, !ta, !tb64, i1) -> ()
  %c = "tcgen05.tmem_buffer"() {name = "c"} : () -> !n64
  "tcgen05.mma"(%c, %sa, %b64, %f) {kind = "f16"} : (!n64, !ta, !tb64, i1) -> ()
  %xb = "tcgen05.ld"(%b, %c0) : (!n64, index) -> !frag
  "tcgen05.store_fragment"(%xb, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %dd = "tcgen05.tmem_buffer"() {name = "d"} : () -> !n128
  "tcgen05.mma"(%dd, %sa, %b128, %f) {kind = "f16"} : (!n128, !ta, !tb128, i1) -> ()
  %xa = "tcgen05.ld"(%a, %c0) : (!n64, index) -> !frag
  "tcgen05.store_fragment"(%xa, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %xc = "tcgen05.ld"(%c, %c0) : (!n64, index) -> !frag
  "tcgen05.store_fragment"(%xc, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %xd = "tcgen05.ld"(%dd, %c0) : (!n128, index) -> !frag
  "tcgen05.store_fragment"(%xd, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
