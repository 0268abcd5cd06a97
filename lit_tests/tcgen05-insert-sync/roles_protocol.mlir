// The planned protocol of a warp-specialized kernel written with no synchronization
// (examples/ws_gemm_bf16_auto.mlir: load warp fills a 2-stage smem ring, MMA warp, one
// epilogue warpgroup). Expected, from the 9.7.16.6.4 canonical patterns and 9.7.16.6.5
// (derived by hand in docs/partitions.md; the same ops examples/ws_gemm_bf16.mlir writes
// by hand): per stage a full mbarrier (count 32, the load warp's threads) and an empty
// one (count 1); load role: wait empty (parity (i + 1) & 1), fills, fence.proxy.async,
// arrive full; MMA role: wait full (parity i & 1), MMAs, commit empty; after the K loop a
// commit to the accumulator's mbarrier; epilogue: wait (phase 0), fence::after_thread_sync,
// loads, wait::ld, fence::before_thread_sync; after the join fence::after_thread_sync.
// The load role ends with the producer tail: a wait on each empty mbarrier for the phase
// of the last commit to it (the arrivals of two commits are not ordered, 9.7.16.12.1).
// Both strategies write the same protocol (it is minimal, docs/partitions.md).
// RUN: tcgen05-opt %examples/ws_gemm_bf16_auto.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' | FileCheck %s
// RUN: tcgen05-opt %examples/ws_gemm_bf16_auto.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=conservative}' | FileCheck %s
// RUN: tcgen05-opt %examples/ws_gemm_bf16_auto.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{report=true}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// REPORT: kernel @ws_gemm_bf16_auto strategy=minimal added 18 ops (3 commit, 7 mbarrier_wait, 1 wait::ld, 1 fence::before, 2 fence::after, 2 fence.proxy.async, 2 mbarrier_arrive), 5 mbarriers
// REPORT: mbarrier (count 32) full mbarrier of stage smem tile 0 and smem tile 2: each of the 32 threads of role 'load' (warp 0) arrives after its fills
// REPORT: tcgen05.mbarrier_wait smem_fill of smem tile 0 and smem tile 2 after the MMAs of iteration i - 1 that read them (empty mbarrier, parity (i + 1) & 1
// REPORT: tcgen05.fence_proxy_async smem_fill of smem tile 0 and smem tile 2 (generic proxy) -> mma reading them (async proxy), 9.7.16.6.5
// REPORT: tcgen05.mbarrier_wait producer tail: the last commit to the empty mbarrier of smem tile 0 and smem tile 2 by role 'mma' (warp 1) (iteration 1, parity 1)
// REPORT: tcgen05.commit the MMAs reading smem tile 0 and smem tile 2 release the stage
// REPORT: tcgen05.commit the MMAs into TMEM buffer 'acc' complete before role 'epilogue' (warps 4-7) loads it
// REPORT: tcgen05.wait::ld the loads of TMEM buffer 'acc' complete before the dealloc

// CHECK-LABEL: func.func @ws_gemm_bf16_auto
// CHECK-NOT: "tcgen05.partitions"
// CHECK: %[[FULL0:.*]] = "tcgen05.alloc_mbarrier"() {count = 32 : i64}
// CHECK: %[[EMPTY0:.*]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK: %[[FULL1:.*]] = "tcgen05.alloc_mbarrier"() {count = 32 : i64}
// CHECK: %[[EMPTY1:.*]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK: %[[ACC:.*]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK: "tcgen05.partitions"
// Load role
// CHECK: scf.for %[[K:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:[^ ]*]]
// CHECK: %[[OFF:.*]] = arith.subi %[[K]], %[[LB]]
// CHECK: %[[I:.*]] = arith.divui %[[OFF]], %[[STEP]]
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %{{.*}}
// CHECK: %[[BIT:.*]] = arith.andi %[[I1]], %{{.*}}
// CHECK: %[[PE:.*]] = arith.index_cast %[[BIT]] : index to i32
// CHECK: "tcgen05.mbarrier_wait"(%[[EMPTY0]], %[[PE]])
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.fence_proxy_async"
// CHECK-NEXT: "tcgen05.mbarrier_arrive"(%[[FULL0]])
// CHECK: "tcgen05.mbarrier_wait"(%[[EMPTY1]], %{{.*}})
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.fence_proxy_async"
// CHECK-NEXT: "tcgen05.mbarrier_arrive"(%[[FULL1]])
// CHECK-NEXT: {{^ *}}}
// The producer tail: the loop runs 2 iterations (K = 0, 128 of 256), one commit to each
// empty mbarrier per iteration, the last (iteration 1) in phase 1: after the loop a wait
// for parity 1 on each, in stage order.
// CHECK-NEXT: %[[T0:.*]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[EMPTY0]], %[[T0]]) {reason = "producer tail
// CHECK-NEXT: %[[T1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[EMPTY1]], %[[T1]]) {reason = "producer tail
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: name = "load"
// MMA role
// CHECK: scf.for %[[KM:.*]] = %[[LBM:.*]] to %{{.*}} step %[[STEPM:[^ ]*]]
// CHECK: %[[OFFM:.*]] = arith.subi %[[KM]], %[[LBM]]
// CHECK: %[[IM:.*]] = arith.divui %[[OFFM]], %[[STEPM]]
// CHECK: %[[BITM:.*]] = arith.andi %[[IM]], %{{.*}}
// CHECK: %[[PF:.*]] = arith.index_cast %[[BITM]] : index to i32
// CHECK: "tcgen05.mbarrier_wait"(%[[FULL0]], %[[PF]])
// CHECK-COUNT-4: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"(%[[EMPTY0]])
// CHECK: "tcgen05.mbarrier_wait"(%[[FULL1]], %{{.*}})
// CHECK-COUNT-4: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"(%[[EMPTY1]])
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: "tcgen05.commit"(%[[ACC]])
// CHECK: name = "mma"
// Epilogue role
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[ACC]], %[[Z]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: scf.for
// CHECK: "tcgen05.ld"
// CHECK: {{^ *}}}
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld"
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK: name = "epilogue"
// CHECK: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.dealloc"
