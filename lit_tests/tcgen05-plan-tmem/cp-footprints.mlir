// tcgen05.cp owns every cell it writes: a scale-factor or metadata buffer filled by a copy
// gets the copy's columns (9.7.16.2.3: .128x128b writes 128 bits = 4 columns per lane),
// not only the MMA's need (2 columns of scale_B for N = 64, 2 of metadata), so the next
// buffer does not start inside it. The inputs are issue 24's: before, the scale_B buffers
// sat at columns 132 and 134 and the metadata at 64 and 66, each copy writing over the
// other buffer.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem' --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @two_scale_b
// CHECK: column_offset = 128 : i64, columns = 4 : i64{{.*}}name = "sfa", role = "scale_a"
// CHECK: column_offset = 132 : i64, columns = 4 : i64{{.*}}name = "sfb0", role = "scale_b"
// CHECK: column_offset = 136 : i64, columns = 4 : i64{{.*}}name = "sfb1", role = "scale_b"
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!tb = !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @two_scale_b(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !sf
  %sfb0 = "tcgen05.tmem_buffer"() {name = "sfb0"} : () -> !sf
  %sfb1 = "tcgen05.tmem_buffer"() {name = "sfb1"} : () -> !sf
  "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb0, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb1, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f, %sfa, %sfb0) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sf) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f, %sfa, %sfb1) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sf) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @two_metadata
// CHECK: column_offset = 64 : i64, columns = 4 : i64{{.*}}name = "meta0", role = "metadata"
// CHECK: column_offset = 68 : i64, columns = 4 : i64{{.*}}name = "meta1", role = "metadata"
!acc = !tcgen05.tmem<[128, 32], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "64B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!meta = !tcgen05.tmem<[128, 2], i32>
!smeta = !tcgen05.smem<[128, 16], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @two_metadata(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %sm = "tcgen05.smem_buffer"() : () -> !smeta
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %meta0 = "tcgen05.tmem_buffer"() {name = "meta0"} : () -> !meta
  %meta1 = "tcgen05.tmem_buffer"() {name = "meta1"} : () -> !meta
  "tcgen05.cp"(%meta0, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
  "tcgen05.cp"(%meta1, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f, %meta0) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f, %meta1) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
