// A commit the kernel wrote covers the MMA the epilogue's tcgen05.ld depends on: the pass
// waits on that commit's mbarrier (no commit of its own), for the phase of the most recent
// commit to it, which the lowering tracks at run time (no phase operand), then
// fence::after_thread_sync (9.7.16.6.4.4). Expected by hand from the rules table of the
// pass; tcgen05-verify-sync accepts the result.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' | FileCheck %s
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync' -o /dev/null

// CHECK-LABEL: func.func @user_commit
// CHECK: [[M:%.+]] = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
// CHECK-NOT: "tcgen05.alloc_mbarrier"
// CHECK: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[M]]) : (!tcgen05.mbarrier) -> ()
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[M]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}} before tcgen05.ld at line {{[0-9]+}}: RAW on TMEM columns [0, 32){{.*}}"} : (!tcgen05.mbarrier) -> ()
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.ld"
// CHECK-NOT: "tcgen05.commit"
func.func @user_commit(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[32, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.commit"(%m) : (!tcgen05.mbarrier) -> ()
  %x = "tcgen05.ld"(%acc, %c0)
      : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64}
      : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}
