// Refused register budgets of tcgen05-lower-to-llvm{maxnreg=...} (lowering/partitions.py),
// located at the partitions: a budget that is not a multiple of 8 in 24..256 (PTX ISA, setmaxnreg).
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=none},tcgen05-lower-to-llvm{maxnreg=40,236}' --split-input-file --verify-diagnostics
func.func @not_multiple(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 32], f32>
  // expected-error @+1 {{maxnreg=40,236: budget 236 is not a multiple of 8 in 24..256 (PTX ISA, setmaxnreg)}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "a", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
