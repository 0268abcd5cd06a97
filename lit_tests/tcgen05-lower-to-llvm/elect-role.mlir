// Who issues a one-warp role's single-thread ops (lowering/sync.py, elect_allowed): the
// MMA sits in a loop whose bound the role computes (an arith.addi, not a constant or a
// kernel argument), which the lowering does not take as warp-uniform, so the whole role
// keeps the thread-index guard: the commit after the loop too, since it must be issued by
// the thread that issued the MMA it tracks. No elect.sync anywhere.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=none},tcgen05-lower-to-llvm' | FileCheck %s --implicit-check-not=elect.sync
// CHECK-LABEL: func.func @elect_role
// CHECK:       [[MMA_LEADER:%.+]] = arith.cmpi eq, %{{.+}}, %c32_i32{{.*}} : i32
// CHECK:       scf.for
// CHECK:         [[MMA_GUARD:%.+]] = arith.extui [[MMA_LEADER]] : i1 to i32
// CHECK-NEXT:    @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 {{.*}}, [[MMA_GUARD]] :
// CHECK:       [[COMMIT_GUARD:%.+]] = arith.extui [[MMA_LEADER]] : i1 to i32
// CHECK-NEXT:  @tcgen05_guard tcgen05.commit.{{.*}}, [[COMMIT_GUARD]] :
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!mb = !tcgen05.mbarrier
func.func @elect_role(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p0 = arith.constant 0 : i32
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      // A bound computed in the role: not warp-uniform by the lowering's rule.
      %n = arith.addi %c0, %c1 : index
      scf.for %i = %c0 to %n step %c1 {
        "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      }
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %frag = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "tcgen05.barrier"() : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
