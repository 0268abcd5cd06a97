// Block-scaled kind in a K-loop: kind::mxf4 with scale_vec::2X. Every K-block copies new
// scale factors into the same two buffers; the copy of the next block must wait for the
// previous MMA to have read them (an MMA -> cp pair is not pipelined, 9.7.16.6.2), so the
// scale buffers stay live for the whole loop with the accumulator. Footprints: 128 + 4 +
// 4 = 136 columns, allocation 256.
// EXPECT: lower bound 136, optimal 136 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
!tb = !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @mxf4_scaled_kloop(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !sf
  %sfb = "tcgen05.tmem_buffer"() {name = "sfb"} : () -> !sf
  scf.for %k = %c0 to %c16 step %c1 {
    %acc_in = arith.cmpi ne, %k, %c0 : index
    "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
    "tcgen05.cp"(%sfb, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
    "tcgen05.mma"(%acc, %a, %b, %acc_in, %sfa, %sfb) {kind = "mxf4", scale_vec = "2X"} : (!acc, !ta, !tb, i1, !sf, !sf) -> ()
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
