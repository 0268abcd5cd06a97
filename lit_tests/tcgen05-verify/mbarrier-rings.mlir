// mbarrier rings (tcgen05.alloc_mbarrier {stages = S}, tcgen05.mbarrier_stage) and
// tcgen05.tma_load without its mbarrier operand: the rules tcgen05-verify applies, one
// kernel per case. Expected texts written from the dialect's definition of the ops
// (dialect/tcgen05.irdl.mlir): a ring has 1 to 256 stages; it is used only through
// mbarrier_stage; a constant stage index lies in 0 .. S - 1; a wait on a stage names its
// phase; a load without an mbarrier is accepted only inside a tcgen05.role (where
// tcgen05-insert-sync chooses it); operand 2 of a load is an mbarrier or an index.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics | FileCheck %s

// Good input is accepted and printed unchanged: a 4-stage ring, stage k mod 4 picked at
// run time, waited on with its parity, and committed to.
// CHECK-LABEL: func.func @ring_ok
// CHECK: %[[RING:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
// CHECK: %[[STAGE:.+]] = "tcgen05.mbarrier_stage"(%[[RING]], %{{.+}}) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
// CHECK: "tcgen05.commit"(%[[STAGE]])
// CHECK: "tcgen05.mbarrier_wait"(%[[STAGE]], %{{.+}})
func.func @ring_ok(%k: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c4 = arith.constant 4 : index
  %p = arith.constant 0 : i32
  %ring = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
  %s = arith.remui %k, %c4 : index
  %stage = "tcgen05.mbarrier_stage"(%ring, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
  "tcgen05.commit"(%stage) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%stage, %p) : (!tcgen05.mbarrier, i32) -> ()
  return
}

// -----

func.func @ring_zero_stages() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{alloc_mbarrier stages = 0 is outside [1, 256]}}
  %ring = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 0 : i64} : () -> !tcgen05.mbarrier
  return
}

// -----

func.func @ring_too_deep() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{alloc_mbarrier stages = 257 is outside [1, 256]}}
  %ring = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 257 : i64} : () -> !tcgen05.mbarrier
  return
}

// -----

// A ring is not one mbarrier: a commit to the whole ring is refused at the commit.
func.func @ring_used_whole() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %ring = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  // expected-error @+1 {{the mbarrier ring of line 48 (2 stages) is used as a single mbarrier by tcgen05.commit: pick a stage with tcgen05.mbarrier_stage}}
  "tcgen05.commit"(%ring) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// A constant stage index past the ring's last stage.
func.func @stage_out_of_range() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c4 = arith.constant 4 : index
  %ring = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
  // expected-error @+1 {{stage 4 of an mbarrier ring of 4 stages (line 59), which has stages 0 to 3}}
  %stage = "tcgen05.mbarrier_stage"(%ring, %c4) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
  "tcgen05.commit"(%stage) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// mbarrier_stage of a single mbarrier.
func.func @stage_of_single() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  // expected-error @+1 {{tcgen05.mbarrier_stage takes an mbarrier ring (a tcgen05.alloc_mbarrier with stages = S, defined in the kernel), and its operand 0 is not one}}
  %stage = "tcgen05.mbarrier_stage"(%bar, %c0) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
  return
}

// -----

// A wait on a stage without its phase operand.
func.func @stage_wait_without_phase(%k: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %ring = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %stage = "tcgen05.mbarrier_stage"(%ring, %k) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
  "tcgen05.commit"(%stage) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{an mbarrier_wait on a stage of an mbarrier ring needs its phase operand}}
  "tcgen05.mbarrier_wait"(%stage) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// An arrival on a stage counts its role's threads against the ring's count: 32 threads
// of the CTA arrive here (outside roles: all 128) on stages of count 32.
func.func @stage_arrive_count() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c1 = arith.constant 1 : index
  %ring = "tcgen05.alloc_mbarrier"() {count = 32 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %stage = "tcgen05.mbarrier_stage"(%ring, %c1) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
  // expected-error @+1 {{tcgen05.mbarrier_arrive by the 128 threads of the CTA makes 128 arrivals, but the mbarrier (line 95) has count = 32, not a multiple of 128}}
  "tcgen05.mbarrier_arrive"(%stage) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// A TMA load without an mbarrier outside the roles of a partitions op: nothing adds one.
func.func @tma_without_barrier(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{this tcgen05.tma_load names no mbarrier and is not in a tcgen05.role: only tcgen05-insert-sync's protocol for warp roles chooses one (docs/tma.md); write the mbarrier operand after the tile}}
  "tcgen05.tma_load"(%tm, %a, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
  return
}

// -----

// Operand 2 of a load that is neither an mbarrier nor an index.
func.func @tma_operand_type(%A: !llvm.ptr<1>, %x: i32,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{operand 2 of tcgen05.tma_load is its !tcgen05.mbarrier or, without one, its first index coordinate, not i32}}
  "tcgen05.tma_load"(%tm, %a, %x, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i32, index) -> ()
  return
}
