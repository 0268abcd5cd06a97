// tcgen05-verify-sync on a cta_group::1 kernel launched in clusters whose commits are
// multicast (docs/tma.md, "Multicast across a cluster"): every CTA runs this program and
// commits, so each copy of an mbarrier that commits with a mask of n CTAs signal gets n
// arrivals a round; one CTA's program is checked with the count over n
// (multicast.per_cta_count), and a count n does not divide is an error. The kernel is
// the full/empty protocol of lit_tests/tcgen05-verify-sync/tma.mlir @ordered with the
// empty commit sent to both CTAs of a 2 x 1 cluster. Expected by hand from that rule.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

// Count 2 = both CTAs' commits: one per round for this CTA's program. No error.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
func.func @cluster_commit_counts_both_ctas(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64, cluster = array<i32: 2, 1>}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 2 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c2 step %c1 {
    "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.tma_load"(%tma, %a, %full, %k, %c0) : (!llvm.ptr<1>, !ta, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.tma_load"(%tmb, %b, %full, %k, %c0) : (!llvm.ptr<1>, !tb, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%empty) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
  }
  "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// Count 3: not a whole number of rounds of the 2 CTAs' commits.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
func.func @cluster_commit_count_not_a_multiple(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64, cluster = array<i32: 2, 1>}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 3 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c2 step %c1 {
    "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.tma_load"(%tma, %a, %full, %k, %c0) : (!llvm.ptr<1>, !ta, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.tma_load"(%tmb, %b, %full, %k, %c0) : (!llvm.ptr<1>, !tb, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    // expected-error @+1 {{the commits to this mbarrier signal 2 CTAs (multicast_mask = 0b11), one arrival from each per round, but it counts 3 arrivals a phase: a phase would complete before every CTA's MMAs have released it (its count must be a multiple of 2)}}
    "tcgen05.commit"(%empty) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
  }
  "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
