// tcgen05.mma.kind::i8 (9.7.16.10.9.1, syntax form 5). "Qualifier .kind::i8 is supported
// on following architectures: sm_100a, sm_101a (Renamed to sm_110a ...), sm_110a", so
// this file is assembled for those two; tcgen05-verify rejects it on sm_100f and sm_103a
// (lit_tests/tcgen05-verify/forms-targets.mlir).
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.100a.ptx
// RUN: FileCheck %s --input-file %t.100a.ptx
// RUN: %ptxas -arch=sm_100a %t.100a.ptx -o %t.100a.cubin
// RUN: tcgen05-lower %s --arch sm_110a -o %t.110a.ptx
// RUN: FileCheck %s --input-file %t.110a.ptx
// RUN: %ptxas -arch=sm_110a %t.110a.ptx -o %t.110a.cubin

!acc = !tcgen05.tmem<[128, 64], i32>
!a8 = !tcgen05.smem<[128, 64], i8, "K", "64B">
!b8 = !tcgen05.smem<[64, 64], ui8, "MN", "64B">

// Table 42, kind::i8, s8 x u8 -> s32, saturate, B MN-major (transposed; an 8-bit
// transposed B needs 16 <= N <= 256 in steps of 16 with cta_group::1, Table 50):
// saturate 1 << 3, dtype S32 = 2 << 4, atype signed = 1 << 7, btype unsigned = 0,
// transpose B 1 << 16, N >> 3 = 8 << 17, M >> 4 = 8 << 24: 0x081100A8 = 135332008.
// CHECK-LABEL: .entry kind_i8(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 135332008;
// CHECK: tcgen05.mma.cta_group::1.kind::i8 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
func.func @kind_i8() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a8
  %b = "tcgen05.smem_buffer"() : () -> !b8
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "i8", saturate = true, k_offset = 32 : i64} : (!acc, !a8, !b8, i1) -> ()
  return
}

// kind::i8 in the other instruction forms: .sp (selector must be 0 for kind::i8,
// 9.7.16.10.8.4.6), .ws with a collector buffer, and .ws.sp.
// CHECK-LABEL: .entry i8_forms(
// CHECK: tcgen05.mma.sp.cta_group::1.kind::i8 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [{{%r[0-9]+}}], {{%r[0-9]+}}, {{%p[0-9]+}};
// CHECK: tcgen05.mma.ws.cta_group::1.kind::i8.collector::b3::fill
// CHECK: tcgen05.mma.ws.cta_group::1.kind::i8.collector::b3::lastuse [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
// CHECK: tcgen05.mma.ws.sp.cta_group::1.kind::i8 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [{{%r[0-9]+}}], {{%r[0-9]+}}, {{%p[0-9]+}};
!accws = !tcgen05.tmem<[64, 64], i32>
!aws = !tcgen05.smem<[64, 128], i8, "K", "128B">
!bws = !tcgen05.smem<[64, 128], i8, "K", "128B">
!awsp = !tcgen05.smem<[64, 128], i8, "K", "64B">
!meta = !tcgen05.tmem<[128, 2], i32>
!meta64 = !tcgen05.tmem<[64, 2], i32>
!asp = !tcgen05.smem<[128, 128], i8, "K", "64B">
!bsp = !tcgen05.smem<[64, 128], i8, "K", "128B">
func.func @i8_forms() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !asp
  %b = "tcgen05.smem_buffer"() : () -> !bsp
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %m = "tcgen05.tmem_buffer"() : () -> !meta
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "i8", sparse = true, k_offset = 64 : i64} : (!acc, !asp, !bsp, i1, !meta) -> ()
  %aw = "tcgen05.smem_buffer"() : () -> !aws
  %bw = "tcgen05.smem_buffer"() : () -> !bws
  %dw = "tcgen05.tmem_buffer"() : () -> !accws
  %mw = "tcgen05.tmem_buffer"() : () -> !meta64
  "tcgen05.mma"(%dw, %aw, %bw, %p) {kind = "i8", ws = true, collector_b = "b3", collector_b_op = "fill"} : (!accws, !aws, !bws, i1) -> ()
  "tcgen05.mma"(%dw, %aw, %bw, %p) {kind = "i8", ws = true, collector_b = "b3", collector_b_op = "lastuse"} : (!accws, !aws, !bws, i1) -> ()
  %asp = "tcgen05.smem_buffer"() : () -> !awsp
  "tcgen05.mma"(%dw, %asp, %bw, %p, %mw) {kind = "i8", ws = true, sparse = true} : (!accws, !awsp, !bws, i1, !meta64) -> ()
  return
}
