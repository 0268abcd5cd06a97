// tcgen05-verify-sync reasons about one program order, not about concurrently running
// roles: it refuses a kernel with tcgen05.partitions (or hand-written mbarrier arrivals)
// at the op, unless partitions=skip passes it on unchecked, which report=true says.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --verify-diagnostics
// RUN: tcgen05-opt %s -p 'tcgen05-verify-sync{partitions=skip report=true}' -o /dev/null 2>&1 | FileCheck %s

// CHECK: tcgen05-verify-sync: kernel @roles: not checked (tcgen05.partitions, partitions=skip)
// CHECK-NOT: error
func.func @roles() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !tcgen05.mbarrier
  // expected-error @+1 {{tcgen05-verify-sync does not check kernels with concurrently running roles or hand-written mbarrier arrivals yet (its model is one program order): run it with partitions=skip to pass the kernel on unchecked (docs/partitions.md)}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mbarrier_arrive"(%m) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "producer", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
