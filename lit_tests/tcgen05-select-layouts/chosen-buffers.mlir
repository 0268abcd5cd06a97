// tcgen05-select-layouts on TMEM buffers chosen at run time: an MMA or a load whose buffer
// is an iteration argument, a select, an scf.if result or a block argument uses every
// buffer that can reach it, and all of them get the layout and footprint of that use.
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts' --split-input-file --verify-diagnostics | FileCheck %s

// Two accumulators that swap roles through scf.for iteration arguments: only the loop's
// MMA and load name them, through %cur and %next. Each is a 128 x 128 f32 Layout D
// accumulator (M = 128, cta_group::1: 9.7.16.10.5), 128 columns on all lanes; the load
// of 32 f32 columns is one .32x32b.x32 message per warp (Table 47).
// CHECK-LABEL: func.func @through_iteration_arguments
// CHECK:      %[[A0:.*]] = "tcgen05.tmem_buffer"() {columns = 128 : i64, half_lanes = false, layout = "D", name = "acc0", role = "d"}
// CHECK-NEXT: %[[A1:.*]] = "tcgen05.tmem_buffer"() {columns = 128 : i64, half_lanes = false, layout = "D", name = "acc1", role = "d"}
// CHECK:      scf.for {{.*}} iter_args(%[[CUR:.*]] = %[[A0]], %[[NEXT:.*]] = %[[A1]])
// CHECK:      "tcgen05.mma"(%[[NEXT]],
// CHECK-SAME: layout = "D"
// CHECK:      "tcgen05.ld"(%[[CUR]], %{{.*}}) {num = 32 : i64, shape = "32x32b"}
func.func @through_iteration_arguments(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !tcgen05.tmem<[128, 128], f32>
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !tcgen05.tmem<[128, 128], f32>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%cur = %acc0, %next = %acc1)
      -> (!tcgen05.tmem<[128, 128], f32>, !tcgen05.tmem<[128, 128], f32>) {
    "tcgen05.mma"(%next, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %x = "tcgen05.ld"(%cur, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    scf.yield %next, %cur : !tcgen05.tmem<[128, 128], f32>, !tcgen05.tmem<[128, 128], f32>
  }
  return
}

// -----

// M = 64 accumulators picked by arith.select: both get Layout F (9.7.16.10.5), 64 columns
// on 16 lanes of each quarter (half lanes); the load through the select uses the
// half-datapath shape .16x32bx2 (Table 47): each warp's 16 rows x 32 columns are 16
// registers per thread, threads 0-15 reading columns [0, 16) of their lane and threads
// 16-31 the 16 columns from immHalfSplitoff = 16.
// CHECK-LABEL: func.func @through_select
// CHECK:      "tcgen05.tmem_buffer"() {columns = 64 : i64, half_lanes = true, layout = "F", name = "m0", role = "d"}
// CHECK-NEXT: "tcgen05.tmem_buffer"() {columns = 64 : i64, half_lanes = true, layout = "F", name = "m1", role = "d"}
// CHECK:      %[[PICK:.*]] = arith.select
// CHECK:      "tcgen05.ld"(%[[PICK]], %{{.*}}) {half_split = 16 : i64, num = 16 : i64, shape = "16x32bx2"}
func.func @through_select(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %m0 = "tcgen05.tmem_buffer"() {name = "m0"} : () -> !tcgen05.tmem<[64, 64], f32>
  %m1 = "tcgen05.tmem_buffer"() {name = "m1"} : () -> !tcgen05.tmem<[64, 64], f32>
  %pick = arith.select %flag, %m0, %m1 : !tcgen05.tmem<[64, 64], f32>
  "tcgen05.mma"(%pick, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %x = "tcgen05.ld"(%pick, %c0) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 32], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[64, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// One plan serves every buffer a load may read: a Layout F accumulator (M = 64) and a
// Layout E one (M = 64, .ws) hold their elements on different lanes (9.7.16.10.5).
func.func @chosen_buffers_of_two_layouts(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %m0 = "tcgen05.tmem_buffer"() {name = "f"} : () -> !tcgen05.tmem<[64, 64], f32>
  %m1 = "tcgen05.tmem_buffer"() {name = "e"} : () -> !tcgen05.tmem<[64, 64], f32>
  "tcgen05.mma"(%m0, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%m1, %a, %b, %f) {kind = "f16", ws = true} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %pick = arith.select %flag, %m0, %m1 : !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{tcgen05.ld of a buffer chosen at run time: %f has Layout F (role d) but %e has Layout E (role d); one access is planned for both, so their layouts must agree}}
  %x = "tcgen05.ld"(%pick, %c0) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 32], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[64, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// An MMA through a select uses both buffers: one of them is already another MMA's
// Layout E accumulator.
func.func @chosen_buffer_with_another_use(%flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %m0 = "tcgen05.tmem_buffer"() {name = "m0"} : () -> !tcgen05.tmem<[64, 64], f32>
  %m1 = "tcgen05.tmem_buffer"() {name = "m1"} : () -> !tcgen05.tmem<[64, 64], f32>
  "tcgen05.mma"(%m1, %a, %b, %f) {kind = "f16", ws = true} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %pick = arith.select %flag, %m0, %m1 : !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{%m1 is used as d with Layout F here but as d with Layout E by an earlier MMA; one buffer has one role and layout}}
  "tcgen05.mma"(%pick, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A value made by an op that is not followed (scf.execute_region) may name any buffer.
func.func @untraced_buffer(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 64], f32>
  %r = scf.execute_region -> !tcgen05.tmem<[128, 64], f32> {
    scf.yield %acc : !tcgen05.tmem<[128, 64], f32>
  }
  // expected-error @+1 {{tcgen05.ld of a TMEM value that is not a tcgen05.tmem_buffer result, a tcgen05.tmem_stage of one, or a select, branch or loop value that only such values reach}}
  %x = "tcgen05.ld"(%r, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}
