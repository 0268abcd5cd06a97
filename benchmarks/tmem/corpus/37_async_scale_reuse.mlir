// Asynchrony: a buffer read by an MMA stays live until the MMA is known complete, not
// just until the MMA is issued. The scale factors of a block-scaled MMA are read by it;
// a 128 x 8 buffer defined right after the MMA cannot take their columns (the MMA may
// still be reading them), but one defined after the accumulator's first load can (that
// load has to wait for the MMA). acc 128 + sfa 4 + sfb 4 + early 8 = 144 columns;
// late reuses the scale factors' columns.
// EXPECT: lower bound 144, optimal 144 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!tb = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
!small = !tcgen05.tmem<[128, 8], f32>
!frag = !tcgen05.frag<[128, 32], f32>
!frag8 = !tcgen05.frag<[128, 8], f32>
func.func @async_scale_reuse(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !sf
  %sfb = "tcgen05.tmem_buffer"() {name = "sfb"} : () -> !sf
  "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f, %sfa, %sfb) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sf) -> ()
  %early = "tcgen05.tmem_buffer"() {name = "early"} : () -> !small
  %v = "tcgen05.load_fragment"(%C, %c0) {ld = 8 : i64} : (!llvm.ptr<1>, index) -> !frag8
  "tcgen05.st"(%early, %c0, %v) : (!small, index, !frag8) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %late = "tcgen05.tmem_buffer"() {name = "late"} : () -> !small
  "tcgen05.st"(%late, %c0, %v) : (!small, index, !frag8) -> ()
  %y = "tcgen05.ld"(%late, %c0) : (!small, index) -> !frag8
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 8 : i64} : (!frag8, !llvm.ptr<1>, index) -> ()
  %z = "tcgen05.ld"(%early, %c0) : (!small, index) -> !frag8
  "tcgen05.store_fragment"(%z, %C, %c0) {ld = 8 : i64} : (!frag8, !llvm.ptr<1>, index) -> ()
  return
}
