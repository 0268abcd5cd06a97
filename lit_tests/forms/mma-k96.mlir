// K = 96 (Table 39: dense kind::mxf4 / kind::mxf4nvf4, cta_group::2, "256xNxK1, K1 =
// 96"): "K = 96 is only supported for target architecture sm_103a" (9.7.16.2.1.1); the
// verifier rejects it elsewhere (lit_tests/tcgen05-verify/forms-targets.mlir). K = 96 is
// bit 31 of the instruction descriptor (Table 44); the only .scale_vectorsize spellings
// are .block32 (M x 3 scale factors) and .block16 (M x 6), Table 54.
//
// Both are rejected until their scale-factor layouts are modelled: the ISA gives where
// the 3 (or 6) factors of a row sit for each scale-factor ID only as figures
// (9.7.16.10.7.2.4/.5, 9.7.16.10.7.3.4/.5), so neither the TMEM footprint of the scale
// buffers nor the IDs of later K blocks can be derived from its text.
//
// RUN: tcgen05-opt %s -p tcgen05-verify --verify-diagnostics

!acc = !tcgen05.tmem<[256, 128], f32>
!a = !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
!b = !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
!s = !tcgen05.tmem<[256, 3], f8E8M0FNU>

func.func @k96() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s
  %sb = "tcgen05.tmem_buffer"() : () -> !s
  // expected-error @+1 {{.block32 with K = 96 (3 scale factors per row) is not supported yet: its scale-factor layout (9.7.16.10.7.2.4, 9.7.16.10.7.3.4) is given only as figures}}
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4nvf4", k = 96 : i64, k_offset = 96 : i64, scale_vec = "block32", scale_a_id = 1 : i64} : (!acc, !a, !b, i1, !s, !s) -> ()
  return
}
