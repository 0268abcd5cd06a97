// tcgen05-plan-tmem: buffers share columns exactly when their live ranges are disjoint;
// the allocation is the smallest power of two in [32, 512] columns that holds the plan
// (9.7.16.7.1: "The unit of allocation is 32 columns and the number of columns being
// allocated must be a power of 2"), made once at kernel entry and freed before return.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem' --split-input-file | FileCheck %s

// acc1 is defined after the last use of acc0, so it takes acc0's columns: 256 in all.
// CHECK-LABEL: func.func @disjoint
// CHECK: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
// CHECK-NEXT: "tcgen05.relinquish_alloc_permit"() {cta_group = 1 : i64}
// CHECK-NOT: "tcgen05.alloc"
// CHECK: [[ACC0:%.+]] = "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 256 : i64
// CHECK-SAME: name = "acc0"
// CHECK: "tcgen05.ld"([[ACC0]]
// CHECK: [[ACC1:%.+]] = "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 256 : i64
// CHECK-SAME: name = "acc1"
// CHECK: "tcgen05.ld"([[ACC1]]
// CHECK: "tcgen05.dealloc"([[BASE]]) {columns = 256 : i64, cta_group = 1 : i64} : (i32) -> ()
// CHECK-NEXT: return
func.func @disjoint(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  %f0 = "tcgen05.ld"(%acc0, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%f0, %C, %c0) {ld = 256 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  %f1 = "tcgen05.ld"(%acc1, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%f1, %C, %c0) {ld = 256 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The same two accumulators, both written before either is read: live together, so
// acc1 goes after acc0 and the allocation is 2 x 256 = 512, all of tensor memory.
// CHECK-LABEL: func.func @overlapping
// CHECK: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 512 : i64, cta_group = 1 : i64}
// CHECK: "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 256 : i64
// CHECK-SAME: name = "acc0"
// CHECK: "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 256 : i64, columns = 256 : i64
// CHECK-SAME: name = "acc1"
// CHECK: "tcgen05.dealloc"([[BASE]]) {columns = 512 : i64, cta_group = 1 : i64}
// CHECK-NEXT: return
func.func @overlapping(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !tcgen05.tmem<[128, 256], f32>
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  %f0 = "tcgen05.ld"(%acc0, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%f0, %C, %c0) {ld = 256 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  %f1 = "tcgen05.ld"(%acc1, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%f1, %C, %c0) {ld = 256 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// 256 + 64 = 320 live columns: the next power of two is 512.
// CHECK-LABEL: func.func @round_up
// CHECK: "tcgen05.alloc"() {columns = 512 : i64, cta_group = 1 : i64}
// CHECK: "tcgen05.tmem_buffer"({{%.+}}) {column_offset = 0 : i64, columns = 256 : i64
// CHECK: "tcgen05.tmem_buffer"({{%.+}}) {column_offset = 256 : i64, columns = 64 : i64
// CHECK: "tcgen05.dealloc"({{%.+}}) {columns = 512 : i64, cta_group = 1 : i64}
func.func @round_up() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %big = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  %small = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %f0 = "tcgen05.ld"(%big, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f1 = "tcgen05.ld"(%small, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// 8 columns still allocate the minimum unit of 32.
// CHECK-LABEL: func.func @minimum_unit
// CHECK: "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64}
// CHECK: "tcgen05.tmem_buffer"({{%.+}}) {column_offset = 0 : i64, columns = 8 : i64
// CHECK: "tcgen05.dealloc"({{%.+}}) {columns = 32 : i64, cta_group = 1 : i64}
func.func @minimum_unit() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 8], f32>
  %f0 = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 8], f32>, index) -> !tcgen05.frag<[128, 8], f32>
  return
}

// -----

// Loops. %x is defined before the loop and read at the top of its body; %y is defined in
// the body after that read. In program order %x's last use comes before %y, but the next
// iteration reads %x again, so %x must keep its cells until the loop ends and %y must not
// take them. After the loop neither is live, so %z reuses column 0.
// CHECK-LABEL: func.func @live_across_loop
// CHECK: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 512 : i64, cta_group = 1 : i64}
// CHECK: [[X:%.+]] = "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 256 : i64
// CHECK-SAME: name = "x"
// CHECK: scf.for
// CHECK: "tcgen05.ld"([[X]]
// CHECK: "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 256 : i64, columns = 256 : i64
// CHECK-SAME: name = "y"
// CHECK: {{^ +}$}}
// CHECK: "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 128 : i64
// CHECK-SAME: name = "z"
// CHECK: "tcgen05.dealloc"([[BASE]]) {columns = 512 : i64, cta_group = 1 : i64}
func.func @live_across_loop(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %x = "tcgen05.tmem_buffer"() {name = "x"} : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.mma"(%x, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  scf.for %i = %c0 to %c4 step %c1 {
    %fx = "tcgen05.ld"(%x, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%fx, %C, %c0) {ld = 256 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    %y = "tcgen05.tmem_buffer"() {name = "y"} : () -> !tcgen05.tmem<[128, 256], f32>
    "tcgen05.mma"(%y, %a, %b, %f) {kind = "f16"}
        : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
    %fy = "tcgen05.ld"(%y, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%fy, %C, %c0) {ld = 256 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  %z = "tcgen05.tmem_buffer"() {name = "z"} : () -> !tcgen05.tmem<[128, 128], f32>
  %fz = "tcgen05.ld"(%z, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// Two M = 64 (Layout F) accumulators live together take the two lane halves of the same
// 128 columns (9.7.16.10.5: lane alignment 0 or 16); a third, live with both, needs new
// columns: 256 in all.
// CHECK-LABEL: func.func @half_lanes
// CHECK: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64}
// CHECK: "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = true, lane_offset = 0 : i64
// CHECK: "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = true, lane_offset = 16 : i64
// CHECK: "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 128 : i64, columns = 128 : i64, half_lanes = true, lane_offset = 0 : i64
func.func @half_lanes() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 128], f32>
  %acc1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 128], f32>
  %acc2 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 128], f32>
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 128], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 128], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc2, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 128], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}
