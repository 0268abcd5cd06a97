// strategy=conservative completes every asynchronous op right after it is issued
// (commit -> mbarrier wait -> fence::after_thread_sync; wait::ld; fence.proxy.async ->
// barrier), then adds the cross-thread steps the dependences still need. strategy=minimal
// adds only what the dependences need. report=true lists what was added, and why.
// RUN: tcgen05-opt %s -p 'tcgen05-insert-sync{strategy=conservative}' | FileCheck %s --check-prefix=CONS
// RUN: tcgen05-opt %s -p 'tcgen05-insert-sync{strategy=conservative},tcgen05-verify-sync' -o /dev/null
// RUN: tcgen05-opt %s -p 'tcgen05-insert-sync{report=true}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: tcgen05-opt %s -p 'tcgen05-insert-sync{strategy=conservative report=true}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT-CONS

// CONS-LABEL: func.func @tile
// CONS-COUNT-2: "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CONS:      "tcgen05.smem_fill"
// CONS-NEXT: "tcgen05.fence_proxy_async"() {reason = "conservative: completion of tcgen05.smem_fill at line {{[0-9]+}} right after it"}
// CONS-NEXT: "tcgen05.barrier"
// CONS-NEXT: "tcgen05.smem_fill"
// CONS-NEXT: "tcgen05.fence_proxy_async"
// CONS-NEXT: "tcgen05.barrier"
// CONS-NEXT: "tcgen05.mma"
// CONS-NEXT: "tcgen05.commit"([[M0:%[^)]+]])
// CONS-NEXT: arith.constant 0 : i32
// CONS-NEXT: "tcgen05.mbarrier_wait"([[M0]],
// CONS-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CONS-NEXT: "tcgen05.mma"
// CONS-NEXT: "tcgen05.commit"([[M1:%[^)]+]])
// CONS-NEXT: arith.constant 0 : i32
// CONS-NEXT: "tcgen05.mbarrier_wait"([[M1]],
// CONS-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CONS-NEXT: "tcgen05.ld"
// CONS-NEXT: "tcgen05.wait"() {kind = "ld"
// CONS-NEXT: "tcgen05.store_fragment"
// The warpgroup's loads are complete, but the allocating warp frees the columns: the
// cross-thread steps of 9.7.16.6.4.4 are still needed.
// CONS-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CONS-NEXT: "tcgen05.barrier"
// CONS-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CONS-NEXT: "tcgen05.dealloc"

// REPORT: tcgen05-insert-sync: kernel @tile strategy=minimal added 9 ops (1 commit, 1 mbarrier_wait, 1 wait::ld, 1 fence::before, 2 fence::after, 1 fence.proxy.async, 2 barrier), 1 mbarriers
// REPORT-NEXT: tcgen05.fence_proxy_async completion of tcgen05.smem_fill at line [[FILL:[0-9]+]], tcgen05.smem_fill at line {{[0-9]+}} before tcgen05.mma at line [[MMA:[0-9]+]]: RAW on a shared-memory tile
// REPORT-NEXT: tcgen05.barrier completion of tcgen05.smem_fill at line [[FILL]], {{.*}}
// REPORT-NEXT: tcgen05.commit completion of tcgen05.mma at line [[MMA]], tcgen05.mma at line {{[0-9]+}} before tcgen05.ld at line [[LD:[0-9]+]]: RAW on TMEM columns [0, 64)
// REPORT-NEXT: tcgen05.mbarrier_wait completion of tcgen05.mma at line [[MMA]], {{.*}} before tcgen05.ld at line [[LD]]
// REPORT-NEXT: tcgen05.fence::after_thread_sync completion of tcgen05.mma at line [[MMA]], {{.*}} before tcgen05.ld at line [[LD]]
// REPORT-NEXT: tcgen05.wait::ld completion of tcgen05.ld at line [[LD]] before tcgen05.dealloc at line {{[0-9]+}}: TMEM accesses before the columns are freed
// REPORT-NEXT: tcgen05.fence::before_thread_sync
// REPORT-NEXT: tcgen05.barrier
// REPORT-NEXT: tcgen05.fence::after_thread_sync

// REPORT-CONS: tcgen05-insert-sync: kernel @tile strategy=conservative added 14 ops (2 commit, 2 mbarrier_wait, 1 wait::ld, 1 fence::before, 3 fence::after, 2 fence.proxy.async, 3 barrier), 2 mbarriers
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @tile(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
