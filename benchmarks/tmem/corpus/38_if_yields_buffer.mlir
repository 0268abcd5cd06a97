// Region results: an scf.if yields one of two accumulators and the code after it reads
// the result, so both are live from their definitions to that read. A temporary used only
// inside the then-branch overlaps them. tcgen05-select-layouts follows the accumulators
// through the scf.if result: 128 x 128 and 128 x 32 f32 Layout D buffers (128 and 32
// columns, all lanes). Hand bound: 128 + 128 + 32 = 288 columns, allocation 512.
// EXPECT: lower bound 288, optimal 288 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!tmp = !tcgen05.tmem<[128, 32], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb32 = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @if_yields_buffer(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %b32 = "tcgen05.smem_buffer"() : () -> !tb32
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %r = scf.if %flag -> (!acc) {
    %t = "tcgen05.tmem_buffer"() {name = "tmp"} : () -> !tmp
    "tcgen05.mma"(%t, %a, %b32, %f) {kind = "f16"} : (!tmp, !ta, !tb32, i1) -> ()
    %x = "tcgen05.ld"(%t, %c0) : (!tmp, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    scf.yield %acc0 : !acc
  } else {
    scf.yield %acc1 : !acc
  }
  %y = "tcgen05.ld"(%r, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
