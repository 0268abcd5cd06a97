// Branches (scf.if): the two branches compute different tiles into buffers of their own
// (128 x 256 each). In program order the then-branch comes first and ends before the
// else-branch starts, and no path runs both, so the two buffers share columns; a 128 x 64
// buffer defined before the branch and read after it lives across both. Hand bound:
// 64 + 256 = 320 columns, allocation 512.
// EXPECT: lower bound 320, optimal 320 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!small = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tb64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @if_else_buffers(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %b64 = "tcgen05.smem_buffer"() : () -> !tb64
  %keep = "tcgen05.tmem_buffer"() {name = "keep"} : () -> !small
  "tcgen05.mma"(%keep, %a, %b64, %f) {kind = "f16"} : (!small, !ta, !tb64, i1) -> ()
  scf.if %flag {
    %t = "tcgen05.tmem_buffer"() {name = "then_acc"} : () -> !acc
    "tcgen05.mma"(%t, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %x = "tcgen05.ld"(%t, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  } else {
    %e = "tcgen05.tmem_buffer"() {name = "else_acc"} : () -> !acc
    "tcgen05.mma"(%e, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %y = "tcgen05.ld"(%e, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%y, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  %z = "tcgen05.ld"(%keep, %c0) : (!small, index) -> !frag
  "tcgen05.store_fragment"(%z, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
