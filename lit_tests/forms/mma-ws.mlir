// tcgen05.mma.ws and tcgen05.mma.ws.sp (9.7.16.10.9.3-4): weight-stationary MMAs, always
// cta_group::1, M = 32, 64 or 128 (Table 39), with B's collector buffers ::b0-::b3
// (fill / use / lastuse / discard), the optional zero-column-mask-desc operand (Table 45)
// and the maximum-shift field of the instruction descriptor (Table 42 bits 30-31).
// kind::i8 with .ws is in mma-i8.mlir.
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.100a.ptx
// RUN: FileCheck %s --input-file %t.100a.ptx
// RUN: %ptxas -arch=sm_100a %t.100a.ptx -o %t.100a.cubin
// RUN: tcgen05-lower %s --arch sm_100f -o %t.100f.ptx
// RUN: FileCheck %s --input-file %t.100f.ptx
// RUN: %ptxas -arch=sm_100f %t.100f.ptx -o %t.100f.cubin
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103a.ptx
// RUN: FileCheck %s --input-file %t.103a.ptx
// RUN: %ptxas -arch=sm_103a %t.103a.ptx -o %t.103a.cubin
// RUN: tcgen05-lower %s --arch sm_110a -o %t.110a.ptx
// RUN: FileCheck %s --input-file %t.110a.ptx
// RUN: %ptxas -arch=sm_110a %t.110a.ptx -o %t.110a.cubin

!acc32 = !tcgen05.tmem<[32, 128], f32>
!a32 = !tcgen05.smem<[32, 64], f16, "K", "128B">
!b128 = !tcgen05.smem<[128, 64], f16, "K", "128B">
!b136 = !tcgen05.smem<[136, 64], f16, "K", "128B">
!acc64 = !tcgen05.tmem<[64, 64], f32>
!a64 = !tcgen05.smem<[64, 64], f16, "K", "128B">
!b64 = !tcgen05.smem<[64, 64], f16, "K", "128B">
!acc128 = !tcgen05.tmem<[128, 256], f32>
!a128 = !tcgen05.smem<[128, 64], f16, "K", "128B">
!b256 = !tcgen05.smem<[256, 64], f16, "K", "128B">
!accsp = !tcgen05.tmem<[64, 128], f32>
!atsp = !tcgen05.tmem<[64, 64], bf16>
!bsp = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!meta = !tcgen05.tmem<[64, 2], i32>

// M = 32 (Layout G) without a collector qualifier, then with the zero-column mask of
// Table 45's example 4 (M = 32): start counts {sc3..sc0} = {1, 2, 1, 0} -> bits 0-31
// 0x01020100; first spans {fs3..fs0} = {0, 0, 1, 1} -> bits 32-35 0b0011; non-zero mask
// bit 39; skip span 2 (bits 40-47), use span 3 (bits 48-55), shift 2 (bits 56-61):
// 0x0203028301020100 = 144962374686867712. The mask is the last operand.
// The second MMA's mask shifts B's columns by 2 (Table 45, bits 56-61), so it reads B rows
// 2..129: its tile has 136 rows (tcgen05-verify asks for at least N + 2).
// CHECK-LABEL: .entry ws_m32(
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
// CHECK: mov.b64 [[MASK:%rd[0-9]+]], 144962374686867712;
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}}, [[MASK]];
func.func @ws_m32() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a32
  %b = "tcgen05.smem_buffer"() : () -> !b128
  %bs = "tcgen05.smem_buffer"() : () -> !b136
  %d = "tcgen05.tmem_buffer"() : () -> !acc32
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true} : (!acc32, !a32, !b128, i1) -> ()
  "tcgen05.mma"(%d, %a, %bs, %p) {kind = "f16", ws = true, k_offset = 16 : i64, collector_b = "b0", collector_b_op = "fill", zero_column_mask = 144962374686867712 : i64} : (!acc32, !a32, !b136, i1) -> ()
  return
}

// M = 64 (Layout E): each collector buffer with each operation. A use or lastuse reads
// the B block its buffer was filled with (9.7.16.10.9.1: "This requires a previous fill to
// the collector buffer to be still valid"; tcgen05-verify checks it).
// CHECK-LABEL: .entry ws_m64_collectors(
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::fill [
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::use [
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::fill [
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::lastuse [
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b3::discard [
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill [
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::use [
func.func @ws_m64_collectors() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a64
  %b = "tcgen05.smem_buffer"() : () -> !b64
  %d = "tcgen05.tmem_buffer"() : () -> !acc64
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b = "b1", collector_b_op = "fill"} : (!acc64, !a64, !b64, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b = "b1", collector_b_op = "use"} : (!acc64, !a64, !b64, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b = "b2", collector_b_op = "fill", k_offset = 32 : i64} : (!acc64, !a64, !b64, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b = "b2", collector_b_op = "lastuse", k_offset = 32 : i64} : (!acc64, !a64, !b64, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b = "b3", collector_b_op = "discard", k_offset = 48 : i64} : (!acc64, !a64, !b64, i1) -> ()
  // collector_b alone, or collector_b_op alone: the other defaults to ::b0 / ::discard
  // (9.7.16.10.9.3).
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b_op = "fill", k_offset = 16 : i64} : (!acc64, !a64, !b64, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b_op = "use", k_offset = 16 : i64} : (!acc64, !a64, !b64, i1) -> ()
  return
}

// M = 128, N = 256 with a maximum B-reuse shift of 16 columns (Table 42 bits 30-31 = 2):
// dtype F32 1 << 4, N >> 3 = 32 << 17, M >> 4 = 8 << 24, 2 << 30: 0x88400010, which PTX
// prints as the signed 32-bit value -2009071600.
// CHECK-LABEL: .entry ws_m128_max_shift(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], -2009071600;
// CHECK: tcgen05.mma.ws.cta_group::1.kind::f16 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
func.func @ws_m128_max_shift() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a128
  %b = "tcgen05.smem_buffer"() : () -> !b256
  %d = "tcgen05.tmem_buffer"() : () -> !acc128
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, max_shift = 16 : i64} : (!acc128, !a128, !b256, i1) -> ()
  return
}

// tcgen05.mma.ws.sp: A (bf16) in TMEM, metadata after b-desc, collector ::b1::fill and a
// zero-column mask with the non-zero-mask bit clear (example 1 of Table 45: all columns
// used; skip span 4 and use span 3 in bits 40-55): 0x0003040000000000 = 848822976643072.
// Table 42, sparse M = 64 N = 128: sparsity 1 << 2, F32 1 << 4, BF16 1 << 7 and 1 << 10,
// N >> 3 = 16 << 17, M >> 4 = 4 << 24: 0x04200494 = 69207188.
// CHECK-LABEL: .entry ws_sparse(
// CHECK-DAG: mov.b32 [[IDESC:%r[0-9]+]], 69207188;
// CHECK-DAG: mov.b64 [[MASK:%rd[0-9]+]], 848822976643072;
// CHECK: tcgen05.mma.ws.sp.cta_group::1.kind::f16.collector::b1::fill [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, [{{%r[0-9]+}}], [[IDESC]], {{%p[0-9]+}}, [[MASK]];
func.func @ws_sparse() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !atsp
  %b = "tcgen05.smem_buffer"() : () -> !bsp
  %d = "tcgen05.tmem_buffer"() : () -> !accsp
  %m = "tcgen05.tmem_buffer"() : () -> !meta
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "f16", ws = true, sparse = true, collector_b = "b1", collector_b_op = "fill", zero_column_mask = 848822976643072 : i64} : (!accsp, !atsp, !bsp, i1, !meta) -> ()
  return
}
