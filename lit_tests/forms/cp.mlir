// tcgen05.cp (9.7.16.9.2): every shape, the .multicast each of .64x128b and .32x128b
// requires, and decompression to .b8x16 from .b6x16_p32 and .b4x16_p64, issued by one
// thread with the source tile's matrix descriptor. (cta_group::2: cta-group-2.mlir.)
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

!t = !tcgen05.tmem<[128, 64], f32>
!s256 = !tcgen05.smem<[128, 32], i8, "K", "none">
!s4 = !tcgen05.smem<[4, 32], i8, "K", "none">
!s128 = !tcgen05.smem<[128, 16], f8E4M3FN, "K", "none">
!s6 = !tcgen05.smem<[128, 16], f6E2M3FN, "K", "none">
!s64 = !tcgen05.smem<[64, 4], f32, "K", "none">
!s32 = !tcgen05.smem<[32, 16], f4E2M1FN, "K", "none">

// The source tile has as many rows as the shape has lanes and as many bits per row; 6-
// and 4-bit elements sit in 8-bit containers (16 elements and their padding per 16
// bytes, 9.7.16.9.1).
// CHECK-LABEL: .entry cp_forms(
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER:%r[0-9]+]], 0; @tcgen05_guard tcgen05.cp.cta_group::1.128x256b [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.cp.cta_group::1.4x256b [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.cp.cta_group::1.128x128b [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.cp.cta_group::1.128x128b.b8x16.b6x16_p32 [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.cp.cta_group::1.32x128b.warpx4 [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64 [{{%r[0-9]+}}], {{%rd[0-9]+}};
func.func @cp_forms() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !t
  %a = "tcgen05.smem_buffer"() : () -> !s256
  %b = "tcgen05.smem_buffer"() : () -> !s4
  %c = "tcgen05.smem_buffer"() : () -> !s128
  %e = "tcgen05.smem_buffer"() : () -> !s6
  %f = "tcgen05.smem_buffer"() : () -> !s64
  %g = "tcgen05.smem_buffer"() : () -> !s32
  "tcgen05.cp"(%t, %a) {shape = "128x256b"} : (!t, !s256) -> ()
  "tcgen05.cp"(%t, %b) {shape = "4x256b", column = 8 : i64} : (!t, !s4) -> ()
  "tcgen05.cp"(%t, %c) {shape = "128x128b", column = 16 : i64} : (!t, !s128) -> ()
  "tcgen05.cp"(%t, %e) {shape = "128x128b", decompress = "b6x16_p32", column = 20 : i64} : (!t, !s6) -> ()
  "tcgen05.cp"(%t, %f) {shape = "64x128b", multicast = "warpx2::02_13", column = 24 : i64} : (!t, !s64) -> ()
  "tcgen05.cp"(%t, %f) {shape = "64x128b", multicast = "warpx2::01_23", column = 28 : i64} : (!t, !s64) -> ()
  "tcgen05.cp"(%t, %g) {shape = "32x128b", multicast = "warpx4", column = 32 : i64} : (!t, !s32) -> ()
  "tcgen05.cp"(%t, %g) {shape = "32x128b", multicast = "warpx4", decompress = "b4x16_p64", column = 36 : i64} : (!t, !s32) -> ()
  return
}
