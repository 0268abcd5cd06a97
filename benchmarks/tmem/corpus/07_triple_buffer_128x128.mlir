// PIPELINE: tcgen05-select-layouts,tcgen05-plan-tmem
// A triple-buffered 128 x 128 accumulator ([3, 128, 128] f32, full lanes): three stages
// side by side, 384 columns, so the allocation is 512. Footprint as
// tcgen05-select-layouts gives one 128 x 128 Layout D stage (128 columns). Iteration i
// reads stage (i - 2) mod 3: MMAs into stages 0 and 1 before the loop (its first two
// iterations, peeled) give the first two epilogues an accumulator to read.
// EXPECT: lower bound 384, optimal 384 (derived above by hand)
!acc3 = !tcgen05.tmem<[3, 128, 128], f32>
!acc = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @triple_buffer_128x128(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c30 = arith.constant 30 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc", role = "d", layout = "D", columns = 128 : i64, half_lanes = false} : () -> !acc3
  %s0 = "tcgen05.tmem_stage"(%acc, %c0) : (!acc3, index) -> !acc
  "tcgen05.mma"(%s0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %s1 = "tcgen05.tmem_stage"(%acc, %c1) : (!acc3, index) -> !acc
  "tcgen05.mma"(%s1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  scf.for %i = %c2 to %c30 step %c1 {
    %s = arith.remui %i, %c3 : index
    %j = arith.subi %i, %c2 : index
    %r = arith.remui %j, %c3 : index
    %cur = "tcgen05.tmem_stage"(%acc, %s) : (!acc3, index) -> !acc
    %old = "tcgen05.tmem_stage"(%acc, %r) : (!acc3, index) -> !acc
    "tcgen05.mma"(%cur, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %x = "tcgen05.ld"(%old, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  return
}
