// scale-input-d, the immediate after enable-input-d: D = A*B + D * 2^-scale-input-d, for
// kind::f16 and kind::tf32 only, in [0, 15] (9.7.16.10.9.1). "Argument scale-input-d
// requires sm_100a and is supported on sm_100f or higher in the same family from PTX ISA
// version 8.8": sm_100a, sm_100f and sm_103a here; tcgen05-verify rejects it on sm_110a
// (lit_tests/tcgen05-verify/forms-targets.mlir).
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

!acc = !tcgen05.tmem<[128, 64], f32>
!a16 = !tcgen05.smem<[128, 64], f16, "K", "128B">
!b16 = !tcgen05.smem<[64, 64], f16, "K", "128B">
!at32 = !tcgen05.tmem<[128, 32], tf32>
!b32 = !tcgen05.smem<[64, 32], tf32, "K", "128B">
!asp = !tcgen05.smem<[128, 64], f16, "K", "64B">
!meta = !tcgen05.tmem<[128, 2], i32>

// CHECK-LABEL: .entry scale_input_d(
// CHECK: tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}}, 0;
// CHECK: tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}},
// CHECK-SAME: {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, {{%p[0-9]+}}, 15;
// CHECK: tcgen05.mma.cta_group::1.kind::tf32.ashift [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}}, 7;
// CHECK: tcgen05.mma.sp.cta_group::1.kind::f16.collector::a::fill [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [{{%r[0-9]+}}], {{%r[0-9]+}}, {{%p[0-9]+}}, 4;
func.func @scale_input_d() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a16
  %b = "tcgen05.smem_buffer"() : () -> !b16
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", scale_input_d = 0 : i64} : (!acc, !a16, !b16, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", k_offset = 16 : i64, scale_input_d = 15 : i64, disable_output_lane = array<i32: -1, 0, 0, 0>} : (!acc, !a16, !b16, i1) -> ()
  %at = "tcgen05.tmem_buffer"() : () -> !at32
  %bt = "tcgen05.smem_buffer"() : () -> !b32
  "tcgen05.mma"(%d, %at, %bt, %p) {kind = "tf32", ashift = true, scale_input_d = 7 : i64} : (!acc, !at32, !b32, i1) -> ()
  %m = "tcgen05.tmem_buffer"() : () -> !meta
  %as = "tcgen05.smem_buffer"() : () -> !asp
  "tcgen05.mma"(%d, %as, %b, %p, %m) {kind = "f16", sparse = true, collector_a = "fill", scale_input_d = 4 : i64} : (!acc, !asp, !b16, i1, !meta) -> ()
  return
}
