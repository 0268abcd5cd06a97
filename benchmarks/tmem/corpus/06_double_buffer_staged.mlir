// PIPELINE: tcgen05-select-layouts,tcgen05-plan-tmem
// A double-buffered accumulator with a leading stage dimension: [2, 128, 256] f32. Each
// iteration's MMA fills stage (i mod 2) through tcgen05.tmem_stage while the epilogue reads
// the other stage. Full-lane stages sit side by side: 2 x 256 = 512 columns, exactly all of
// tensor memory. tcgen05-select-layouts follows the tcgen05.tmem_stage views and writes the
// footprint of one stage on the buffer (a 128 x 256 f32 Layout D accumulator: 256 columns
// on all lanes). A first MMA into stage 0 before the loop gives the epilogue of the
// first iteration (which reads stage 0) an accumulator to read.
// EXPECT: lower bound 512, optimal 512 (derived above by hand)
!acc2 = !tcgen05.tmem<[2, 128, 256], f32>
!acc = !tcgen05.tmem<[128, 256], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @double_buffer_staged(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc", role = "d", layout = "D", columns = 256 : i64, half_lanes = false} : () -> !acc2
  %first = "tcgen05.tmem_stage"(%acc, %c0) : (!acc2, index) -> !acc
  "tcgen05.mma"(%first, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  scf.for %i = %c1 to %c32 step %c1 {
    %s = arith.remui %i, %c2 : index
    %prev = arith.subi %c1, %s : index
    %cur = "tcgen05.tmem_stage"(%acc, %s) : (!acc2, index) -> !acc
    %old = "tcgen05.tmem_stage"(%acc, %prev) : (!acc2, index) -> !acc
    "tcgen05.mma"(%cur, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %x = "tcgen05.ld"(%old, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  return
}
