// A kernel symbol that MLIR accepts but PTX cannot spell as an .entry name is a located
// error (ptxas rejected `.entry b.ranch(`).
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s

// CHECK: kernel-name.mlir:[[@LINE+1]]:1: error: kernel name @b.ranch is not a PTX identifier
func.func @b.ranch() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// Every function of the module is emitted (the others as .func), so the rule is theirs too.
// CHECK: kernel-name.mlir:[[@LINE+1]]:1: error: function name @helper.fn is not a PTX identifier
func.func @helper.fn() {
  return
}
