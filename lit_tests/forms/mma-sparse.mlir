// tcgen05.mma.sp (9.7.16.10.9.2): A is structured-sparse and stored compressed (M x K/2),
// the sparsity metadata is a TMEM operand ([sp-meta-tmem], after b-desc), and the
// instruction descriptor carries the sparsity bit and selector. Kinds allowed with .sp
// on every test target: f16, tf32, f8f6f4 and mxf8f6f4 (mxf4 / mxf4nvf4 with .sp are not
// on family targets: mma-sparse-mxf4.mlir).
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
!acc64 = !tcgen05.tmem<[64, 64], f32>
!acc128 = !tcgen05.tmem<[128, 128], f32>
!a16 = !tcgen05.smem<[128, 64], bf16, "K", "none">
!b16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!a32 = !tcgen05.smem<[64, 32], tf32, "K", "64B">
!b32 = !tcgen05.smem<[64, 32], tf32, "K", "128B">
!at8 = !tcgen05.tmem<[128, 128], f8E4M3FN>
!b8 = !tcgen05.smem<[64, 128], f8E5M2, "K", "128B">
!a5 = !tcgen05.smem<[128, 256], f8E5M2, "K", "128B">
!b5 = !tcgen05.smem<[128, 256], f8E5M2, "K", "128B">
!meta = !tcgen05.tmem<[128, 2], i32>
!meta64 = !tcgen05.tmem<[64, 2], i32>
!s1 = !tcgen05.tmem<[128, 1], f8E8M0FNU>

// Table 42, kind::f16 sparse (K = 32), sparsity selector 1: selector 1 << 0, sparsity
// 1 << 2, dtype F32 1 << 4, BF16 1 << 7 and 1 << 10, N 8 << 17, M 8 << 24:
// 0x08100495 = 135267477.
// CHECK-LABEL: .entry sparse_f16(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 135267477;
// CHECK: tcgen05.mma.sp.cta_group::1.kind::f16 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [{{%r[0-9]+}}], [[IDESC]], {{%p[0-9]+}};
func.func @sparse_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a16
  %b = "tcgen05.smem_buffer"() : () -> !b16
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %m = "tcgen05.tmem_buffer"() : () -> !meta
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "f16", sparse = true, sparsity_selector = 1 : i64, k_offset = 32 : i64} : (!acc, !a16, !b16, i1, !meta) -> ()
  return
}

// Table 42, kind::tf32 sparse (K = 16), M = 64: sparsity 1 << 2, F32 1 << 4, TF32 2 << 7
// and 2 << 10, N 8 << 17, M >> 4 = 4 << 24: 0x04100914 = 68159764. With
// collector::a::fill and the 4-word disable-output-lane vector.
// CHECK-LABEL: .entry sparse_tf32(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 68159764;
// CHECK: tcgen05.mma.sp.cta_group::1.kind::tf32.collector::a::fill [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [{{%r[0-9]+}}], [[IDESC]],
// CHECK-SAME: {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, {{%p[0-9]+}};
func.func @sparse_tf32() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a32
  %b = "tcgen05.smem_buffer"() : () -> !b32
  %d = "tcgen05.tmem_buffer"() : () -> !acc64
  %m = "tcgen05.tmem_buffer"() : () -> !meta64
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "tf32", sparse = true, k_offset = 16 : i64, collector_a = "fill", disable_output_lane = array<i32: 0, 255, 0, 0>} : (!acc64, !a32, !b32, i1, !meta64) -> ()
  return
}

// kind::f8f6f4 sparse with A in TMEM and .ashift (selector must be 0 for f8f6f4,
// 9.7.16.10.8.4.6).
// CHECK-LABEL: .entry sparse_f8f6f4_a_tmem(
// CHECK: tcgen05.mma.sp.cta_group::1.kind::f8f6f4.ashift [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, [{{%r[0-9]+}}], {{%r[0-9]+}}, {{%p[0-9]+}};
func.func @sparse_f8f6f4_a_tmem() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !at8
  %b = "tcgen05.smem_buffer"() : () -> !b8
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %m = "tcgen05.tmem_buffer"() : () -> !meta
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "f8f6f4", sparse = true, ashift = true, k_offset = 64 : i64} : (!acc, !at8, !b8, i1, !meta) -> ()
  return
}

// Table 43, kind::mxf8f6f4 sparse (K = 64), e5m2 x e5m2, UE8M0, N = 128: E5M2 1 << 7 and
// 1 << 10, sparsity 1 << 2, N >> 3 = 16 << 17, UE8M0 1 << 23, M >> 7 = 1 << 27, and the
// scale-factor IDs of K block 1 (k_offset 64 = 1 x K, one factor per MMA with 1X, so byte
// 1; 9.7.16.10.7.2): scale A ID 1 << 29, scale B ID 1 << 4: 0x28A00494 = 681575572. The
// metadata follows b-desc, the scale operands follow idesc. The metadata buffer is i32
// like every sparse MMA's, the scale buffers keep their UE8M0 type.
// CHECK-LABEL: .entry sparse_mxf8f6f4(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 681575572;
// SM100A: tcgen05.mma.sp.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// FAMILY: tcgen05.mma.sp.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK-SAME: [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [{{%r[0-9]+}}], [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @sparse_mxf8f6f4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a5
  %b = "tcgen05.smem_buffer"() : () -> !b5
  %d = "tcgen05.tmem_buffer"() : () -> !acc128
  %sa = "tcgen05.tmem_buffer"() : () -> !s1
  %sb = "tcgen05.tmem_buffer"() : () -> !s1
  %m = "tcgen05.tmem_buffer"() : () -> !meta
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb, %m) {kind = "mxf8f6f4", sparse = true, scale_vec = "1X", k_offset = 64 : i64} : (!acc128, !a5, !b5, i1, !s1, !s1, !meta) -> ()
  return
}
