// Block-scaled kind with scale factors: kind::mxf8f6f4 with scale_vec::1X. The scale
// factors of A (128 rows) and of B (N = 256 rows) are copied into tensor memory with
// tcgen05.cp; each scale-factor row sits on lane (row mod 32) of all four lane quarters,
// column (row div 32) (tmem-facts section 3): 4 columns for A, 8 for B (a [256, 4]
// buffer, filled by one 128x256b copy: 32 bytes per lane, docs/tmem-operands.md). With the
// 256-column accumulator: 256 + 4 + 8 = 268 columns, allocation 512.
// EXPECT: lower bound 268, optimal 268 (derived above by hand)
!acc = !tcgen05.tmem<[128, 256], f32>
!ta = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!tb = !tcgen05.smem<[256, 128], f8E4M3FN, "K", "128B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!sfn = !tcgen05.tmem<[256, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
!ssfn = !tcgen05.smem<[128, 32], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @mxf8_block_scaled(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %sn = "tcgen05.smem_buffer"() : () -> !ssfn
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !sf
  %sfb = "tcgen05.tmem_buffer"() {name = "sfb"} : () -> !sfn
  "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb, %sn) {shape = "128x256b"} : (!sfn, !ssfn) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f, %sfa, %sfb) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sfn) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
