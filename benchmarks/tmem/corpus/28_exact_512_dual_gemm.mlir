// Needs exactly 512 columns: a dual GEMM (gate and up projections of one A tile, as in a
// gated MLP) keeps two 128 x 256 f32 accumulators across the K-loop and reads both in the
// epilogue: 256 + 256 = 512 columns, all of tensor memory.
// EXPECT: lower bound 512, optimal 512 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @exact_512_dual_gemm(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %c16 = arith.constant 16 : index
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %bg = "tcgen05.smem_buffer"() : () -> !tb
  %bu = "tcgen05.smem_buffer"() : () -> !tb
  %gate = "tcgen05.tmem_buffer"() {name = "gate"} : () -> !acc
  %up = "tcgen05.tmem_buffer"() {name = "up"} : () -> !acc
  scf.for %k = %c0 to %c16 step %c1 {
    %acc_in = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%gate, %a, %bg, %acc_in) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%up, %a, %bu, %acc_in) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  }
  scf.for %col = %c0 to %c256 step %c32 {
    %g = "tcgen05.ld"(%gate, %col) : (!acc, index) -> !frag
    %u = "tcgen05.ld"(%up, %col) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%g, %C, %col) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    "tcgen05.store_fragment"(%u, %C, %col) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  return
}
