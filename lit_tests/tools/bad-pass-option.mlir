// A bad pass option fails before any pass runs, with a message that names the option and
// what it accepts, and no traceback.
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-verify,tcgen05-plan-tmem{strategy=bogus}' 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-plan-tmem{bogus=1}' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-insert-sync{report=maybe}' 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-plan-tmem{strategy=first-fit' 2>&1 | FileCheck %s --check-prefix=BRACES
// The same through the driver's --pipeline.
// RUN: not tcgen05-lower %examples/gemm_bf16_128x256.mlir --pipeline 'tcgen05-verify,tcgen05-plan-tmem{strategy=bogus}' 2>&1 | FileCheck %s --check-prefix=STRATEGY

// STRATEGY: error: option 'strategy' must be one of first-fit, {{.*}}got 'bogus'
// STRATEGY-NOT: Traceback
// STRATEGY-NOT: IR Dump

// UNKNOWN: tcgen05-opt: error: pass 'tcgen05-plan-tmem' has no option 'bogus' (options: strategy, report{{.*}})
// UNKNOWN-NOT: Traceback

// BOOL: tcgen05-opt: error: option 'report' expects true or false, got 'maybe'
// BOOL-NOT: Traceback

// BRACES: tcgen05-opt: error: unbalanced brackets in 'tcgen05-plan-tmem{strategy=first-fit'
// BRACES-NOT: Traceback
