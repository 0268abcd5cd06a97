// Loops with scf.while: the trip count is not known, so an accumulator defined before
// the loop and accumulated inside it is live across the whole loop and after it; a
// per-iteration 128 x 64 temporary (stored with tcgen05.st, read back) is not. Hand
// bound: 128 + 64 = 192 columns, allocation 256. An MMA before the loop overwrites the
// accumulator, so that one accumulating in the loop, or the load after a loop that ran
// no iteration, reads what an MMA wrote.
// EXPECT: lower bound 192, optimal 192 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!tmp = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!frag64 = !tcgen05.frag<[128, 64], f32>
func.func @while_loop(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %last = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi ult, %i, %n : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%j: index):
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %tmp = "tcgen05.tmem_buffer"() {name = "tmp"} : () -> !tmp
    %v = "tcgen05.load_fragment"(%C, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !frag64
    "tcgen05.st"(%tmp, %c0, %v) : (!tmp, index, !frag64) -> ()
    %r = "tcgen05.ld"(%tmp, %c0) : (!tmp, index) -> !frag64
    "tcgen05.store_fragment"(%r, %C, %c0) {ld = 64 : i64} : (!frag64, !llvm.ptr<1>, index) -> ()
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
