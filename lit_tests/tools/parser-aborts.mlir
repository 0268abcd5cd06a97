// Input on which MLIR 22.1 aborts the process (an LLVM fatal error or an assertion) is
// refused, located, before the parser or the pass sees it (found by the fuzzer).
// RUN: split-file %s %t
// RUN: not tcgen05-lower %t/empty-op.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tcgen05-opt %t/empty-op.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tcgen05-lower %t/unreachable.mlir 2>&1 | FileCheck %s --check-prefix=UNREACHABLE
// RUN: not tcgen05-opt %t/unreachable.mlir -p lift-cf-to-scf 2>&1 | FileCheck %s --check-prefix=UNREACHABLE

// EMPTY: empty-op.mlir:2:8: error: op name "tcgen05." names no op after the dialect 'tcgen05'
// UNREACHABLE: unreachable.mlir:4:3: error: this block of @k is unreachable from its entry: delete it

//--- empty-op.mlir
func.func @k() {
  %x = "tcgen05."() : () -> i32
  return
}
//--- unreachable.mlir
func.func @k(%flag: i1) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  cf.br ^bb2
^bb1:
  cf.cond_br %flag, ^bb1, ^bb2
^bb2:
  return
}
