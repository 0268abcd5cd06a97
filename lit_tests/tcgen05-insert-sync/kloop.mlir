// tcgen05-insert-sync on examples/gemm_bf16_kloop.mlir: a K loop that refills single-
// buffered tiles every iteration, then an epilogue loop that loads the accumulator.
// RUN: tcgen05-opt %examples/gemm_bf16_kloop.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' | FileCheck %s

// CHECK-LABEL: func.func @gemm_bf16_kloop
// CHECK: [[MBAR:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK-NOT: "tcgen05.alloc_mbarrier"
// CHECK: [[ACC:%.+]] = "tcgen05.tmem_buffer"
//
// Nothing is inserted between the loop header and the fills: the fills of iteration i+1
// must wait for the MMAs of iteration i, and that wait sits at the end of iteration i, so
// that the first iteration waits for nothing.
// CHECK-NEXT: scf.for [[K:%[^ ]+]] = [[LB:%[^ ]+]] to {{%[^ ]+}} step [[STEP:%[^ ]+]] {
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: arith.cmpi ne, [[K]]
// CHECK-NEXT: "tcgen05.fence_proxy_async"
// CHECK-NEXT: "tcgen05.barrier"
// The four MMAs on one accumulator are pipelined (9.7.16.6.4.1).
// CHECK-NEXT: "tcgen05.mma"([[ACC]],
// CHECK-NEXT: "tcgen05.mma"([[ACC]],
// CHECK-NEXT: "tcgen05.mma"([[ACC]],
// CHECK-NEXT: "tcgen05.mma"([[ACC]],
//
// End of the body: commit, then wait for this iteration's phase. One commit per iteration
// on a one-arrival mbarrier, so iteration (k - lb) / step completes phase number
// (k - lb) / step, and its parity is that number's low bit.
// CHECK-NEXT: "tcgen05.commit"([[MBAR]]) {reason = "completion of tcgen05.mma {{.*}} before tcgen05.smem_fill {{.*}}(next iteration)"}
// CHECK-NEXT: [[OFFSET:%.+]] = arith.subi [[K]], [[LB]] : index
// CHECK-NEXT: [[ITER:%.+]] = arith.divui [[OFFSET]], [[STEP]] : index
// CHECK-NEXT: [[ONE:%.+]] = arith.constant 1 : index
// CHECK-NEXT: [[BIT:%.+]] = arith.andi [[ITER]], [[ONE]] : index
// CHECK-NEXT: [[PARITY:%.+]] = arith.index_cast [[BIT]] : index to i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[PARITY]]) {reason = "completion of tcgen05.mma {{.*}} (next iteration)"}
// No tcgen05 fence in the K loop: the only consumers of the wait inside it are the fills
// (generic stores) and MMAs pipelined with the ones waited for.
// CHECK-NEXT: {{^ *}$}}
//
// The epilogue's loads need fence::after_thread_sync after that wait (9.7.16.6.4.4); it
// is placed once, before the epilogue loop, not in every iteration.
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: {{^ *}}scf.for
// The loaded registers are stored right away (tcgen05.ld respects true register
// dependencies, 9.7.16.6.4.5); the loads are waited for once, after the loop, before the
// columns are freed (9.7.16.6.4.4, Example 1).
// CHECK-NEXT: [[FRAG:%.+]] = "tcgen05.ld"([[ACC]],
// CHECK-NEXT: "tcgen05.store_fragment"([[FRAG]],
// CHECK-NEXT: {{^ *}$}}
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld"
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.dealloc"
// CHECK-NEXT: return
