// mlir-opt's pass-manager flags, as far as the Python bindings reach (README): the
// pipeline that runs, timing per pass, IR before every pass, and one pass's options
// replaced in tcgen05-lower's default pipeline with the rest kept.
// RUN: tcgen05-lower %s --pass-option 'tcgen05-plan-tmem{strategy=optimal report=true}' --dump-pass-pipeline --mlir-timing -o %t.ptx 2>&1 | FileCheck %s
// RUN: tcgen05-opt %s -p tcgen05-verify --mlir-print-ir-before-all --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=OPT
// RUN: not tcgen05-lower %s --pass-option 'tcgen05-bogus{x=1}' 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: Pass Manager: builtin.module(lift-cf-to-scf,tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem{strategy=optimal report=true},tcgen05-insert-sync,
// CHECK: tcgen05-plan-tmem: kernel @k strategy=optimal
// CHECK: Execution time report
// CHECK: tcgen05-plan-tmem
// CHECK: tcgen05-insert-sync

// OPT: Pass Manager: builtin.module(tcgen05-verify)
// OPT: IR Dump Before tcgen05-verify

// BAD: tcgen05-lower: error: --pass-option 'tcgen05-bogus{x=1}': tcgen05-bogus is not in the pipeline

func.func @k(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}
