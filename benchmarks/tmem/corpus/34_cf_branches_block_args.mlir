// cf branches and block arguments: the kernel body is several blocks. ^bb1 and ^bb2 each
// pick one of two accumulators and pass it to ^bb3 as a block argument, which reads it;
// both accumulators are live until that read. A temporary in ^bb2 lives only there, but
// in program order ^bb2 lies between the definitions and the read, so it needs columns of
// its own. tcgen05-select-layouts follows the accumulators through the block argument:
// 128 x 128 and 128 x 64 f32 Layout D buffers (128 and 64 columns, all lanes). Hand
// bound: 128 + 128 + 64 = 320.
// EXPECT: lower bound 320, optimal 320 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!tmp = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @cf_branches_block_args(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %b64 = "tcgen05.smem_buffer"() : () -> !tb64
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  cf.cond_br %flag, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%acc0 : !acc)
^bb2:
  %t = "tcgen05.tmem_buffer"() {name = "tmp"} : () -> !tmp
  "tcgen05.mma"(%t, %a, %b64, %f) {kind = "f16"} : (!tmp, !ta, !tb64, i1) -> ()
  %x = "tcgen05.ld"(%t, %c0) : (!tmp, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  cf.br ^bb3(%acc1 : !acc)
^bb3(%pick: !acc):
  %y = "tcgen05.ld"(%pick, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
