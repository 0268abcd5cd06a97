// Block-scaled MMAs without scale_vec (9.7.16.10.9.1): "For .kind::mxf4 when the qualifier
// .scale_vectorsize is not specified, then it defaults to .block32"; kind::mxf8f6f4 has one
// size (scale_vec::1X, alias .block32, Table 54) and is read the same way. Where the
// target has no .scale_vec::NX (sm_103a) the qualifier is left out of the PTX, as upstream
// MLIR's nvvm.tcgen05.mma.block_scale prints its default (tests/test_differential_nvvm.py
// compares the lines); on sm_100a it is spelled as the .scale_vec::NX alias, which needs
// PTX ISA 8.6 where ptxas takes a missing one only from 8.8, as .block32
// (tests/test_block_scale_default_version.py). The scale-factor IDs and footprints are
// those of .block32. kind::mxf4nvf4 has no default (mma-rules.mlir).
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.100a.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM100A --input-file %t.100a.ptx
// RUN: %ptxas -arch=sm_100a %t.100a.ptx -o %t.100a.cubin
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103a.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM103A --input-file %t.103a.ptx
// RUN: %ptxas -arch=sm_103a %t.103a.ptx -o %t.103a.cubin

!acc = !tcgen05.tmem<[128, 64], f32>
!a8 = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!b6 = !tcgen05.smem<[64, 128], f4E2M1FN, "K", "128B">
!af4 = !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
!bf4 = !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
!s1 = !tcgen05.tmem<[128, 1], f8E8M0FNU>
!s2 = !tcgen05.tmem<[128, 2], f8E8M0FNU>

// Table 44, kind::mxf4: atype/btype E2M1 1 << 7 and 1 << 10, N 8 << 17, UE8M0 1 << 23,
// M >> 7 = 1 << 27, scale IDs 0: 0x08900480 = 143656064.
// SM100A: .version 8.6
// SM103A: .version 8.8
// CHECK-LABEL: .entry mxf4_default(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 143656064;
// SM100A: tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
// SM103A: tcgen05.mma.cta_group::1.kind::mxf4.block_scale [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @mxf4_default() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !af4
  %b = "tcgen05.smem_buffer"() : () -> !bf4
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s2
  %sb = "tcgen05.tmem_buffer"() : () -> !s2
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4"} : (!acc, !af4, !bf4, i1, !s2, !s2) -> ()
  return
}

// The second K block of 64-wide mxf4 tiles with the default size (.block32 = 2X: two
// factors per row per MMA) uses the factors from half-word 2 (9.7.16.10.7.3): scale IDs
// 2 << 29 and 2 << 4 on top of the above: 0x489004A0 = 1217397920, as for an explicit
// .block32 (mma-kinds.mlir).
// CHECK-LABEL: .entry mxf4_default_second_block(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 1217397920;
// SM100A: tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [
// SM103A: tcgen05.mma.cta_group::1.kind::mxf4.block_scale [
func.func @mxf4_default_second_block() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !af4
  %b = "tcgen05.smem_buffer"() : () -> !bf4
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s2
  %sb = "tcgen05.tmem_buffer"() : () -> !s2
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4", k_offset = 64 : i64} : (!acc, !af4, !bf4, i1, !s2, !s2) -> ()
  return
}

// Table 43, kind::mxf8f6f4, e4m3 x e2m1, UE8M0: btype E2M1 5 << 10, N 8 << 17, scale
// type 1 << 23, M >> 7 = 1 << 27: 0x08901400 = 143660032.
// CHECK-LABEL: .entry mxf8f6f4_default(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 143660032;
// SM100A: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
// SM103A: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @mxf8f6f4_default() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a8
  %b = "tcgen05.smem_buffer"() : () -> !b6
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s1
  %sb = "tcgen05.tmem_buffer"() : () -> !s1
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf8f6f4"} : (!acc, !a8, !b6, i1, !s1, !s1) -> ()
  return
}
