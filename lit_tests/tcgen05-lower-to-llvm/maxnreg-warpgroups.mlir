// Refused register budgets of tcgen05-lower-to-llvm{maxnreg=...} (lowering/partitions.py),
// located at the partitions: setmaxnreg runs in whole warpgroups: one budget per warpgroup of 128 threads (a kernel of 128 threads has one, of 192 threads 1.5).
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=none},tcgen05-lower-to-llvm{maxnreg=40,232}' --split-input-file --verify-diagnostics
func.func @one_group(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 32], f32>
  // expected-error @+1 {{maxnreg=40,232: setmaxnreg is executed by whole warpgroups (PTX ISA, setmaxnreg): one budget per warpgroup, and this kernel of 128 threads has 1}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "a", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @part_group(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 192 : i64, cta_group = 1 : i64}} {
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 32], f32>
  // expected-error @+1 {{maxnreg=40,232: setmaxnreg is executed by whole warpgroups (PTX ISA, setmaxnreg): one budget per warpgroup, and this kernel of 192 threads has 1.5}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "a", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
