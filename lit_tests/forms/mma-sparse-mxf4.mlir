// tcgen05.mma.sp with kind::mxf4 and kind::mxf4nvf4 (9.7.16.10.9.2): "Qualifiers
// .kind::mxf4nvf4 and .kind::mxf4 are supported on following architectures: sm_100a,
// sm_101a (Renamed to sm_110a ...), sm_103a, sm_110a" -- not on the family targets, where
// tcgen05-verify rejects them (lit_tests/tcgen05-verify/forms-targets.mlir).
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.100a.ptx
// RUN: FileCheck %s --input-file %t.100a.ptx --check-prefixes=CHECK,SM100A
// RUN: %ptxas -arch=sm_100a %t.100a.ptx -o %t.100a.cubin
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103a.ptx
// RUN: FileCheck %s --input-file %t.103a.ptx --check-prefixes=CHECK,FAMILY
// RUN: %ptxas -arch=sm_103a %t.103a.ptx -o %t.103a.cubin
// RUN: tcgen05-lower %s --arch sm_110a -o %t.110a.ptx
// RUN: FileCheck %s --input-file %t.110a.ptx --check-prefixes=CHECK,FAMILY
// RUN: %ptxas -arch=sm_110a %t.110a.ptx -o %t.110a.cubin

!acc = !tcgen05.tmem<[128, 64], f32>
!a = !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">
!b = !tcgen05.smem<[64, 512], f4E2M1FN, "K", "128B">
!s8 = !tcgen05.tmem<[128, 2], f8E8M0FNU>
!s4 = !tcgen05.tmem<[128, 4], f8E4M3>
!meta = !tcgen05.tmem<[128, 2], i32>

// Table 44, kind::mxf4 sparse (K = 128): E2M1 1 << 7 and 1 << 10, sparsity 1 << 2,
// N 8 << 17, UE8M0 1 << 23, M >> 7 = 1 << 27, and K block 1 (k_offset 128 = 1 x K) with
// two factors per MMA (2X) starts at half-word 2: scale A ID 2 << 29, scale B ID 2 << 4
// (9.7.16.10.7.2): 0x489004A4 = 1217397924. .scale_vec::2X is sm_100a's spelling; the
// others print its alias .block32.
// CHECK-LABEL: .entry sparse_mxf4(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 1217397924;
// SM100A: tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale.scale_vec::2X
// FAMILY: tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale.block32
// CHECK-SAME: [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [{{%r[0-9]+}}], [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @sparse_mxf4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s8
  %sb = "tcgen05.tmem_buffer"() : () -> !s8
  %m = "tcgen05.tmem_buffer"() : () -> !meta
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb, %m) {kind = "mxf4", sparse = true, k_offset = 128 : i64, scale_vec = "2X"} : (!acc, !a, !b, i1, !s8, !s8, !meta) -> ()
  return
}

// Table 44, kind::mxf4nvf4 sparse with UE4M3 scales (bit 23 = 0) and .block16, spelled as
// written on every target: 0x08100484 = 135267460.
// CHECK-LABEL: .entry sparse_mxf4nvf4(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 135267460;
// CHECK: tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.block_scale.block16.collector::a::fill
// CHECK: tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.block_scale.block16.collector::a::lastuse
// CHECK-SAME: [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [{{%r[0-9]+}}], [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @sparse_mxf4nvf4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s4
  %sb = "tcgen05.tmem_buffer"() : () -> !s4
  %m = "tcgen05.tmem_buffer"() : () -> !meta
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb, %m) {kind = "mxf4nvf4", sparse = true, scale_vec = "block16", collector_a = "fill"} : (!acc, !a, !b, i1, !s4, !s4, !meta) -> ()
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb, %m) {kind = "mxf4nvf4", sparse = true, scale_vec = "block16", collector_a = "lastuse"} : (!acc, !a, !b, i1, !s4, !s4, !meta) -> ()
  return
}
