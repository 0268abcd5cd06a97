// tcgen05-insert-sync: the canonical synchronization patterns of PTX ISA 9.7.16.6.4, one
// dependence at a time, on planned kernels that contain no sync op of their own.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' --split-input-file | FileCheck %s

// One straight-line tile: fill -> MMA -> MMA -> ld -> store -> dealloc.
// CHECK-LABEL: func.func @straight_line
// One mbarrier, initialized for one arrival (the arrive::one of tcgen05.commit).
// CHECK: [[MBAR:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
// CHECK-NOT: "tcgen05.alloc_mbarrier"
//
// Generic-proxy writes of the fills, then the MMA reads the tiles through the async proxy
// (9.7.16.6.5): every writing thread fences the proxies, then a barrier lets the issuing
// thread go.
// CHECK: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.fence_proxy_async"() {reason = "completion of tcgen05.smem_fill
// CHECK-NEXT: "tcgen05.barrier"() {reason = "completion of tcgen05.smem_fill
// CHECK-NEXT: "tcgen05.mma"([[ACC:%[^,]+]],
//
// 9.7.16.6.4.1: MMAs on the same accumulator and shape from the same thread are pipelined;
// nothing goes between them.
// CHECK-NEXT: "tcgen05.mma"([[ACC]],
//
// 9.7.16.6.4.4 (Example 2, mma by one thread, ld by the warpgroup): commit to the
// mbarrier, every thread waits for the phase, then fence::after_thread_sync because
// tcgen05.ld is asynchronous. The first completion of a fresh mbarrier completes phase 0,
// so the parity waited for is 0.
// CHECK-NEXT: "tcgen05.commit"([[MBAR]]) {reason = "completion of tcgen05.mma
// CHECK-NEXT: [[PHASE:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[PHASE]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: [[FRAG:%.+]] = "tcgen05.ld"([[ACC]],
//
// 9.7.16.6.4.5: a true register dependency on tcgen05.ld is respected without any
// synchronization, so the store of the loaded registers follows the load directly.
// CHECK-NEXT: "tcgen05.store_fragment"([[FRAG]],
//
// 9.7.16.6.4.4 (Example 1): before warp 0 frees the columns, every warp waits for its own
// loads (wait::ld), then fence::before_thread_sync, a barrier, fence::after_thread_sync.
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"()
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.dealloc"
// CHECK-NEXT: return
func.func @straight_line(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 16 : i64}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// MMAs into two different accumulators touch different cells: no dependence, nothing
// between them, and the tiles need the proxy fence only once.
// CHECK-LABEL: func.func @independent_accumulators
// CHECK: "tcgen05.fence_proxy_async"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.mma"([[ACC0:%[^,]+]],
// CHECK-NEXT: "tcgen05.mma"([[ACC1:%[^,]+]],
// CHECK-NEXT: "tcgen05.mma"([[ACC0]],
// CHECK-NEXT: "tcgen05.mma"([[ACC1]],
// CHECK-NEXT: "tcgen05.commit"
func.func @independent_accumulators(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %acc1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %t) {kind = "f16", k_offset = 16 : i64}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %t) {kind = "f16", k_offset = 16 : i64}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Refilling a tile that an MMA reads: the MMA's async-proxy reads must be complete before
// the generic writes start (commit + mbarrier wait; no tcgen05 op follows, so no
// fence::after_thread_sync), and the new contents need the proxy fence and a barrier
// before the next MMA reads them.
// The two completion points share one mbarrier (made at kernel entry): both commits and
// their waits are straight-line code, and the barrier before the second MMA separates the
// first wait from the second commit, so the first commit completes phase 0 (parity 0)
// and the second phase 1 (parity 1).
// CHECK-LABEL: func.func @refill_tile
// CHECK: [[MBAR:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK-NOT: "tcgen05.alloc_mbarrier"
// CHECK: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[MBAR]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}} before tcgen05.smem_fill
// CHECK-NEXT: [[PHASE:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[PHASE]])
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.fence_proxy_async"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[MBAR]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}}, tcgen05.mma at line {{[0-9]+}} before tcgen05.dealloc
// CHECK-NEXT: [[PHASE1:%.+]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[PHASE1]])
func.func @refill_tile(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], bf16, "K", "none">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 16], bf16, "K", "none">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 32 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 16], bf16, "K", "none">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 32 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[64, 16], bf16, "K", "none">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 16], bf16, "K", "none">,
         !tcgen05.smem<[64, 16], bf16, "K", "none">, i1) -> ()
  "tcgen05.smem_fill"(%A, %a, %c16) {src_layout = "mn_k", src_ld = 32 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 16], bf16, "K", "none">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 16], bf16, "K", "none">,
         !tcgen05.smem<[64, 16], bf16, "K", "none">, i1) -> ()
  return
}

// -----

// MMAs still in flight at the end complete before the columns are freed: commit, every
// thread waits on the mbarrier, fence::after_thread_sync (9.7.16.6.4.4, Example 2), then
// warp 0's dealloc. No thread has a tcgen05 access of its own left to order, so nothing
// more is needed.
// CHECK-LABEL: func.func @mma_in_flight_at_dealloc
// CHECK: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"({{%.+}}) {reason = "completion of tcgen05.mma at line {{[0-9]+}} before tcgen05.dealloc
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.dealloc"
func.func @mma_in_flight_at_dealloc(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Write after read across threads: the warpgroup loads the accumulator, then one thread's
// MMA overwrites it. 9.7.16.6.4.4, Example 1: each warp waits for its loads (wait::ld),
// fence::before_thread_sync, a barrier, fence::after_thread_sync, then the MMA.
// CHECK-LABEL: func.func @reuse_after_epilogue
// CHECK: "tcgen05.ld"([[ACC:%[^,]+]],
// CHECK-NEXT: "tcgen05.store_fragment"
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line {{[0-9]+}} before tcgen05.mma at line {{[0-9]+}}: WAR
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.mma"([[ACC]],
func.func @reuse_after_epilogue(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[32, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1) -> ()
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// The same dependence carried by a loop: the MMA of iteration i+1 overwrites what the
// warpgroup loaded in iteration i. The cross-thread pattern goes at the end of the body
// (the first iteration has nothing to wait for); the MMA -> ld dependence inside one
// iteration waits for this iteration's phase, parity (i - lb) / step mod 2.
// CHECK-LABEL: func.func @epilogue_in_loop
// CHECK: scf.for [[I:%[^ ]+]] = [[LB:%[^ ]+]] to {{%[^ ]+}} step [[STEP:%[^ ]+]] {
// CHECK-NEXT: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[MBAR:%[^)]+]])
// CHECK-NEXT: [[OFFSET:%.+]] = arith.subi [[I]], [[LB]] : index
// CHECK-NEXT: [[ITER:%.+]] = arith.divui [[OFFSET]], [[STEP]] : index
// CHECK-NEXT: [[ONE:%.+]] = arith.constant 1 : index
// CHECK-NEXT: [[BIT:%.+]] = arith.andi [[ITER]], [[ONE]] : index
// CHECK-NEXT: [[PARITY:%.+]] = arith.index_cast [[BIT]] : index to i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[PARITY]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.ld"
// CHECK-NEXT: "tcgen05.store_fragment"
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld", reason = "{{.*}}WAR{{.*}}(next iteration)"}
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync", reason = "{{.*}}(next iteration)"}
// CHECK-NEXT: "tcgen05.barrier"() {reason = "{{.*}}(next iteration)"}
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync", reason = "{{.*}}(next iteration)"}
// CHECK-NEXT: {{^ *}$}}
func.func @epilogue_in_loop(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[32, 64], bf16, "K", "128B">, index) -> ()
  scf.for %i = %c0 to %c4 step %c1 {
    "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
        : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1) -> ()
    %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}

// -----

// A load whose registers are never used is still waited for before the dealloc
// (9.7.16.6.4.4: ld, wait::ld, fence::before_thread_sync, sync, fence::after_thread_sync).
// CHECK-LABEL: func.func @ld_in_flight_at_dealloc
// CHECK: "tcgen05.ld"
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line {{[0-9]+}} before tcgen05.dealloc
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.dealloc"
func.func @ld_in_flight_at_dealloc()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %frag = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// Two MMAs into two accumulators from the same tiles, each loaded after its MMA: the
// load of the first accumulator waits on the first commit, and no barrier lies between
// that wait and the second commit (nothing needs one). A thread still in the first wait
// could then see the second commit complete the next phase too, so the two commits keep
// an mbarrier each, both waited for with parity 0.
// CHECK-LABEL: func.func @no_barrier_between_wait_and_commit
// CHECK-COUNT-2: "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK: "tcgen05.commit"([[FIRST:%[^)]+]])
// CHECK-NEXT: [[P0:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[FIRST]], [[P0]])
// CHECK-NOT: "tcgen05.barrier"
// CHECK: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[SECOND:%[^)]+]])
// CHECK-NOT: "tcgen05.commit"([[FIRST]])
// CHECK: [[P1:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[SECOND]], [[P1]])
func.func @no_barrier_between_wait_and_commit(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %acc1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64}
      : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64}
      : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The same kernel with a barrier of its own between the first load and the second MMA:
// every thread has passed the first wait before the second commit is issued, so the two
// commits share one mbarrier, phases 0 and 1.
// CHECK-LABEL: func.func @own_barrier_between_wait_and_commit
// CHECK: [[MBAR:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK-NOT: "tcgen05.alloc_mbarrier"
// CHECK: "tcgen05.commit"([[MBAR]])
// CHECK-NEXT: [[P0:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[P0]])
// CHECK: "tcgen05.barrier"() : () -> ()
// CHECK-NEXT: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[MBAR]])
// CHECK-NEXT: [[P1:%.+]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[P1]])
func.func @own_barrier_between_wait_and_commit(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %acc1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.barrier"() : () -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64}
      : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64}
      : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  return
}
