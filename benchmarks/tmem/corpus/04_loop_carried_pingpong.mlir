// Loop-carried values: two 128 x 128 accumulators swap roles every iteration through
// scf.for iteration arguments (the epilogue reads last iteration's tile while the MMA
// writes the other). Which buffer %cur names depends on the iteration, so both are live
// for the whole loop. tcgen05-select-layouts follows both buffers through the iteration
// arguments: each is a 128 x 128 f32 Layout D accumulator (128 columns, all lanes).
// Hand bound: 256 columns.
// EXPECT: lower bound 256, optimal 256 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @loop_carried_pingpong(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %r:2 = scf.for %i = %c0 to %c16 step %c1 iter_args(%cur = %acc0, %next = %acc1) -> (!acc, !acc) {
    "tcgen05.mma"(%next, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %x = "tcgen05.ld"(%cur, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    scf.yield %next, %cur : !acc, !acc
  }
  %y = "tcgen05.ld"(%r#0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
