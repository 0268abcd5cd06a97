// Input on which MLIR 22.1 aborts the process (an LLVM fatal error or an assertion) is
// refused, located, before the parser or the pass sees it (found by the fuzzer).
// RUN: split-file %s %t
// RUN: not tcgen05-lower %t/empty-op.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tcgen05-opt %t/empty-op.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tcgen05-lower %t/unreachable.mlir 2>&1 | FileCheck %s --check-prefix=UNREACHABLE
// RUN: not tcgen05-opt %t/unreachable.mlir -p lift-cf-to-scf 2>&1 | FileCheck %s --check-prefix=UNREACHABLE
// RUN: not tcgen05-lower %t/open-string.mlir 2>&1 | FileCheck %s --check-prefix=STRING
// RUN: not tcgen05-lower %t/yielded.mlir 2>&1 | FileCheck %s --check-prefix=YIELDED

// EMPTY: empty-op.mlir:2:8: error: op name "tcgen05." names no op after the dialect 'tcgen05'
// UNREACHABLE: unreachable.mlir:4:3: error: this block of @k is unreachable from its entry: delete it
// STRING: open-string.mlir:2:3: error: unterminated string (a string ends on its line)
// YIELDED: yielded.mlir:5:5: error: scf.yield takes the !tcgen05.mbarrier made by tcgen05.alloc_mbarrier: only TMEM buffers may flow through selects, branches and loops, and no tcgen05 value through other ops (calls, unknown ops)

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
//--- open-string.mlir
func.func @k() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  "tcgen
  return
}
//--- yielded.mlir
func.func @k(%flag: i1) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %bar2 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %mb = scf.if %flag -> (!tcgen05.mbarrier) {
    scf.yield %bar : !tcgen05.mbarrier
  } else {
    scf.yield %bar2 : !tcgen05.mbarrier
  }
  return
}
