// A tcgen05 op in custom syntax: the parser fails without a diagnostic (IRDL ops have no
// custom syntax), and the tools used to exit 1 silently. Now the op is named and located.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: not tcgen05-opt %s -p tcgen05-verify 2>&1 | FileCheck %s

// CHECK: custom-syntax.mlir:[[@LINE+3]]:8: error: tcgen05.tmem_buffer must be written in MLIR's generic form, "tcgen05.tmem_buffer"(operands) {attributes} : (operand types) -> result types
func.func @k() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %d = tcgen05.tmem_buffer() : () -> !tcgen05.tmem<[128, 64], f32>
  return
}
