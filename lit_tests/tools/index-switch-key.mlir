// An scf.index_switch case of 2^63 - 1 or 2^63 - 2 is the empty or tombstone key of the
// LLVM DenseMap its verifier fills (DenseMapInfo<long>), and the MLIR parser aborts on it:
// refused, located, before the parser sees it.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s

func.func @k(%sel: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  scf.index_switch %sel
  // CHECK: index-switch-key.mlir:[[@LINE+1]]:8: error: scf.index_switch case value 9223372036854775807 is the empty or tombstone key of LLVM's DenseMap, on which the MLIR parser aborts: use another value
  case 9223372036854775807 {
    scf.yield
  }
  default {
    scf.yield
  }
  return
}
