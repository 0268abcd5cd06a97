// Programs whose synchronization is written by hand and complete: tcgen05-verify-sync
// accepts them and, with report=true, says so per kernel.
// RUN: tcgen05-opt %s -p 'tcgen05-verify-sync{report=true}' --split-input-file -o /dev/null 2>&1 | FileCheck %s
// CHECK-NOT: error

// 9.7.16.6.4.3 written out: the pipelined pair cp -> mma, ordered across threads by
// fence::before_thread_sync, an execution barrier and fence::after_thread_sync.
// CHECK: tcgen05-verify-sync: kernel @pipelined_across_threads: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 128], f32>
!at = !tcgen05.tmem<[128, 16], bf16>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[128, 16], bf16, "K", "none">
func.func @pipelined_across_threads()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %at = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  "tcgen05.cp"(%at, %a) {shape = "128x256b"} : (!at, !ta) -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.barrier"() : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.mma"(%acc, %at, %b, %f) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
  return
}

// -----

// A K loop with the wait at the top of the body for the previous iteration's commit:
// parity (k + 1) mod 2, so the first iteration waits for the phase before the first,
// which a fresh mbarrier reports complete; after the loop, the wait for the last of the 4
// commits (parity 1), then the accumulator is read.
// CHECK: tcgen05-verify-sync: kernel @wait_at_top: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @wait_at_top(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c4 step %c1 {
    %k1 = arith.addi %k, %c1 : index
    %bit = arith.andi %k1, %c1 : index
    %parity = arith.index_cast %bit : index to i32
    "tcgen05.mbarrier_wait"(%bar, %parity) : (!tcgen05.mbarrier, i32) -> ()
    "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
    "tcgen05.fence_proxy_async"() : () -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  }
  "tcgen05.mbarrier_wait"(%bar, %p1) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.barrier"() : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// An mbarrier that expects two arrivals per phase: two commits complete phase 0.
// CHECK: tcgen05-verify-sync: kernel @two_arrivals: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @two_arrivals(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 2 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  %x = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Two MMAs of one shape, the second on an accumulator an scf.if chooses between %a0 and
// the disjoint %a1: the same accumulator (a pipelined pair, 9.7.16.6.2) or cells the
// first does not touch, whichever the branch takes. Nothing is needed.
// CHECK: tcgen05-verify-sync: kernel @disjoint_choice: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @disjoint_choice(%n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %a0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %a1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %p = arith.cmpi ne, %n, %c0 : index
  %s = scf.if %p -> (!acc) {
    scf.yield %a0 : !acc
  } else {
    scf.yield %a1 : !acc
  }
  "tcgen05.mma"(%a0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%s, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  return
}
