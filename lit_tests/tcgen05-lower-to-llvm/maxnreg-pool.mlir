// Refused register budgets of tcgen05-lower-to-llvm{maxnreg=...} (lowering/partitions.py),
// located at the partitions: budgets whose registers exceed the 65536 of an SM (3 x 200 x 128 = 76800).
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=none},tcgen05-lower-to-llvm{maxnreg=200,200,200}' --split-input-file --verify-diagnostics
func.func @over_pool(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 384 : i64, cta_group = 1 : i64}} {
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 32], f32>
  // expected-error @+1 {{maxnreg=200,200,200: the budgets hold 600 x 128 registers, over the 65536 of an SM}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "a", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
