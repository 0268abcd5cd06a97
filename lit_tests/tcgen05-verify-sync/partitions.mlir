// tcgen05-verify-sync on a kernel with tcgen05.partitions (or hand-written mbarrier
// arrivals): by default (partitions=check) it checks the roles as concurrent programs
// (roles.mlir, roles-ordered.mlir); partitions=refuse refuses such a kernel at the op, and
// partitions=skip passes it on unchecked, which report=true says.
// RUN: tcgen05-opt %s -p 'tcgen05-verify-sync{partitions=refuse}' --verify-diagnostics
// RUN: tcgen05-opt %s -p 'tcgen05-verify-sync{partitions=skip report=true}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SKIP
// RUN: tcgen05-opt %s -p 'tcgen05-verify-sync{report=true}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK

// SKIP: tcgen05-verify-sync: kernel @roles: not checked (tcgen05.partitions, partitions=skip)
// SKIP-NOT: error
// CHECK: tcgen05-verify-sync: kernel @roles: roles run concurrently, 1 events run, 0 pairs checked: ordered
// CHECK-NOT: error
func.func @roles() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !tcgen05.mbarrier
  // expected-error @+1 {{tcgen05-verify-sync was told not to check kernels with concurrently running roles or hand-written mbarrier arrivals (partitions=refuse): run it with partitions=check to check the kernel, or partitions=skip to pass it on unchecked (docs/partitions.md)}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mbarrier_arrive"(%m) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "producer", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
