// The physical allocation: one tcgen05.alloc at kernel entry (cta_group::2: the same
// columns in each CTA of the pair, one warp of each, 9.7.16.7.1), relinquish right after
// unless the kernel allocates tensor memory itself later, a dealloc before every return.
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem' --split-input-file | FileCheck %s

!acc = !tcgen05.tmem<[256, 256], f32>
!ta = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[256, 64], bf16, "K", "128B">

// M = 256 with cta_group::2 is Layout A: 128 rows per CTA, 256 columns in each CTA.
// CHECK-LABEL: func.func @pair
// CHECK-NEXT: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 2 : i64}
// CHECK-NEXT: "tcgen05.relinquish_alloc_permit"() {cta_group = 2 : i64}
// CHECK: "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 256 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"
// CHECK: "tcgen05.dealloc"([[BASE]]) {columns = 256 : i64, cta_group = 2 : i64}
// CHECK-NEXT: return
func.func @pair() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  return
}

// -----

!acc = !tcgen05.tmem<[128, 128], f32>
!frag = !tcgen05.frag<[128, 32], f32>

// Several returns (cf branches): a dealloc before each.
// CHECK-LABEL: func.func @two_exits
// CHECK: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 128 : i64
// CHECK: cf.cond_br
// CHECK: "tcgen05.dealloc"([[BASE]]) {columns = 128 : i64, cta_group = 1 : i64}
// CHECK-NEXT: return
// CHECK: "tcgen05.dealloc"([[BASE]]) {columns = 128 : i64, cta_group = 1 : i64}
// CHECK-NEXT: return
func.func @two_exits(%flag: i1) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  cf.cond_br %flag, ^bb1, ^bb2
^bb1:
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  return
^bb2:
  return
}

// -----

!acc = !tcgen05.tmem<[128, 128], f32>
!frag = !tcgen05.frag<[128, 32], f32>

// The kernel allocates 64 columns itself after the planner's 128 (not increasing, so
// legal); the planner gives up no permit, since that would make the later alloc illegal.
// An alloc of 256 in one branch and 64 in the other never follow each other.
// CHECK-LABEL: func.func @with_own_allocations
// CHECK-NEXT: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64}
// CHECK-NOT: relinquish_alloc_permit
// CHECK: "tcgen05.alloc"() {columns = 64 : i64
// CHECK: "tcgen05.dealloc"([[BASE]]) {columns = 128 : i64
func.func @with_own_allocations() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  %own = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  "tcgen05.dealloc"(%own) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @branches_do_not_follow_each_other
// CHECK: "tcgen05.alloc"() {columns = 256 : i64
// CHECK: "tcgen05.alloc"() {columns = 512 : i64
func.func @branches_do_not_follow_each_other(%flag: i1) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  scf.if %flag {
    %a = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
    "tcgen05.dealloc"(%a) {columns = 256 : i64, cta_group = 1 : i64} : (i32) -> ()
  } else {
    %b = "tcgen05.alloc"() {columns = 512 : i64, cta_group = 1 : i64} : () -> i32
    "tcgen05.dealloc"(%b) {columns = 512 : i64, cta_group = 1 : i64} : (i32) -> ()
  }
  return
}
