// K = 96 (Table 39: dense kind::mxf4 / kind::mxf4nvf4, cta_group::2, "256xNxK1, K1 =
// 96"): "K = 96 is only supported for target architecture sm_103a" (9.7.16.2.1.1); the
// verifier rejects it elsewhere (lit_tests/tcgen05-verify/forms-targets.mlir). K = 96 is
// bit 31 of the instruction descriptor (Table 44); the only .scale_vectorsize spellings
// are .block32 (M x 3 scale factors) and .block16 (M x 6), Table 54.
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103a.ptx
// RUN: FileCheck %s --input-file %t.103a.ptx
// RUN: %ptxas -arch=sm_103a %t.103a.ptx -o %t.103a.cubin

!acc = !tcgen05.tmem<[256, 128], f32>
!a = !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
!b = !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
!s = !tcgen05.tmem<[256, 3], f8E8M0FNU>

// Table 44: E2M1 1 << 7 and 1 << 10, N >> 3 = 16 << 17, UE8M0 1 << 23, M >> 7 = 2 << 27,
// scale A ID 1 << 29 (K = 96 takes IDs 0-3), K = 96 1 << 31: 0xB0A00480, printed signed
// as -1331690368. The K block at k_offset 96 is bytes [48, 96) of each 128-byte row.
// CHECK: .target sm_103a
// CHECK-LABEL: .entry k96(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], -1331690368;
// CHECK: tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block32 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @k96() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s
  %sb = "tcgen05.tmem_buffer"() : () -> !s
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4nvf4", k = 96 : i64, k_offset = 96 : i64, scale_vec = "block32", scale_a_id = 1 : i64} : (!acc, !a, !b, i1, !s, !s) -> ()
  return
}
