// Warp roles lowered (lowering/partitions.py): one scf.if per role on its warp range
// ((warp - first_warp) <u warps, built at the kernel's entry), the role's ops inside it
// with the role's first thread issuing single-thread ops (their guard, an i32 of the
// role's leader predicate; thread 32 for the MMA role on
// warp 1), smem_fill strided over the role's 32 threads, tcgen05.barrier as the role's
// named barrier (barrier.sync 1 + role index, 32 x warps threads: 3, 128 for the third
// role), then the joining barrier.sync 0 before what follows (the dealloc).
// With issue=elect (the default) the one-warp MMA role issues its MMA and commit by the
// lane elect.sync elects (no leader operand); with issue=thread by thread 32.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=none},tcgen05-lower-to-llvm' | FileCheck %s --check-prefixes=CHECK,ELECT
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=none},tcgen05-lower-to-llvm{issue=thread}' | FileCheck %s --check-prefixes=CHECK,THREAD
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a --pass-option 'tcgen05-insert-sync{strategy=none}' --pass-option 'tcgen05-verify-sync{partitions=skip}' -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: func.func @roles
// CHECK:       [[TID:%.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:       [[WARP:%.+]] = arith.shrui [[TID]], %c5_i32 : i32
// CHECK:       nvvm.inline_ptx "barrier.sync 0;"
// role "load", warps [0, 1): thread 0 leads
// CHECK:       [[IN_LOAD:%.+]] = arith.cmpi ult, [[WARP]], %c1_i32{{.*}} : i32
// role "mma", warps [1, 2): thread 32 leads
// CHECK:       [[MMA_LEADER:%.+]] = arith.cmpi eq, [[TID]], %c32_i32{{.*}} : i32
// CHECK:       [[MMA_WARP:%.+]] = arith.subi [[WARP]], %c1_i32{{.*}} : i32
// CHECK:       [[IN_MMA:%.+]] = arith.cmpi ult, [[MMA_WARP]], %c1_i32{{.*}} : i32
// role "epilogue", warps [4, 8)
// CHECK:       [[EPI_WARP:%.+]] = arith.subi [[WARP]], %c4_i32 : i32
// CHECK:       [[IN_EPI:%.+]] = arith.cmpi ult, [[EPI_WARP]], %c4_i32{{.*}} : i32
// CHECK:       tcgen05.alloc
// CHECK:       scf.if [[IN_LOAD]] {
// CHECK:         [[FIRST:%.+]] = arith.index_castui [[TID]] : i32 to index
// CHECK:         scf.for %{{.+}} = [[FIRST]] to %c256 step %c32 {
// CHECK:         "fence.proxy.async.shared::cta;"
// CHECK:         "mbarrier.arrive.release.cta.shared::cta.b64 _, [$0];"
// CHECK:       scf.if [[IN_MMA]] {
// CHECK:         mbarrier.try_wait.parity
// THREAD:        [[MMA_GUARD:%.+]] = arith.extui [[MMA_LEADER]] : i1 to i32
// THREAD-NEXT:   @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 {{.*}}, [[MMA_GUARD]] :
// THREAD:        [[COMMIT_GUARD:%.+]] = arith.extui [[MMA_LEADER]] : i1 to i32
// THREAD-NEXT:   @tcgen05_guard tcgen05.commit.{{.*}}, [[COMMIT_GUARD]] :
// ELECT:         "{ .reg .pred tcgen05_guard; elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $2, $3, $4; }" ro({{[^)]*}} : i32, i64, i64, i32, i1)
// ELECT:         "{ .reg .pred tcgen05_guard; elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [$0]; }" ro({{[^)]*}} : !llvm.ptr<3>)
// CHECK:       scf.if [[IN_EPI]] {
// CHECK:         mbarrier.try_wait.parity
// CHECK:         "tcgen05.ld.sync.aligned.32x32b
// CHECK:         "tcgen05.wait::ld.sync.aligned;"
// CHECK:         "barrier.sync 3, 128;"
// CHECK:       }
// CHECK:       nvvm.inline_ptx "barrier.sync 0;"
// CHECK-NEXT:  nvvm.inline_ptx "tcgen05.fence::after_thread_sync;"
// CHECK:       tcgen05.dealloc

// PTX-LABEL: .entry roles(
// PTX:       elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// PTX:       elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.commit.cta_group::1
// PTX:       barrier.sync 3, 128;
// PTX:       barrier.sync 0;
// PTX:       tcgen05.dealloc
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!mb = !tcgen05.mbarrier
func.func @roles(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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
      "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
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
