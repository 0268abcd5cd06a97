// Loops reusing an accumulator, and reuse between phases: phase 1 computes one 128 x 256
// tile; phase 2 (after phase 1's epilogue has read it) computes a 128 x 256 and a 128 x 128
// tile at the same time, in the columns phase 1 used. Hand bound: max(256, 256 + 128) =
// 384 columns; without reuse 256 + 256 + 128 = 640, more than tensor memory has.
// EXPECT: lower bound 384, optimal 384 (derived above by hand)
!acc256 = !tcgen05.tmem<[128, 256], f32>
!acc128 = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb256 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tb128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @two_phase_reuse(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb256
  %b2 = "tcgen05.smem_buffer"() : () -> !tb128
  %p1 = "tcgen05.tmem_buffer"() {name = "phase1"} : () -> !acc256
  "tcgen05.mma"(%p1, %a, %b, %f) {kind = "f16"} : (!acc256, !ta, !tb256, i1) -> ()
  %x = "tcgen05.ld"(%p1, %c0) : (!acc256, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %p2a = "tcgen05.tmem_buffer"() {name = "phase2a"} : () -> !acc256
  %p2b = "tcgen05.tmem_buffer"() {name = "phase2b"} : () -> !acc128
  "tcgen05.mma"(%p2a, %a, %b, %f) {kind = "f16"} : (!acc256, !ta, !tb256, i1) -> ()
  "tcgen05.mma"(%p2b, %a, %b2, %f) {kind = "f16"} : (!acc128, !ta, !tb128, i1) -> ()
  %y = "tcgen05.ld"(%p2a, %c0) : (!acc256, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %z = "tcgen05.ld"(%p2b, %c0) : (!acc128, index) -> !frag
  "tcgen05.store_fragment"(%z, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
