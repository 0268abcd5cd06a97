// Diagnostics of tcgen05-verify on the basic operations (buffers, fills, dense MMAs,
// ld/store, cp, ld_red, sync ops, kernel attributes), one kernel per case; the rules of
// .ws, .sp, block scaling and the other MMA qualifiers are in mma-rules.mlir and
// datamove-rules.mlir. The expected texts are the rule and the bad value of each case,
// taken from the PTX ISA (Table 39 for shapes and types, Table 52 for swizzling, the
// Target ISA Notes for targets) or from the limits this version documents (one
// warpgroup per CTA, K-major fills).
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics | FileCheck %s

// Good input is accepted and printed unchanged (tcgen05-verify only checks). The MMAs sit
// on the edges of Table 39 (kind::f16, cta_group::1): M = 64 and 128, N = 8 and 256, D f16
// with f16 inputs and D f32 with bf16 inputs, and the last K = 16 block of 64-wide tiles.
// CHECK-LABEL: func.func @valid_edges
// CHECK-COUNT-4: "tcgen05.mma"
// CHECK: "tcgen05.ld"
// CHECK: "tcgen05.wait"() {kind = "ld"}
// CHECK: "tcgen05.fence"() {kind = "after_thread_sync"}
// CHECK: return
func.func @valid_edges(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a128 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b256 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %a64 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], f16, "K", "none">
  %b8 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[8, 64], f16, "K", "none">
  %big = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  %small = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 8], f16>
  "tcgen05.smem_fill"(%A, %a128, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%big, %a128, %b256, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%big, %a128, %b256, %f) {kind = "f16", k_offset = 48 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%small, %a64, %b8, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 8], f16>, !tcgen05.smem<[64, 64], f16, "K", "none">,
         !tcgen05.smem<[8, 64], f16, "K", "none">, i1) -> ()
  "tcgen05.mma"(%small, %a64, %b8, %f) {kind = "f16", k_offset = 48 : i64}
      : (!tcgen05.tmem<[64, 8], f16>, !tcgen05.smem<[64, 64], f16, "K", "none">,
         !tcgen05.smem<[8, 64], f16, "K", "none">, i1) -> ()
  %frag = "tcgen05.ld"(%big, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 256], f32>
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 256 : i64}
      : (!tcgen05.frag<[128, 256], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The other kinds at edges of their own Table 39 lines: kind::tf32 (K = 8, D f32),
// kind::i8 (K = 32, D s32, A s8 and B u8 mixed, N = 48 is the first N of the steps of 16
// after N > 32) and kind::f8f6f4 (K = 32, e4m3 x e5m2 into f16).
// CHECK-LABEL: func.func @valid_kinds
// CHECK-COUNT-3: "tcgen05.mma"
func.func @valid_kinds() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %at = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 8], tf32, "K", "32B">
  %bt = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[8, 8], tf32, "K", "32B">
  %dt = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 8], f32>
  "tcgen05.mma"(%dt, %at, %bt, %f) {kind = "tf32"}
      : (!tcgen05.tmem<[128, 8], f32>, !tcgen05.smem<[128, 8], tf32, "K", "32B">,
         !tcgen05.smem<[8, 8], tf32, "K", "32B">, i1) -> ()
  %ai = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], i8, "K", "32B">
  %bi = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[48, 32], ui8, "K", "32B">
  %di = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 48], i32>
  "tcgen05.mma"(%di, %ai, %bi, %f) {kind = "i8"}
      : (!tcgen05.tmem<[64, 48], i32>, !tcgen05.smem<[64, 32], i8, "K", "32B">,
         !tcgen05.smem<[48, 32], ui8, "K", "32B">, i1) -> ()
  %a8 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], f8E4M3FN, "K", "32B">
  %b8 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[16, 32], f8E5M2, "K", "32B">
  %d8 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 16], f16>
  "tcgen05.mma"(%d8, %a8, %b8, %f) {kind = "f8f6f4"}
      : (!tcgen05.tmem<[128, 16], f16>, !tcgen05.smem<[128, 32], f8E4M3FN, "K", "32B">,
         !tcgen05.smem<[16, 32], f8E5M2, "K", "32B">, i1) -> ()
  return
}

// -----

// ------------------------------------------------------------------ IRDL (parser)

// B must be a shared-memory tile: the IRDL definition rejects a TMEM buffer when the
// module is parsed, before any pass runs.
func.func @b_in_tmem() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{expected base type 'tcgen05.smem' but got 'tcgen05.tmem'}}
  "tcgen05.mma"(%acc, %a, %acc, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.tmem<[128, 256], f32>, i1) -> ()
  return
}

// -----

// The kind attribute is required by the IRDL definition.
func.func @no_kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{attribute "kind" is expected but not provided}}
  "tcgen05.mma"(%acc, %a, %b, %f)
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// ------------------------------------------------------------------ kernel attributes

// sm_90a has no tcgen05 at all.
// expected-error @+1 {{target sm_90a is not a tcgen05 target (known: sm_100, sm_100a, sm_100f, sm_101, sm_101a, sm_101f, sm_103, sm_103a, sm_103f, sm_110, sm_110a, sm_110f); did you mean 'sm_100a'?}}
func.func @unknown_target() attributes {tcgen05.kernel = {target = "sm_90a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// Every Target ISA Note of 9.7.16 lists only arch-specific ("a") or family-specific ("f")
// targets, so plain sm_100 supports no tcgen05 instruction.
// expected-error @+1 {{tcgen05.mma is not supported on sm_100 (tcgen05 needs an arch-specific 'a' or family-specific 'f' target)}}
func.func @plain_target() attributes {tcgen05.kernel = {target = "sm_100", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// 9.7.16.10.9.1: family-specific targets support tcgen05.mma "except .kind::i8", which
// needs sm_100a, sm_101a or sm_110a.
func.func @i8_on_family_target() attributes {tcgen05.kernel = {target = "sm_100f", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], i8, "K", "32B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], i32>
  // expected-error @+1 {{kind::i8 is not supported on sm_100f}}
  "tcgen05.mma"(%d, %a, %b, %f) {kind = "i8"}
      : (!tcgen05.tmem<[128, 64], i32>, !tcgen05.smem<[128, 32], i8, "K", "32B">,
         !tcgen05.smem<[64, 32], i8, "K", "32B">, i1) -> ()
  return
}

// -----

// 9.7.16.5: .cta_group is ::1 or ::2.
// expected-error @+1 {{cta_group = 3 is not 1 or 2}}
func.func @cta_group_3() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 3 : i64}} {
  return
}

// -----

// expected-error @+1 {{threads = 256: this version lowers kernels without tcgen05.partitions of exactly one warpgroup (128 threads)}}
func.func @two_warpgroups() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// ------------------------------------------------------------------ buffers

func.func @tmem_rank_1() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{TMEM buffer shape [128] must be [rows, columns] or [stages, rows, columns]}}
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128], f32>
  return
}

// -----

// A multi-buffered buffer is [stages, rows, columns]; instructions take one stage of it.
func.func @tmem_staged_used_whole() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[2, 128, 128], f32>
  // expected-error @+1 {{!tcgen05.tmem<[2, 128, 128], f32> is multi-buffered: pick a stage with tcgen05.tmem_stage}}
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[2, 128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// One stage of a [2, 128, 128] buffer is a [128, 128] buffer.
func.func @tmem_stage_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c1 = arith.constant 1 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[2, 128, 128], f32>
  // expected-error @+1 {{a stage of !tcgen05.tmem<[2, 128, 128], f32> is !tcgen05.tmem<[128, 128], f32>, not !tcgen05.tmem<[128, 64], f32>}}
  %s = "tcgen05.tmem_stage"(%acc, %c1) : (!tcgen05.tmem<[2, 128, 128], f32>, index) -> !tcgen05.tmem<[128, 64], f32>
  return
}

// -----

// A stage index known at compile time lies among the buffer's stages.
func.func @stage_out_of_range() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c2 = arith.constant 2 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[2, 128, 128], f32>
  // expected-error @+1 {{stage 2 of !tcgen05.tmem<[2, 128, 128], f32>, which has stages 0 to 1}}
  %s = "tcgen05.tmem_stage"(%acc, %c2) : (!tcgen05.tmem<[2, 128, 128], f32>, index) -> !tcgen05.tmem<[128, 128], f32>
  return
}

// -----

// tcgen05.tmem_stage picks a stage of a multi-buffered buffer; a [rows, columns] buffer has
// none.
func.func @stage_of_2d() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  // expected-error @+1 {{tcgen05.tmem_stage takes a multi-buffered [stages, rows, columns] buffer, not !tcgen05.tmem<[128, 128], f32>}}
  %s = "tcgen05.tmem_stage"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.tmem<[128, 128], f32>
  return
}

// -----

// Table 39 dtype column: D is f16, f32 or s32; never bf16.
func.func @tmem_bf16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{TMEM accumulator element type bf16 is not f32, f16 or i32}}
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], bf16>
  return
}

// -----

// (A third, leading dimension is a stage count: smem-stages.mlir.)
func.func @smem_rank_1() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{shared-memory tile shape [128] must be [rows, K] or [stages, rows, K]}}
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128], bf16, "K", "128B">
  return
}

// -----

// 9.7.16.3: K-major or MN-major.
func.func @bad_major() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{major-ness "M" is not "K" or "MN" (9.7.16.3); did you mean 'MN'?}}
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "M", "128B">
  return
}

// -----

// Table 40 bits 61-63: no swizzling, 128B with 32B atoms, 128B, 64B, 32B; nothing wider.
func.func @bad_swizzle() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{swizzle "256B" is not one of none, 32B, 64B, 128B, 128B_base32B}}
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "256B">
  return
}

// -----

// ------------------------------------------------------------------ smem_fill

func.func @fill_bad_src_layout(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{src_layout = "row_major" is not "mn_k" or "k_mn"}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "row_major", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  return
}

// -----

// An MN-major tile filled from an MN-contiguous source (k_mn) reads 16-byte vectors
// along M/N: K rows 100 bf16 = 200 bytes apart would leave every other row misaligned.
func.func @fill_mn_major_misaligned_rows(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "MN", "128B">
  // expected-error @+1 {{src_ld = 100 bf16 elements is 200 bytes, not a multiple of the 16-byte vector loads of src_layout = "k_mn": every other row would start misaligned}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "k_mn", src_ld = 100 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "MN", "128B">, index) -> ()
  return
}

// -----

func.func @fill_zero_ld(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{src_ld = 0 must be positive}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 0 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  return
}

// -----

func.func @fill_base32b(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], tf32, "K", "128B_base32B">
  // expected-error @+1 {{filling a tile with 128B swizzle of 32B atomicity is not supported yet}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 32 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 32], tf32, "K", "128B_base32B">, index) -> ()
  return
}

// -----

// ------------------------------------------------------------------ mma: kind and operands

func.func @unknown_kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{kind::f64 is not an MMA kind (one of f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4; 9.7.16.10.9.1); did you mean 'f16'?}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f64"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A is declared `irdl.any` (a TMEM buffer or a tile), so a wrong type reaches the verifier.
func.func @a_not_a_tile(%x: i64) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{operand A has type i64; expected a TMEM buffer or a shared-memory tile}}
  "tcgen05.mma"(%acc, %x, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, i64, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// kind::mxf4nvf4 is block-scaled (9.7.16.10.7): scale_A and scale_B are operands of the
// instruction, here missing.
func.func @block_scaled_without_scales() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{a block-scaled MMA takes the scale_A and scale_B TMEM operands after enable_input_d}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "mxf4nvf4", scale_vec = "4X"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">,
         !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 44 bit 23 is one "Scale Matrix Type, for both scale_A / scale_B", so the two scale
// operands cannot differ in element type (each has an IRDL constraint of its own, so the
// parser accepts the mix and tcgen05-verify reports it).
func.func @mixed_scale_types() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %sa = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  %sb = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  // expected-error @+1 {{scale_B buffer !tcgen05.tmem<[128, 4], f8E8M0FNU> has element type f8E8M0FNU but scale_A !tcgen05.tmem<[128, 4], f8E4M3> has f8E4M3: the instruction descriptor has one Scale Matrix Type for both (Tables 43 and 44, bit 23)}}
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4nvf4", scale_vec = "4X"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">,
         !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1,
         !tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
  return
}

// -----

// The sparsity metadata is 2- and 4-bit indices packed in 32-bit TMEM cells
// (9.7.16.10.8.1-9.7.16.10.8.4): its buffer is i32, also in a sparse block-scaled MMA. The
// spelling that gave it the scale factors' type (when the dialect bound all trailing
// operands to one type) is refused with the rule and the type.
func.func @sparse_block_scaled_metadata_of_scale_type() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 512], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  // expected-error @+1 {{sparsity metadata buffer !tcgen05.tmem<[128, 2], f8E8M0FNU> must have element type i32, not f8E8M0FNU: metadata is 2- and 4-bit indices packed in 32-bit TMEM cells (9.7.16.10.8.1-9.7.16.10.8.4; docs/tmem-operands.md) (a sparse block-scaled MMA too: the scale factors keep their own type)}}
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s, %s) {kind = "mxf4", sparse = true, scale_vec = "block32"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 512], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>) -> ()
  return
}

// -----

// The same rule for a sparse MMA without block scaling.
func.func @sparse_metadata_f32() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %m = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f32>
  // expected-error @+1 {{sparsity metadata buffer !tcgen05.tmem<[128, 2], f32> must have element type i32, not f32: metadata is 2- and 4-bit indices packed in 32-bit TMEM cells (9.7.16.10.8.1-9.7.16.10.8.4; docs/tmem-operands.md)}}
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "f16", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "64B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f32>) -> ()
  return
}

// -----

// An MMA has 4 to 7 operands (d, a, b, enable_input_d, then scale_a and scale_b, then the
// metadata); with more, no operand groups fit and the parser reports the op.
func.func @mma_with_eight_operands() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 512], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  // expected-error @+1 {{'operandSegmentSizes' attribute is expected but not provided}}
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s, %s, %s) {kind = "mxf4", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 512], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>) -> ()
  return
}

// -----

// ------------------------------------------------------------------ mma: Table 39 shapes

// kind::f16, cta_group::1 allows M = 64 and 128.
func.func @m_96() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[96, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[96, 128], f32>
  // expected-error @+1 {{M = 96 is not supported for kind::f16, cta_group::1 (supported: 64, 128) (Table 39)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[96, 128], f32>, !tcgen05.smem<[96, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// M = 256 exists only with cta_group::2 (Table 39).
func.func @m_256_cta1() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  // expected-error @+1 {{M = 256 is not supported for kind::f16, cta_group::1 (supported: 64, 128)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[256, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// "N = {8, 16, 24, ... 256} steps of 8": 250 = 31 * 8 + 2.
func.func @n_250() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[250, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 250], f32>
  // expected-error @+1 {{N = 250 is not a multiple of 8 for kind::f16, cta_group::1 (Table 39)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 250], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[250, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A multiple of 8 beyond the table's largest N (256).
func.func @n_264() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[264, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 264], f32>
  // expected-error @+1 {{N = 264 is not supported for kind::f16, cta_group::1}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 264], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[264, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// kind::i8, cta_group::1: "N = {8, 16, 24, 32, 48, ... 256} steps of 16 after N > 32", so
// 40 is out although it is a multiple of 8.
func.func @i8_n_40() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[40, 32], i8, "K", "32B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 40], i32>
  // expected-error @+1 {{N = 40 is not supported for kind::i8, cta_group::1}}
  "tcgen05.mma"(%d, %a, %b, %f) {kind = "i8"}
      : (!tcgen05.tmem<[128, 40], i32>, !tcgen05.smem<[128, 32], i8, "K", "32B">,
         !tcgen05.smem<[40, 32], i8, "K", "32B">, i1) -> ()
  return
}

// -----

// ------------------------------------------------------------------ mma: Table 39 types

// kind::f16 takes f16 or bf16 inputs.
func.func @a_f32_for_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], f32, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{A type f32 is not allowed for kind::f16 (allowed: f16, bf16)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], f32, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

func.func @b_e4m3_for_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], f16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], f8E4M3FN, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{B type e4m3 is not allowed for kind::f16}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], f16, "K", "128B">,
         !tcgen05.smem<[256, 64], f8E4M3FN, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 39, kind::f16: dtype .f16 goes with atype/btype .f16 only; bf16 needs D f32.
func.func @d_f16_bf16_inputs() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f16>
  // expected-error @+1 {{D type f16 requires A and B of type f16 for kind::f16}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f16>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// kind::f16 accumulates in f16 or f32, not s32.
func.func @d_s32_for_f16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], f16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], f16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], i32>
  // expected-error @+1 {{D type s32 is not allowed for kind::f16}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], i32>, !tcgen05.smem<[128, 64], f16, "K", "128B">,
         !tcgen05.smem<[256, 64], f16, "K", "128B">, i1) -> ()
  return
}

// -----

// ------------------------------------------------------------------ mma: tiles

// The A tile holds the M rows of A.
func.func @a_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{A tile has 64 rows but the accumulator has M = 128}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// The B tile holds the N rows of B^T.
func.func @b_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{B tile has 128 rows but the accumulator has N = 256}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

func.func @k_mismatch() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 32], bf16, "K", "64B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{A tile has K = 64 but B tile has K = 32}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 32], bf16, "K", "64B">, i1) -> ()
  return
}

// -----

// kind::f16 has K = 16 (Table 39): a K block starts at a multiple of 16 ...
func.func @k_offset_unaligned() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{k_offset = 8 does not select a K = 16 block of the 64-wide tiles (kind::f16, Table 39)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 8 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// ... and ends inside the tile: 64 + 16 > 64.
func.func @k_offset_past_end() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{k_offset = 64 does not select a K = 16 block of the 64-wide tiles}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 64 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

func.func @k_offset_negative() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{k_offset = -16 does not select a K = 16 block}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = -16 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// kind::tf32 has K = 8, so k_offset = 16 is a legal block start where kind::f16's 8 is not.
func.func @tf32_k_offset() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], tf32, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 16], tf32, "K", "64B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "tf32", k_offset = 8 : i64}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 16], tf32, "K", "64B">,
         !tcgen05.smem<[64, 16], tf32, "K", "64B">, i1) -> ()
  // expected-error @+1 {{k_offset = 12 does not select a K = 8 block of the 16-wide tiles (kind::tf32, Table 39)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "tf32", k_offset = 12 : i64}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 16], tf32, "K", "64B">,
         !tcgen05.smem<[64, 16], tf32, "K", "64B">, i1) -> ()
  return
}

// -----

// ------------------------------------------------------------------ mma: Table 52 swizzles

// 16-bit MN-major (transposed) operands take every swizzle "except 128B swizzling with 32B
// atomicity".
func.func @mn_major_bf16_base32b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "MN", "128B_base32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{A tile: 128B swizzle with 32B atomicity is only for MN-major 32-bit operands (Table 52)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "MN", "128B_base32B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// 32-bit MN-major operands take "only 128B swizzling with 32B atomicity".
func.func @mn_major_tf32_128b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], tf32, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], tf32, "MN", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  // expected-error @+1 {{B tile: MN-major tf32 requires 128B swizzle with 32B atomicity, got "128B" (Table 52)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "tf32"}
      : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 32], tf32, "K", "128B">,
         !tcgen05.smem<[128, 32], tf32, "MN", "128B">, i1) -> ()
  return
}

// -----

// ------------------------------------------------------------------ ld and store_fragment

// A warpgroup load reads whole columns: all 128 rows of a 128-row buffer.
func.func @ld_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{fragment has 64 rows but the buffer has 128}}
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[64, 32], f32>
  return
}

// -----

func.func @ld_too_wide() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{fragment of 128 columns is wider than the buffer (64 columns)}}
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 128], f32>
  return
}

// -----

func.func @ld_element_type() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{fragment element type f16 differs from the buffer's f32}}
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f16>
  return
}

// -----

func.func @store_zero_ld(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{ld = 0 must be positive}}
  "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 0 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// ------------------------------------------------------------------ cp and ld_red

// The column of a tcgen05.cp destination is a column of the buffer.
func.func @cp_negative_column() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], f8E4M3FN, "K", "none">
  // expected-error @+1 {{column = -4 must not be negative}}
  "tcgen05.cp"(%t, %s) {shape = "128x256b", column = -4 : i64}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], f8E4M3FN, "K", "none">) -> ()
  return
}

// -----

// .128x256b copies 128 rows of 256 bits; a tile of an element type the ISA has no width
// for (f64 is no tcgen05 type) cannot say how many bits its rows hold. The tile itself
// is refused too (type-parameters.mlir).
func.func @cp_f64_tile() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{shared-memory tile element type f64 is not a tcgen05 operand type}}
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 4], f64, "K", "none">
  // expected-error @+1 {{source tile element type f64 has no ISA width}}
  "tcgen05.cp"(%t, %s) {shape = "128x256b"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 4], f64, "K", "none">) -> ()
  return
}

// -----

// 9.7.16.8.3: tcgen05.ld.red takes .f32, .u32 or .s32 (and needs sm_103a, sm_101a/sm_110a
// or their families, hence the target).
func.func @ld_red_f16() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f16>
  // expected-error @+1 {{tcgen05.ld.red reduces f32, u32 or s32, not f16 (9.7.16.8.3)}}
  %frag, %red = "tcgen05.ld_red"(%buf, %c0) {op = "max"}
      : (!tcgen05.tmem<[128, 32], f16>, index) -> (!tcgen05.frag<[128, 32], f16>, !tcgen05.frag<[128, 1], f16>)
  return
}

// -----

// ------------------------------------------------------------------ sync ops

// 9.7.16.8.5: tcgen05.wait::ld and tcgen05.wait::st only.
func.func @bad_wait() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{wait kind "mma" is not "ld" or "st"}}
  "tcgen05.wait"() {kind = "mma"} : () -> ()
  return
}

// -----

// 9.7.16.11.1: ::before_thread_sync and ::after_thread_sync only.
func.func @bad_fence() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{fence kind "before" is not "before_thread_sync" or "after_thread_sync"}}
  "tcgen05.fence"() {kind = "before"} : () -> ()
  return
}

// -----

// An MN-major tile filled from an MN-contiguous source reads 16-byte vectors along M/N, so
// the tile's first row (its M/N offset in the matrix) must start a vector: 4 bf16 = 8
// bytes does not.
func.func @fill_mn_major_misaligned_row_offset(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "MN", "128B">
  // expected-error @+1 {{row offset 4 bf16 elements is 8 bytes, not a multiple of the 16-byte vector loads of src_layout = "k_mn"}}
  "tcgen05.smem_fill"(%A, %a, %c0, %c4) {src_layout = "k_mn", src_ld = 256 : i64, dims = ["row_offset"]}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "MN", "128B">, index, index) -> ()
  return
}

// -----

// The same with a row offset known only at run time, but to be 4 modulo 8 bf16 elements
// (8 bytes past a multiple of 16) whatever it is.
func.func @fill_mn_major_misaligned_runtime_row_offset(%A: !llvm.ptr<1>, %t: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %base = arith.muli %t, %c128 : index
  %m0 = arith.addi %base, %c4 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "MN", "128B">
  // expected-error @+1 {{the row offset is 4 modulo 8 bf16 elements (8 bytes past a multiple of 16) for every value it takes: not aligned to the 16-byte vector loads of src_layout = "k_mn"}}
  "tcgen05.smem_fill"(%A, %a, %c0, %m0) {src_layout = "k_mn", src_ld = 256 : i64, dims = ["row_offset"]}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "MN", "128B">, index, index) -> ()
  return
}
