// Block-scaled kind, two tiles one after the other, the scale factors of the second
// copied in while the first tile's epilogue still reads its accumulator. The first
// tile's scale factors are free once its MMA is known complete: at the first load of its
// accumulator (that load must wait for the MMA). Peak where the second tile's scale
// factors arrive: acc0 256 + sfa0 4 + sfb0 8 + sfa1 4 + sfb1 8 = 280 columns.
// B has N = 256 rows: its factors take 8 columns, a [256, 4] buffer filled by one
// 128x256b copy (32 bytes per lane, docs/tmem-operands.md).
// EXPECT: lower bound 280, optimal 280 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!ta = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!tb = !tcgen05.smem<[256, 128], f8E4M3FN, "K", "128B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!sfn = !tcgen05.tmem<[256, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
!ssfn = !tcgen05.smem<[128, 32], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @scaled_two_phases(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %sn = "tcgen05.smem_buffer"() : () -> !ssfn
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %sfa0 = "tcgen05.tmem_buffer"() {name = "sfa0"} : () -> !sf
  %sfb0 = "tcgen05.tmem_buffer"() {name = "sfb0"} : () -> !sfn
  "tcgen05.cp"(%sfa0, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb0, %sn) {shape = "128x256b"} : (!sfn, !ssfn) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f, %sfa0, %sfb0) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sfn) -> ()
  %sfa1 = "tcgen05.tmem_buffer"() {name = "sfa1"} : () -> !sf
  %sfb1 = "tcgen05.tmem_buffer"() {name = "sfb1"} : () -> !sfn
  "tcgen05.cp"(%sfa1, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb1, %sn) {shape = "128x256b"} : (!sfn, !ssfn) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  "tcgen05.mma"(%acc1, %a, %b, %f, %sfa1, %sfb1) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sfn) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
