// Every tcgen05.mma kind allowed on all four test targets, one kernel per kind, A and B
// in shared memory (9.7.16.10.9.1). The PTX line is checked, the instruction descriptor
// is checked against a value derived by hand from Tables 42-44 below, and ptxas assembles
// the module for each target. kind::i8 (not on sm_100f / sm_103a) is in mma-i8.mlir.
//
// Block-scale qualifiers: the IR names .scale_vec::1X, .block32 and .scale_vec::4X. The
// .scale_vec::NX spellings exist on sm_100a only (9.7.16.10.9.1 Target ISA Notes), so
// elsewhere the lowering prints their aliases (".block32 is alias for .scale_vec::1X"
// for kind::mxf8f6f4, ".block16 is alias for .scale_vec::4X" for kind::mxf4nvf4).
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.100a.ptx
// RUN: FileCheck %s --input-file %t.100a.ptx --check-prefixes=CHECK,SM100A
// RUN: %ptxas -arch=sm_100a %t.100a.ptx -o %t.100a.cubin
// RUN: tcgen05-lower %s --arch sm_100f -o %t.100f.ptx
// RUN: FileCheck %s --input-file %t.100f.ptx --check-prefixes=CHECK,FAMILY
// RUN: %ptxas -arch=sm_100f %t.100f.ptx -o %t.100f.cubin
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103a.ptx
// RUN: FileCheck %s --input-file %t.103a.ptx --check-prefixes=CHECK,FAMILY
// RUN: %ptxas -arch=sm_103a %t.103a.ptx -o %t.103a.cubin
// RUN: tcgen05-lower %s --arch sm_110a -o %t.110a.ptx
// RUN: FileCheck %s --input-file %t.110a.ptx --check-prefixes=CHECK,FAMILY
// RUN: %ptxas -arch=sm_110a %t.110a.ptx -o %t.110a.cubin

!acc = !tcgen05.tmem<[128, 64], f32>
!acc16 = !tcgen05.tmem<[128, 64], f16>
!a16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!b16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!a32 = !tcgen05.smem<[128, 32], tf32, "MN", "128B_base32B">
!b32 = !tcgen05.smem<[64, 32], tf32, "MN", "128B_base32B">
!a8 = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!b6 = !tcgen05.smem<[64, 128], f4E2M1FN, "K", "128B">
!af4 = !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
!bf4 = !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
!s1 = !tcgen05.tmem<[128, 1], f8E8M0FNU>
!s2 = !tcgen05.tmem<[128, 2], f8E8M0FNU>
!s4 = !tcgen05.tmem<[128, 4], f8E4M3>

// Table 42, kind::f16, bf16 x bf16 -> f32, M = 128, N = 64, negate B:
// dtype F32 = 1 << 4, atype BF16 = 1 << 7, btype BF16 = 1 << 10, negate B = 1 << 14,
// N >> 3 = 8 << 17, M >> 4 = 8 << 24: 0x08104490 = 135283856.
// CHECK-LABEL: .entry kind_f16(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 135283856;
// CHECK: setp.ne.b32 tcgen05_guard, {{%r[0-9]+}}, 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
func.func @kind_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a16
  %b = "tcgen05.smem_buffer"() : () -> !b16
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", k_offset = 48 : i64, negate_b = true} : (!acc, !a16, !b16, i1) -> ()
  return
}

// Table 42, kind::tf32, both operands MN-major (transposed; tf32 needs 128B swizzle with
// 32B atomicity, Table 52): dtype 1 << 4, atype/btype TF32 = 2 << 7 and 2 << 10,
// transpose A 1 << 15, transpose B 1 << 16, N 8 << 17, M 8 << 24: 0x08118910 = 135366928.
// CHECK-LABEL: .entry kind_tf32(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 135366928;
// CHECK: tcgen05.mma.cta_group::1.kind::tf32 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
func.func @kind_tf32() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a32
  %b = "tcgen05.smem_buffer"() : () -> !b32
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "tf32", k_offset = 8 : i64} : (!acc, !a32, !b32, i1) -> ()
  return
}

// Table 42, kind::f8f6f4, e4m3 x e2m1 -> f16: dtype F16 = 0, atype E4M3 = 0,
// btype E2M1 = 5 << 10, N 8 << 17, M 8 << 24: 0x08101400 = 135271424.
// CHECK-LABEL: .entry kind_f8f6f4(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 135271424;
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
func.func @kind_f8f6f4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a8
  %b = "tcgen05.smem_buffer"() : () -> !b6
  %d = "tcgen05.tmem_buffer"() : () -> !acc16
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f8f6f4", k_offset = 96 : i64} : (!acc16, !a8, !b6, i1) -> ()
  return
}

// Table 43, kind::mxf8f6f4, e4m3 x e2m1, scale UE8M0: scale B ID 1 << 4, btype E2M1
// 5 << 10, N 8 << 17, scale type UE8M0 1 << 23, M >> 7 = 1 << 27, scale A ID 3 << 29:
// 0x68901410 = 1754272784.
// CHECK-LABEL: .entry kind_mxf8f6f4(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 1754272784;
// SM100A: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// FAMILY: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK-SAME: [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @kind_mxf8f6f4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a8
  %b = "tcgen05.smem_buffer"() : () -> !b6
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s1
  %sb = "tcgen05.tmem_buffer"() : () -> !s1
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf8f6f4", scale_vec = "1X", scale_a_id = 3 : i64, scale_b_id = 1 : i64} : (!acc, !a8, !b6, i1, !s1, !s1) -> ()
  return
}

// Table 44, kind::mxf4: atype/btype E2M1 = 1 << 7 and 1 << 10, N 8 << 17, UE8M0 1 << 23,
// M 1 << 27, scale A ID 2 << 29 as written, scale B ID 2 << 4 from k_offset (K block 1 of
// K = 64 with two factors per MMA starts at half-word 2, 9.7.16.10.7.3): 0x489004A0 =
// 1217397920. .block32 is printed as written on every target (it needs PTX ISA 8.8).
// CHECK-LABEL: .entry kind_mxf4(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 1217397920;
// CHECK: tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32
// CHECK-SAME: [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @kind_mxf4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !af4
  %b = "tcgen05.smem_buffer"() : () -> !bf4
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s2
  %sb = "tcgen05.tmem_buffer"() : () -> !s2
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4", scale_vec = "block32", k_offset = 64 : i64, scale_a_id = 2 : i64} : (!acc, !af4, !bf4, i1, !s2, !s2) -> ()
  return
}

// Table 44, kind::mxf4nvf4 with UE4M3 scales (scale type bit 23 = 0; Table 55 then
// requires .scale_vec::4X / .block16), negate A 1 << 13: 0x80 + 0x400 + 0x2000 + N 8 << 17
// + M 1 << 27 = 0x08102480 = 135275648.
// CHECK-LABEL: .entry kind_mxf4nvf4(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 135275648;
// SM100A: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X
// FAMILY: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16
// CHECK-SAME: [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @kind_mxf4nvf4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !af4
  %b = "tcgen05.smem_buffer"() : () -> !bf4
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s4
  %sb = "tcgen05.tmem_buffer"() : () -> !s4
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4nvf4", scale_vec = "4X", negate_a = true} : (!acc, !af4, !bf4, i1, !s4, !s4) -> ()
  return
}
