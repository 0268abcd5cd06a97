// A diagnostic is followed, as MLIR prints it, by the source line and a caret under the
// column it names.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s --strict-whitespace

// CHECK: caret.mlir:[[@LINE+4]]:8: error: shared-memory tile element type f64 is not a tcgen05 operand type
// CHECK-NEXT: {{^}}  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], f64, "K", "128B">
// CHECK-NEXT: {{^}}       ^
func.func @k() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], f64, "K", "128B">
  return
}
