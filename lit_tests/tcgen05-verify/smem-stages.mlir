// Multi-stage shared-memory tiles !tcgen05.smem<[stages, rows, K], ...> and
// tcgen05.smem_stage: the rules tcgen05-verify applies, one kernel per case. The expected
// texts name the rule and the bad value: a stage of a [S, R, K] tile is the [R, K] tile of
// the same element type, major-ness and swizzle (the dialect's definition of the op); a
// constant stage index lies in 0 .. S - 1; every other op takes a single stage.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics | FileCheck %s

// Good input is accepted and printed unchanged: a 4-stage ring of A and B tiles, one stage
// of each picked at run time (k / 64 mod 4) and multiplied.
// CHECK-LABEL: func.func @ring_ok
// CHECK: "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
// CHECK: "tcgen05.smem_stage"(%{{.+}}, %{{.+}}) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
func.func @ring_ok(%A: !llvm.ptr<1>, %k: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  %i = arith.divui %k, %c64 : index
  %s = arith.remui %i, %c4 : index
  %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  "tcgen05.smem_fill"(%A, %as, %k) {src_layout = "mn_k", src_ld = 256 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%A, %bs, %k) {src_layout = "mn_k", src_ld = 256 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %as, %bs, %true) {kind = "f16"} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A multi-stage tile is used through its stages: an MMA does not read the whole ring.
func.func @ring_used_whole() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  // expected-error @+1 {{!tcgen05.smem<[4, 128, 64], bf16, "K", "128B"> has 4 stages: pick one with tcgen05.smem_stage}}
  "tcgen05.mma"(%acc, %a, %b, %true) {kind = "f16"} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// ... nor does a fill write it.
func.func @ring_filled_whole(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  // expected-error @+1 {{!tcgen05.smem<[2, 128, 64], bf16, "K", "128B"> has 2 stages: pick one with tcgen05.smem_stage}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> ()
  return
}

// -----

// One stage of a [4, 128, 64] tile is a [128, 64] tile: not [64, 64] ...
func.func @stage_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c1 = arith.constant 1 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  // expected-error @+1 {{a stage of !tcgen05.smem<[4, 128, 64], bf16, "K", "128B"> is !tcgen05.smem<[128, 64], bf16, "K", "128B">, not !tcgen05.smem<[64, 64], bf16, "K", "128B">}}
  %s = "tcgen05.smem_stage"(%a, %c1) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  return
}

// -----

// ... nor one of another swizzle (its layout is the tile's) ...
func.func @stage_swizzle() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c1 = arith.constant 1 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  // expected-error @+1 {{a stage of !tcgen05.smem<[4, 128, 64], bf16, "K", "128B"> is !tcgen05.smem<[128, 64], bf16, "K", "128B">, not !tcgen05.smem<[128, 64], bf16, "K", "64B">}}
  %s = "tcgen05.smem_stage"(%a, %c1) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "64B">
  return
}

// -----

// ... nor one of another element type.
func.func @stage_element() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c1 = arith.constant 1 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  // expected-error @+1 {{a stage of !tcgen05.smem<[4, 128, 64], bf16, "K", "128B"> is !tcgen05.smem<[128, 64], bf16, "K", "128B">, not !tcgen05.smem<[128, 64], f16, "K", "128B">}}
  %s = "tcgen05.smem_stage"(%a, %c1) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], f16, "K", "128B">
  return
}

// -----

// A stage index known at compile time lies among the tile's stages (0 to 3).
func.func @stage_out_of_range() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c4 = arith.constant 4 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  // expected-error @+1 {{stage 4 of !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, which has stages 0 to 3}}
  %s = "tcgen05.smem_stage"(%a, %c4) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  return
}

// -----

// tcgen05.smem_stage picks a stage of a multi-stage tile; a [rows, K] tile has none.
func.func @stage_of_single_tile() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{tcgen05.smem_stage takes a multi-stage [stages, rows, K] shared-memory tile, not !tcgen05.smem<[128, 64], bf16, "K", "128B">}}
  %s = "tcgen05.smem_stage"(%a, %c0) : (!tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  return
}

// -----

// A shared-memory tile's shape is [rows, K] or [stages, rows, K].
func.func @smem_rank() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{shared-memory tile shape [2, 2, 128, 64] must be [rows, K] or [stages, rows, K]}}
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 2, 128, 64], bf16, "K", "128B">
  return
}

// -----

// A TMA load writes one stage (its box is one stage's [rows, K]), not the whole ring.
func.func @ring_tma_whole(%tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}}) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{!tcgen05.smem<[4, 128, 64], bf16, "K", "128B"> has 4 stages: pick one with tcgen05.smem_stage}}
  "tcgen05.tma_load"(%tmA, %a, %full, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// The tensor map's box is one stage: {64, 128} for a stage of [4, 128, 64].
func.func @ring_tma_box(%tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 256>, swizzle = "128B"}}) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %a3 = "tcgen05.smem_stage"(%a, %c3) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{the tensor map's box [64, 256] is not the tile's [64, 128] (innermost first: K = 64, rows = 128)}}
  "tcgen05.tma_load"(%tmA, %a3, %full, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// A sparse MMA's A is stored compressed (M x K/2, 9.7.16.10.8), which the fill of a tile
// learns from the MMAs that read that tile; through stages of a ring it would not.
func.func @sparse_a_from_a_stage() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %c1 = arith.constant 1 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "none">
  %a1 = "tcgen05.smem_stage"(%a, %c1) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "none">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "none">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %m = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{a sparse MMA reading A from a stage of a multi-stage tile (tcgen05.smem_stage) is not supported yet: give the compressed A (M x K/2, 9.7.16.10.8) its own [rows, K] tile}}
  "tcgen05.mma"(%d, %a1, %b, %p, %m) {kind = "f16", sparse = true, sparsity_selector = 1 : i64, k_offset = 32 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "none">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}
