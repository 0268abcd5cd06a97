// tcgen05-select-layouts: the data-path layout of each MMA (PTX ISA 9.7.16.10.5), the TMEM
// footprint of each buffer and the tcgen05.ld messages of each load (Table 47). A load
// becomes, in every warp, a sequence of equal messages .<shape>.x<num>; these loads feed
// no store, so they keep their width and use the widest .num that tiles it.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' --split-input-file --verify-diagnostics | FileCheck %s

// M = 128 with cta_group::1 is Layout D (9.7.16.10.5): row r on lane r, column c on column
// c, so a 128 x 256 f32 accumulator takes all 128 lanes and 256 columns. A warp reads its
// 32 lanes with .32x32b (tmem-facts 2: thread l holds lane l), one register per column,
// so a 32-column load is .32x32b.x32.
// CHECK-LABEL: func.func @layout_d
// CHECK: "tcgen05.tmem_buffer"()
// CHECK-SAME: columns = 256 : i64
// CHECK-SAME: half_lanes = false
// CHECK-SAME: layout = "D"
// CHECK-SAME: role = "d"
// CHECK-SAME: -> !tcgen05.tmem<[128, 256], f32>
// CHECK: "tcgen05.mma"
// CHECK-SAME: layout = "D"
// CHECK: "tcgen05.ld"
// CHECK-SAME: {num = 32 : i64, shape = "32x32b"}
// CHECK-SAME: -> !tcgen05.frag<[128, 32], f32>
// Table 47: .32x32b goes up to .x128 (128 registers per thread).
// CHECK: "tcgen05.ld"
// CHECK-SAME: {num = 128 : i64, shape = "32x32b"}
// CHECK-SAME: -> !tcgen05.frag<[128, 128], f32>
func.func @layout_d(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  %f32 = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f128 = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 128], f32>
  return
}

// -----

// M = 64 without .ws is Layout F: 16 lanes of each 32-lane quarter ("1/2 datapath
// utilized"), one column per element, so 128 columns and half_lanes. Its loads use
// .16x32bx2 (tmem-facts 1): thread l holds lane l % 16 at columns r + (l / 16) * imm, so a
// 32-column slice is two halves of 16 columns: .num 16 with immHalfSplitoff 16, and each
// thread holds 16 contiguous columns of one row.
// CHECK-LABEL: func.func @layout_f
// CHECK: "tcgen05.tmem_buffer"()
// CHECK-SAME: columns = 128 : i64
// CHECK-SAME: half_lanes = true
// CHECK-SAME: layout = "F"
// CHECK-SAME: -> !tcgen05.tmem<[64, 128], f32>
// CHECK: "tcgen05.mma"
// CHECK-SAME: layout = "F"
// CHECK: "tcgen05.ld"
// CHECK-SAME: {half_split = 16 : i64, num = 16 : i64, shape = "16x32bx2"}
// CHECK-SAME: -> !tcgen05.frag<[64, 32], f32>
// The whole row in one message: 128 columns = 2 x 64.
// CHECK: "tcgen05.ld"
// CHECK-SAME: {half_split = 64 : i64, num = 64 : i64, shape = "16x32bx2"}
// CHECK-SAME: -> !tcgen05.frag<[64, 128], f32>
func.func @layout_f() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 128], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 128], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  %f32 = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[64, 128], f32>, index) -> !tcgen05.frag<[64, 32], f32>
  %f128 = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[64, 128], f32>, index) -> !tcgen05.frag<[64, 128], f32>
  return
}

// -----

// 9.7.16.10.4.1: 16-bit D elements are not packed, so an f16 accumulator still takes one
// column per element (N = 8 -> 8 columns).
// CHECK-LABEL: func.func @f16_accumulator
// CHECK: "tcgen05.tmem_buffer"()
// CHECK-SAME: columns = 8 : i64
// CHECK-SAME: layout = "D"
// CHECK-SAME: -> !tcgen05.tmem<[128, 8], f16>
func.func @f16_accumulator() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], f16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[8, 64], f16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 8], f16>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 8], f16>, !tcgen05.smem<[128, 64], f16, "K", "128B">,
         !tcgen05.smem<[8, 64], f16, "K", "128B">, i1) -> ()
  return
}

// -----

// A 128-row buffer that no MMA writes gets rows on lanes one-to-one (Layout D).
// CHECK-LABEL: func.func @no_mma_128_rows
// CHECK: "tcgen05.tmem_buffer"()
// CHECK-SAME: columns = 64 : i64
// CHECK-SAME: half_lanes = false
// CHECK-SAME: layout = "D"
func.func @no_mma_128_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  return
}

// -----

// ------------------------------------------------------------------ diagnostics

// One buffer, two layouts: a non-.ws M = 64 MMA uses Layout F and a .ws one Layout E
// (9.7.16.10.5), which place the same D[r][c] in different cells.
func.func @two_layouts() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 128], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 128], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  // expected-error @+1 {{this buffer is used as d with Layout E here but as d with Layout F by an earlier MMA}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", ws = true}
      : (!tcgen05.tmem<[64, 128], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Table 47 has only power-of-two .num (.x1, .x2, .x4, ... .x128), so a 24-column load is
// three .32x32b.x8 messages (8 is the largest power of two dividing 24), and a 256-column
// load two .x128 messages (.x128 is the largest .32x32b message).
// CHECK-LABEL: func.func @ld_widths_layout_d
// CHECK: "tcgen05.ld"
// CHECK-SAME: {num = 8 : i64, shape = "32x32b"}
// CHECK-SAME: -> !tcgen05.frag<[128, 24], f32>
// CHECK: "tcgen05.ld"
// CHECK-SAME: {num = 128 : i64, shape = "32x32b"}
// CHECK-SAME: -> !tcgen05.frag<[128, 256], f32>
func.func @ld_widths_layout_d() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  %f24 = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 24], f32>
  %f256 = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 256], f32>
  return
}

// -----

// Layout F reads a slice with .16x32bx2, whose messages move two equal halves of 2^k
// columns (Table 47), so an odd width cannot be tiled.
func.func @ld_odd_layout_f() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 128], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 128], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  // expected-error @+1 {{.16x32bx2 messages move 2 x 2^k columns (.x1 to .x128), which cannot tile the 15 columns each warp moves (Table 47)}}
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[64, 128], f32>, index) -> !tcgen05.frag<[64, 15], f32>
  return
}

// -----

// 48 columns of Layout F: .16x32bx2.x24 does not exist (Table 47), so three messages
// of 2 x 8 columns (.x8, immHalfSplitoff 8): 16 is the largest 2 x 2^k dividing 48.
// CHECK-LABEL: func.func @ld_48_layout_f
// CHECK: "tcgen05.ld"
// CHECK-SAME: {half_split = 8 : i64, num = 8 : i64, shape = "16x32bx2"}
// CHECK-SAME: -> !tcgen05.frag<[64, 48], f32>
func.func @ld_48_layout_f() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 128], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 128], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[64, 128], f32>, index) -> !tcgen05.frag<[64, 48], f32>
  return
}

// -----

// A slice at a constant column must lie inside the buffer: 240 + 32 > 256.
func.func @ld_outside_buffer() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c240 = arith.constant 240 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{tcgen05.ld: columns [240, 272) are outside the buffer's 256 columns}}
  %frag = "tcgen05.ld"(%acc, %c240) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// Without an MMA nothing says how 64 rows sit on the 128 lanes (Layout E, F and G all
// hold 64 or fewer rows, differently).
func.func @no_mma_64_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{no MMA uses this 64-row buffer, so its layout cannot be chosen}}
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  return
}

// -----

// The accumulator must be a buffer of this kernel (its footprint is recorded there).
func.func @d_not_a_buffer(%acc: !tcgen05.tmem<[128, 256], f32>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  // expected-error @+1 {{the MMA's d operand must be a tcgen05.tmem_buffer result}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}
