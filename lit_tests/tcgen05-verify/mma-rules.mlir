// tcgen05-verify's rules for tcgen05.mma beyond the basic Table 39 cases of invalid.mlir:
// the .ws, sparse and K = 96 lines of Table 39, the trailing operands, the operand tiles
// (Tables 49, 50, 52 and the canonical layouts of 9.7.16.3.3), sparsity, block scaling
// (Tables 39, 43, 44, 54, 55), .ws (Tables 42 and 45) and the qualifiers of 9.7.16.10.9.1.
// Every expected text names the rule and the bad value, as the cited ISA text says.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// ------------------------------------------------------------------ Table 39: .ws, sparsity, K = 96

// Table 39: ".ws | 2 | Either | Invalid".
func.func @ws_cta2() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{.ws is not supported with cta_group::2 (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 39: every .ws line of kind::mxf8f6f4 is "Invalid".
func.func @ws_mxf8f6f4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 1], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 1], f8E8M0FNU>
  // expected-error @+1 {{kind::mxf8f6f4 does not support .ws (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf8f6f4", ws = true, scale_vec = "1X"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[64, 1], f8E8M0FNU>, !tcgen05.tmem<[64, 1], f8E8M0FNU>) -> ()
  return
}

// -----

// Table 39, .ws dense: N = {64, 128, 256}.
func.func @ws_n32() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 32], f32>
  // expected-error @+1 {{N = 32 is not supported for kind::f16, .ws, cta_group::1 (supported: 64, 128, 256) (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true} : (!tcgen05.tmem<[64, 32], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 39, .ws sparse: N = {64, 128}.
func.func @ws_sparse_n256() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], tf32, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 32], tf32, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{N = 256 is not supported for kind::tf32, .ws, sparse, cta_group::1 (supported: 64, 128) (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0) {kind = "tf32", ws = true, sparse = true} : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 32], tf32, "K", "64B">, !tcgen05.smem<[256, 32], tf32, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// Table 39: kind::mxf4 with cta_group::1 is 128xNxK only.
func.func @mxf4_m64() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 2], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 2], f8E8M0FNU>
  // expected-error @+1 {{M = 64 is not supported for kind::mxf4, cta_group::1 (supported: 128) (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", scale_vec = "2X"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[64, 2], f8E8M0FNU>, !tcgen05.tmem<[64, 2], f8E8M0FNU>) -> ()
  return
}

// -----

// Table 39: sparse kind::mxf8f6f4 with cta_group::2 is 256xNxK only.
func.func @mxf8f6f4_sparse_cta2_m128() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 256], f8E4M3FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 1], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 1], f8E8M0FNU>
  %x2 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{M = 128 is not supported for kind::mxf8f6f4, sparse, cta_group::2 (supported: 256) (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1, %x2) {kind = "mxf8f6f4", sparse = true, scale_vec = "1X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[64, 256], f8E4M3FN, "K", "128B">, !tcgen05.smem<[32, 256], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 1], f8E8M0FNU>, !tcgen05.tmem<[128, 1], f8E8M0FNU>, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// Table 39: K1 = 96 comes with the shape 256xNxK1 (cta_group::2) only.
func.func @k96_m128() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 3], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 3], f8E8M0FNU>
  // expected-error @+1 {{K1 = 96 is only supported for dense kind::mxf4 and kind::mxf4nvf4 with cta_group::2 and M = 256 (got kind::mxf4, cta_group::2, M = 128) (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", k = 96 : i64, scale_vec = "block32"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[32, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 3], f8E8M0FNU>, !tcgen05.tmem<[128, 3], f8E8M0FNU>) -> ()
  return
}

// -----

// 9.7.16.2.2: K is implied by the kind and the sparsity; only K = 96 may be asked for.
func.func @k_not_implied() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{k = 32 is neither the K = 16 of kind::f16 nor K1 = 96 (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", k = 32 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 39 dtype column, sparse kind::i8: D is s32.
func.func @sparse_d_type() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], i8, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], i8, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{D type f32 is not allowed for kind::i8 (allowed: s32) (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0) {kind = "i8", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], i8, "K", "64B">, !tcgen05.smem<[64, 128], i8, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// ------------------------------------------------------------------ operand roles

// 9.7.16.10.7: block-scaled kinds take scale_A and scale_B (with or without scale_vec).
func.func @mxf4_without_scale_operands() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{a block-scaled MMA takes the scale_A and scale_B TMEM operands after enable_input_d}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "mxf4"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.9.1: "For .kind::mxf4nvf4, the qualifier .scale_vectorsize must be explicitly
// specified" (mxf4 defaults to .block32, and mxf8f6f4 has the one size 1X = .block32:
// mma-block-scale-default.mlir in forms/ compiles both).
func.func @mxf4nvf4_without_scale_vec() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f4E2M1FN, "K", "64B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %sa = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  %sb = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  // expected-error @+1 {{kind::mxf4nvf4 needs an explicit scale_vec (9.7.16.10.9.1: "For .kind::mxf4nvf4, the qualifier .scale_vectorsize must be explicitly specified"; mxf4 and mxf8f6f4 default to .block32)}}
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4nvf4"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, !tcgen05.smem<[64, 128], f4E2M1FN, "K", "64B">, i1, !tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.tmem<[128, 4], f8E4M3>) -> ()
  return
}

// -----

// 9.7.16.10.9.1: .block_scale exists for kind::mxf8f6f4, mxf4 and mxf4nvf4 only.
func.func @scale_vec_on_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 1], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 1], f8E8M0FNU>
  // expected-error @+1 {{scale_vec needs .block_scale, which kind::f16 does not take}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "f16", scale_vec = "1X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 1], f8E8M0FNU>, !tcgen05.tmem<[128, 1], f8E8M0FNU>) -> ()
  return
}

// -----

// 9.7.16.10.9.2: tcgen05.mma.sp reads the metadata from [sp-meta-tmem].
func.func @sparse_without_metadata() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{a sparse MMA (.sp) takes the sparsity metadata TMEM operand}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "64B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A TMEM operand after enable_input_d that no attribute asks for.
func.func @trailing_operand() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{1 trailing TMEM operand(s) that no attribute accounts for}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0) {kind = "f16"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// ------------------------------------------------------------------ operand tiles

// cta_group::2: each CTA of the pair holds M/2 rows of A (9.7.16.10).
func.func @cta2_a_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 64], f32>
  // expected-error @+1 {{A tile has 256 rows but the accumulator has M = 256 (each CTA of the pair holds M/2 = 128)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!tcgen05.tmem<[256, 64], f32>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// cta_group::2: each CTA of the pair holds N/2 rows of B.
func.func @cta2_b_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 64], f32>
  // expected-error @+1 {{B tile has 64 rows but the accumulator has N = 64 (each CTA of the pair holds N/2 = 32)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!tcgen05.tmem<[256, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A in TMEM holds the M rows of A, row-major (Table 51).
func.func @a_tmem_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], bf16>
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{A in tensor memory has shape [64, 64]; expected [128, K] (M = 128 rows, 9.7.16.10.5)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[64, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A in TMEM and the B tile cover the same K.
func.func @a_tmem_k() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], bf16>
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{A buffer has K = 32 but B tile has K = 64}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 32], bf16>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// 9.7.16.3.3: a K-major 128B-swizzled tile is made of rows of 128 bytes; 32 bf16 are 64.
func.func @kmajor_atom() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], bf16, "K", "64B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{A tile [128, 32] of bf16 is not a whole number of K-major "128B" atoms: 8 rows of 128 bytes (9.7.16.3.3)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], bf16, "K", "128B">, !tcgen05.smem<[64, 32], bf16, "K", "64B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.8: a sparse A is stored as M x K/2: 32 of its 64 bf16, 64 bytes, half a 128B atom row.
func.func @sparse_stored_atom() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{A tile [128, 64] of bf16 (stored as K/2 = 32) is not a whole number of K-major "128B" atoms}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0) {kind = "f16", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// Table 49: kind::mxf4 and kind::mxf4nvf4 do not support transpose (MN-major operands).
func.func @mxf4_transposed() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "MN", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  // expected-error @+1 {{B tile is MN-major (transposed), which kind::mxf4nvf4 does not support (Table 49)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4nvf4", scale_vec = "4X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "MN", "128B">, i1, !tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.tmem<[128, 4], f8E4M3>) -> ()
  return
}

// -----

// Table 52: only 8-, 16- and 32-bit types may be MN-major (transposed).
func.func @subbyte_mn_major() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f6E3M2FN, "MN", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{A tile: 6-bit e3m2 must be K-major (Table 52)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f8f6f4"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f6E3M2FN, "MN", "128B">, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 50: an 8-bit transposed B needs 16 <= N <= 256 in steps of 16 with cta_group::1.
func.func @n_8bit_transposed_b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[24, 128], f8E5M2, "MN", "none">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 24], f32>
  // expected-error @+1 {{N = 24 is not allowed for an 8-bit transposed (MN-major) B with cta_group::1: 16 <= N <= 256, step 16 (Table 50)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f8f6f4"} : (!tcgen05.tmem<[128, 24], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[24, 128], f8E5M2, "MN", "none">, i1) -> ()
  return
}

// -----

// Table 50: with cta_group::2, 32 <= N <= 256 in steps of 32.
func.func @n_8bit_transposed_b_cta2() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[24, 128], f8E4M3FN, "MN", "none">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 48], f32>
  // expected-error @+1 {{N = 48 is not allowed for an 8-bit transposed (MN-major) B with cta_group::2: 32 <= N <= 256, step 32 (Table 50)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f8f6f4"} : (!tcgen05.tmem<[256, 48], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[24, 128], f8E4M3FN, "MN", "none">, i1) -> ()
  return
}

// -----

// 9.7.16.3.3: an MN-major 128B atom spans 128 bytes of M; 32 rows of bf16 are 64 bytes.
func.func @mn_major_atom() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "MN", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  // expected-error @+1 {{B tile: tile_mn = 32 bf16 is not a whole number of 128-byte swizzle atoms (9.7.16.3.3)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[32, 64], bf16, "MN", "128B">, i1) -> ()
  return
}

// -----

// 9.7.16.3.1.2: the K = 96 block at k_offset 192 is bytes 96-143 of each row, across the 128-byte swizzle row.
func.func @k96_straddles_row() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 512], f4E2M1FN, "K", "none">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 3], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 3], f8E8M0FNU>
  // expected-error @+1 {{A tile: the K = 96 block at byte 96 of each row crosses the 128-byte swizzle row; that needs the leading-dimension absolute address mode (9.7.16.3.1.2), which is not supported yet}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", k = 96 : i64, k_offset = 192 : i64, scale_vec = "block32"} : (!tcgen05.tmem<[256, 64], f32>, !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">, !tcgen05.smem<[32, 512], f4E2M1FN, "K", "none">, i1, !tcgen05.tmem<[256, 3], f8E8M0FNU>, !tcgen05.tmem<[256, 3], f8E8M0FNU>) -> ()
  return
}

// -----

// ------------------------------------------------------------------ sparsity

// tmem-facts section 3: for f16/tf32 the selector picks a column of the 2-column metadata granule.
func.func @selector_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{sparsity_selector = 2 is not allowed for kind::f16 (allowed: 0, 1; 9.7.16.10.8.4)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0) {kind = "f16", sparse = true, sparsity_selector = 2 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "64B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// 9.7.16.10.8.4.6: the sparsity selector "must be 0 for .kind::i8 and .kind::f8f6f4".
func.func @selector_i8() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{sparsity_selector = 1 is not allowed for kind::f8f6f4 (allowed: 0; 9.7.16.10.8.4)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0) {kind = "f8f6f4", sparse = true, sparsity_selector = 1 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "64B">, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// Table 42: the selector applies "if Sparsity is enabled".
func.func @selector_dense() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{sparsity_selector is only meaningful with sparse}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", sparsity_selector = 1 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.8.4: the metadata has a row per row of A.
func.func @metadata_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 2], i32>
  // expected-error @+1 {{sparsity metadata buffer !tcgen05.tmem<[64, 2], i32> must have the M = 128 rows of the MMA}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0) {kind = "f16", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "64B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[64, 2], i32>) -> ()
  return
}

// -----

// ------------------------------------------------------------------ block scaling

// 9.7.16.10.9.1: .scale_vectorsize is .scale_vec::1X/2X/4X, .block16 or .block32.
func.func @bad_scale_vec() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  // expected-error @+1 {{scale_vec = "8X" is not one of 1X, 2X, 4X, block16, block32 (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", scale_vec = "8X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>) -> ()
  return
}

// -----

// Table 54: .scale_vec::4X is for kind::mxf4nvf4 only.
func.func @table54_mxf4_4x() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  // expected-error @+1 {{.scale_vec::4X is not valid for kind::mxf4 (valid: scale_vec::2X, block32) (Table 54)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", scale_vec = "4X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
  return
}

// -----

// Table 55: with UE4M3 scales, kind::mxf4nvf4 takes .scale_vec::4X / .block16 only.
func.func @table55_ue4m3_2x() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  // expected-error @+1 {{scale type ue4m3 with kind::mxf4nvf4 requires .scale_vec::4X or .block16 (got .block32) (Table 55)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4nvf4", scale_vec = "block32"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.tmem<[128, 4], f8E4M3>) -> ()
  return
}

// -----

// Table 39: kind::mxf4 scales with UE8M0 only.
func.func @scale_type_mxf4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E4M3>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E4M3>
  // expected-error @+1 {{scale type ue4m3 is not allowed for kind::mxf4 (allowed: ue8m0) (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", scale_vec = "2X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f8E4M3>, !tcgen05.tmem<[128, 2], f8E4M3>) -> ()
  return
}

// -----

// Table 44: the scale-factor IDs of kind::mxf4 are 0 or 2.
func.func @scale_id_mxf4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  // expected-error @+1 {{scale_a_id = 1 is not allowed for kind::mxf4 (allowed: 0, 2) (Table 44)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", scale_vec = "2X", scale_a_id = 1 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>) -> ()
  return
}

// -----

// 9.7.16.10.7: scale-factor IDs belong to block scaling.
func.func @scale_id_on_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{scale_a_id needs block scaling, which kind::f16 does not have (9.7.16.10.7)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", scale_a_id = 2 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 54: .block16 with K = 96 is M x 6; its layout (9.7.16.10.7.2.5) exists only as a figure.
func.func @k96_block16() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 6], f8E4M3>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 6], f8E4M3>
  // expected-error @+1 {{.block16 with K = 96 (6 scale factors per row) is not supported yet}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4nvf4", k = 96 : i64, scale_vec = "block16"} : (!tcgen05.tmem<[256, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[32, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[256, 6], f8E4M3>, !tcgen05.tmem<[256, 6], f8E4M3>) -> ()
  return
}

// -----

// ------------------------------------------------------------------ .ws

// 9.7.16.10.9.3: ::buffer = { ::b0, ::b1, ::b2, ::b3 }.
func.func @collector_b4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{collector buffer b4 is not valid for tcgen05.mma.ws (buffers: b0, b1, b2, b3) (9.7.16.10.9.3)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b = "b4", collector_b_op = "fill"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.9.3: ::op = { ::fill, ::use, ::lastuse, ::discard }.
func.func @collector_b_op() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{collector operation keep is not valid (operations: fill, use, lastuse, discard) (9.7.16.10.9.3)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_b = "b1", collector_b_op = "keep"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 42 bits 30-31: no shift, or a maximum shift of 8, 16 or 32 columns.
func.func @max_shift_12() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{maximum shift 12 is not one of 0, 8, 16, 32 (Table 42)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, max_shift = 12 : i64} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 45: "Max shift amount = 16 for M=32"; bits 56-61 hold 20.
func.func @zero_mask_shift_m32() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[32, 64], f32>
  // expected-error @+1 {{column_shift = 20 exceeds 16, the maximum for M = 32 (Table 45)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, zero_column_mask = 1441151880758558720 : i64} : (!tcgen05.tmem<[32, 64], f32>, !tcgen05.smem<[32, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 45: bits 36-38 are reserved.
func.func @zero_mask_reserved() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{reserved bits 36-38 = 0x1 but must be 0x0 (Table 45)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, zero_column_mask = 68719476736 : i64} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.9.1: tcgen05.mma has no zero-column mask; it belongs to .ws.
func.func @ws_attribute_without_ws() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{zero_column_mask belongs to tcgen05.mma.ws (9.7.16.10.9.3); this MMA is not .ws}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", zero_column_mask = 0 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.9.3: .ws uses the B collector buffers.
func.func @collector_a_with_ws() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{tcgen05.mma.ws keeps B in its collector buffers ::b0-::b3; collector_a is for tcgen05.mma}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, collector_a = "fill"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// ------------------------------------------------------------------ qualifiers of 9.7.16.10.9.1

// ::op = { ::fill, ::use, ::lastuse, ::discard }.
func.func @collector_a_op() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{collector operation reuse is not valid (operations: fill, use, lastuse, discard) (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", collector_a = "reuse"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// The syntax gives .ashift only to the [a-tmem] forms.
func.func @ashift_a_smem() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{.ashift requires matrix A in Tensor Memory ([a-tmem]) (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ashift = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// "Qualifier .ashift is only allowed with M = 128 or M = 256."
func.func @ashift_m64() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], bf16>
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{.ashift is only allowed with M = 128 or M = 256 (got M = 64) (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ashift = true} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.tmem<[64, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// "It is illegal to specify either of .collector::a::use or .collector::a::fill along with .ashift."
func.func @ashift_fill() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], bf16>
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{.ashift cannot be combined with .collector::a::fill (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ashift = true, collector_a = "fill"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Forms 2 and 4 (block scaling) have no .ashift.
func.func @ashift_block_scaled() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f8E4M3FN>
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 1], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 1], f8E8M0FNU>
  // expected-error @+1 {{.ashift is not available with block-scaled kind::mxf8f6f4 (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf8f6f4", scale_vec = "1X", ashift = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 128], f8E4M3FN>, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 1], f8E8M0FNU>, !tcgen05.tmem<[128, 1], f8E8M0FNU>) -> ()
  return
}

// -----

// Size of the vector disable-output-lane: 4 with cta_group::1.
func.func @dol_8_words_cta1() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{disable-output-lane has 4 elements with cta_group::1 (got 8) (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", disable_output_lane = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Size of the vector disable-output-lane: 8 with cta_group::2.
func.func @dol_4_words_cta2() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 64], f32>
  // expected-error @+1 {{disable-output-lane has 8 elements with cta_group::2 (got 4) (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", disable_output_lane = array<i32: 0, 0, 0, 0>} : (!tcgen05.tmem<[256, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Forms 2 and 4 (block scaling) have no disable-output-lane operand.
func.func @dol_block_scaled() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  // expected-error @+1 {{disable-output-lane is not an operand of block-scaled kind::mxf4 (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", scale_vec = "2X", disable_output_lane = array<i32: 0, 0, 0, 0>} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>) -> ()
  return
}

// -----

// tcgen05.mma.ws has no disable-output-lane operand (9.7.16.10.9.3).
func.func @dol_ws() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{disable-output-lane is not an operand of tcgen05.mma.ws (9.7.16.10.9.3)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, disable_output_lane = array<i32: 0, 0, 0, 0>} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// "The valid range of values for argument scale-input-d is [0, 15]."
func.func @scale_input_d_16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{scale-input-d = 16 is outside [0, 15] (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", scale_input_d = 16 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// "The argument scale-input-d is only valid for .kind::tf32 and .kind::f16."
func.func @scale_input_d_f8f6f4() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{scale-input-d is only valid for kind::f16 and kind::tf32 (got kind::f8f6f4) (9.7.16.10.9.1)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f8f6f4", scale_input_d = 1 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1) -> ()
  return
}

// -----

// tcgen05.mma.ws has no scale-input-d operand (9.7.16.10.9.3).
func.func @scale_input_d_ws() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{scale-input-d is not an operand of tcgen05.mma.ws (9.7.16.10.9.3)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, scale_input_d = 1 : i64} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 49: kind::i8 does not support negate.
func.func @negate_i8() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], i8, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], i8, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], i32>
  // expected-error @+1 {{negate is not supported for kind::i8 (Table 49)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "i8", negate_a = true} : (!tcgen05.tmem<[128, 64], i32>, !tcgen05.smem<[128, 128], i8, "K", "128B">, !tcgen05.smem<[64, 128], i8, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 42 bit 3: saturate is for integer types.
func.func @saturate_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{saturate = True is not allowed for kind::f16: only integer kinds saturate (Table 42)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", saturate = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 45, Column Shift: "Shifts column by specified amount. Thus allows MMA on non-0
// starting column": with a shift of 2 the MMA reads B rows 2..N+1, past a tile of N rows.
func.func @zero_mask_shift_past_the_tile() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 16], bf16, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 16], bf16, "K", "32B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[32, 64], f32>
  // expected-error @+1 {{B tile has 64 rows but the accumulator has N = 64 and the zero-column mask shifts B's columns by 2 (Table 45: the MMA reads B columns 2 to 65, so the tile needs at least 66 rows)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", ws = true, zero_column_mask = 144115188075855872 : i64} : (!tcgen05.tmem<[32, 64], f32>, !tcgen05.smem<[32, 16], bf16, "K", "32B">, !tcgen05.smem<[64, 16], bf16, "K", "32B">, i1) -> ()
  return
}
