// PIPELINE: tcgen05-select-layouts,tcgen05-plan-tmem
// M = 64 multi-buffer: a double-buffered 64 x 256 Layout F accumulator ([2, 64, 256]).
// The two stages stack in the two lane halves of the same 256 columns (stage i at lane
// offset 16 * (i mod 2)). Footprint as tcgen05-select-layouts gives one 64 x 256 Layout F
// stage: 256 columns on 16 lanes of each quarter. Hand bound: 2 x 256 / 2 = 256 columns.
// A first MMA into stage 0 before the loop gives the epilogue of the first iteration
// (which reads stage 0) an accumulator to read.
// EXPECT: lower bound 256, optimal 256 (derived above by hand)
!acc2 = !tcgen05.tmem<[2, 64, 256], f32>
!acc = !tcgen05.tmem<[64, 256], f32>
!ta = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[64, 32], f32>
func.func @m64_multibuffer_2stage(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc", role = "d", layout = "F", columns = 256 : i64, half_lanes = true} : () -> !acc2
  %first = "tcgen05.tmem_stage"(%acc, %c0) : (!acc2, index) -> !acc
  "tcgen05.mma"(%first, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  scf.for %i = %c1 to %c16 step %c1 {
    %s = arith.remui %i, %c2 : index
    %p = arith.subi %c1, %s : index
    %cur = "tcgen05.tmem_stage"(%acc, %s) : (!acc2, index) -> !acc
    %old = "tcgen05.tmem_stage"(%acc, %p) : (!acc2, index) -> !acc
    "tcgen05.mma"(%cur, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %x = "tcgen05.ld"(%old, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  return
}
