// A bad pass option fails before any pass runs, with a message that names the option and
// what it accepts, and no traceback.
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-verify,tcgen05-plan-tmem{strategy=bogus}' 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-plan-tmem{bogus=1}' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-insert-sync{report=maybe}' 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-plan-tmem{strategy=first-fit' 2>&1 | FileCheck %s --check-prefix=BRACES
// An integer option: empty, not a number, not an integer, or out of its range. Each names
// the pass, the option, the value and the range (Python's "invalid literal for int()"
// named neither pass nor option, and node-limit=-1 was accepted).
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-plan-tmem{node-limit=}' 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-plan-tmem{node-limit=abc}' 2>&1 | FileCheck %s --check-prefix=ABC
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-plan-tmem{node-limit=1.5}' 2>&1 | FileCheck %s --check-prefix=FRACTION
// RUN: not tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-plan-tmem{node-limit=-1}' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not tcgen05-lower %examples/gemm_bf16_128x256.mlir --pass-option 'tcgen05-plan-tmem{node-limit=abc}' -o %t.ptx 2>&1 | FileCheck %s --check-prefix=ABC
// RUN: not tcgen05-lower %examples/gemm_bf16_128x256.mlir --pass-option 'tcgen05-verify-sync{partitions=bogus}' -o %t.ptx 2>&1 | FileCheck %s --check-prefix=CHOICE
// The same through the driver's --pipeline.
// RUN: not tcgen05-lower %examples/gemm_bf16_128x256.mlir --pipeline 'tcgen05-verify,tcgen05-plan-tmem{strategy=bogus}' 2>&1 | FileCheck %s --check-prefix=STRATEGY

// STRATEGY: error: pass 'tcgen05-plan-tmem' option 'strategy' expects one of first-fit, {{.*}}got 'bogus'
// STRATEGY-NOT: Traceback
// STRATEGY-NOT: IR Dump

// UNKNOWN: tcgen05-opt: error: pass 'tcgen05-plan-tmem' has no option 'bogus' (options: strategy, report{{.*}})
// UNKNOWN-NOT: Traceback

// BOOL: tcgen05-opt: error: pass 'tcgen05-insert-sync' option 'report' expects true or false, got 'maybe'
// BOOL-NOT: Traceback

// BRACES: tcgen05-opt: error: unbalanced brackets in 'tcgen05-plan-tmem{strategy=first-fit'
// BRACES-NOT: Traceback

// EMPTY: error: pass 'tcgen05-plan-tmem' option 'node-limit' expects an integer >= 1, got ''
// EMPTY-NOT: invalid literal
// ABC: error: pass 'tcgen05-plan-tmem' option 'node-limit' expects an integer >= 1, got 'abc'
// ABC-NOT: invalid literal
// FRACTION: error: pass 'tcgen05-plan-tmem' option 'node-limit' expects an integer >= 1, got '1.5'
// NEGATIVE: error: pass 'tcgen05-plan-tmem' option 'node-limit' expects an integer >= 1, got '-1'
// CHOICE: error: pass 'tcgen05-verify-sync' option 'partitions' expects one of check, refuse, skip, got 'bogus'
