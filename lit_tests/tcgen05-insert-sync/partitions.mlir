// Kernels with warp roles (tcgen05.partitions) that write synchronization of their own,
// or hand-written mbarrier arrivals outside roles: strategies minimal and conservative
// refuse them at the op, telling the user what to run (minimal and conservative plan the
// whole protocol of a kernel with roles, tcgen05_lower/synchronization/roles.py), and
// strategy none keeps the kernel as written.
// RUN: tcgen05-opt %s -p tcgen05-insert-sync --split-input-file --verify-diagnostics
// RUN: tcgen05-opt %s -p 'tcgen05-insert-sync{strategy=conservative}' --split-input-file --verify-diagnostics
// RUN: tcgen05-opt %s -p 'tcgen05-insert-sync{strategy=none report=true}' --split-input-file -o - 2>&1 | FileCheck %s --check-prefix=NONE

// NONE: tcgen05-insert-sync: kernel @roles strategy=none added 0 ops: the kernel's own synchronization is kept as written
// NONE-LABEL: func.func @roles
// NONE: "tcgen05.partitions"
// NONE-NOT: "tcgen05.commit"
// NONE-NOT: "tcgen05.barrier"
// NONE: return
func.func @roles() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error-re @+1 {{tcgen05-insert-sync{strategy={{minimal|conservative}}} plans all the synchronization of a kernel with warp roles, and tcgen05.mbarrier_arrive is written in role 'producer' (warp 0): remove the kernel's own synchronization, or keep it with strategy=none}}
      "tcgen05.mbarrier_arrive"(%m) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "producer", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %p = arith.constant 0 : i32
      "tcgen05.mbarrier_wait"(%m, %p) : (!tcgen05.mbarrier, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "consumer", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// NONE-LABEL: func.func @arrive
// NONE: "tcgen05.mbarrier_arrive"
func.func @arrive() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !tcgen05.mbarrier
  // expected-error-re @+1 {{tcgen05-insert-sync{strategy={{minimal|conservative}}} does not insert synchronization across concurrently running roles, nor around a hand-written tcgen05.mbarrier_arrive}}
  "tcgen05.mbarrier_arrive"(%m) : (!tcgen05.mbarrier) -> ()
  return
}
