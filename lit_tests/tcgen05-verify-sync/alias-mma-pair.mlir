// Two tcgen05.mma of different accumulators are no pipelined pair (9.7.16.6.2: "same N
// and accumulator and shape"), even where their accumulators share no cell: when the
// second writes its D over the cells the first reads as A in tensor memory (P written
// over S, tcgen05_lower/planning/aliases.py), the first must have completed (commit ->
// mbarrier wait -> fence::after_thread_sync, 9.7.16.6.4.2). Expected messages: that
// rule; P is columns 0-7 of S (a [128, 16] bf16 A operand packs two elements per
// column, tmem-facts section 1).
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-verify-sync' --split-input-file --verify-diagnostics

!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 16], bf16>
!q = !tcgen05.smem<[128, 16], bf16, "K", "none">
!k = !tcgen05.smem<[64, 16], bf16, "K", "none">
!fs = !tcgen05.frag<[128, 16], f32>
!fp = !tcgen05.frag<[128, 16], bf16>
!fo = !tcgen05.frag<[128, 64], f32>
func.func @s_over_p_unordered(%O: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !k
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !p
  %o = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  "tcgen05.mma"(%s, %q, %k, %f) {kind = "f16"} : (!s, !q, !k, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  %x = "tcgen05.ld"(%s, %c0) : (!s, index) -> !fs
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %row: index, %col: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!fs) -> !fp
  "tcgen05.st"(%p, %c0, %y) : (!p, index, !fp) -> ()
  "tcgen05.wait"() {kind = "st"} : () -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.barrier"() : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.mma"(%o, %p, %v, %f) {kind = "f16"} : (!s, !p, !k, i1) -> ()
  // expected-error @below {{tcgen05.mma writes TMEM columns [0, 64) that tcgen05.mma at line 46:3 reads, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.2)}}
  "tcgen05.mma"(%s, %q, %k, %f) {kind = "f16"} : (!s, !q, !k, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p1) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  %r = "tcgen05.ld"(%o, %c0) : (!s, index) -> !fo
  "tcgen05.store_fragment"(%r, %O, %c0) {ld = 64 : i64} : (!fo, !llvm.ptr<1>, index) -> ()
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.barrier"() : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}

// -----

// The same with P V completed before S is written over P: ordered (no diagnostic).
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 16], bf16>
!q = !tcgen05.smem<[128, 16], bf16, "K", "none">
!k = !tcgen05.smem<[64, 16], bf16, "K", "none">
!fs = !tcgen05.frag<[128, 16], f32>
!fp = !tcgen05.frag<[128, 16], bf16>
!fo = !tcgen05.frag<[128, 64], f32>
func.func @s_over_p_ordered(%O: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %pv_done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !k
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !p
  %o = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  "tcgen05.mma"(%s, %q, %k, %f) {kind = "f16"} : (!s, !q, !k, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  %x = "tcgen05.ld"(%s, %c0) : (!s, index) -> !fs
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %row: index, %col: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!fs) -> !fp
  "tcgen05.st"(%p, %c0, %y) : (!p, index, !fp) -> ()
  "tcgen05.wait"() {kind = "st"} : () -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.barrier"() : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.mma"(%o, %p, %v, %f) {kind = "f16"} : (!s, !p, !k, i1) -> ()
  "tcgen05.commit"(%pv_done) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%pv_done, %p0) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.mma"(%s, %q, %k, %f) {kind = "f16"} : (!s, !q, !k, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p1) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  %r = "tcgen05.ld"(%o, %c0) : (!s, index) -> !fo
  "tcgen05.store_fragment"(%r, %O, %c0) {ld = 64 : i64} : (!fo, !llvm.ptr<1>, index) -> ()
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.barrier"() : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
