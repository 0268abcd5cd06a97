// Double-buffered accumulators as two buffers: the tile loop is unrolled by two, so
// while the epilogue warps read one 128 x 256 accumulator the MMAs fill the other. Both
// are live for the whole loop. This kernel needs exactly 512 columns.
// EXPECT: lower bound 512, optimal 512 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @double_buffer_2d(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  scf.for %tile = %c0 to %c32 step %c2 {
    "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%y, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  %z = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%z, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
