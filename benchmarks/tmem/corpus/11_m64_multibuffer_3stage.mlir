// PIPELINE: tcgen05-select-layouts,tcgen05-plan-tmem
// M = 64 multi-buffer with an odd stage count: a triple-buffered 64 x 128 Layout F
// accumulator ([3, 64, 128]) and a separate 64 x 128 Layout F buffer live at the same
// time. Four half-lane 128-column blocks: 4 x 128 / 2 = 256 columns, reached when the
// stages stack in lane pairs and the single buffer takes the free half of the last pair.
// Footprints as tcgen05-select-layouts gives a 64 x 128 Layout F accumulator (128 columns
// on 16 lanes of each quarter). Before the loop (its first two iterations, peeled) MMAs
// write stages 0 and 1, which the first two epilogues read, and the first MMA into the
// side buffer overwrites it; the loop's MMAs accumulate into it.
// EXPECT: lower bound 256, optimal 256 (derived above by hand)
!acc3 = !tcgen05.tmem<[3, 64, 128], f32>
!acc = !tcgen05.tmem<[64, 128], f32>
!ta = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[64, 32], f32>
func.func @m64_multibuffer_3stage(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c24 = arith.constant 24 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %stages = "tcgen05.tmem_buffer"() {name = "stages", role = "d", layout = "F", columns = 128 : i64, half_lanes = true} : () -> !acc3
  %side = "tcgen05.tmem_buffer"() {name = "side", role = "d", layout = "F", columns = 128 : i64, half_lanes = true} : () -> !acc
  %s0 = "tcgen05.tmem_stage"(%stages, %c0) : (!acc3, index) -> !acc
  "tcgen05.mma"(%s0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %s1 = "tcgen05.tmem_stage"(%stages, %c1) : (!acc3, index) -> !acc
  "tcgen05.mma"(%s1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%side, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  scf.for %i = %c2 to %c24 step %c1 {
    %s = arith.remui %i, %c3 : index
    %j = arith.subi %i, %c2 : index
    %r = arith.remui %j, %c3 : index
    %cur = "tcgen05.tmem_stage"(%stages, %s) : (!acc3, index) -> !acc
    %old = "tcgen05.tmem_stage"(%stages, %r) : (!acc3, index) -> !acc
    "tcgen05.mma"(%cur, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%side, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %x = "tcgen05.ld"(%old, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  %y = "tcgen05.ld"(%side, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
