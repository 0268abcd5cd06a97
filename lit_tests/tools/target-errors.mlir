// Target errors are located at the kernel that names the target (an --arch error names the
// option instead): kernels of one module that disagree point at the first kernel that
// differs from the first one, and an unknown target at its kernel.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: sed 's/sm_10[03]a/SM_999/' %s > %t.mlir
// RUN: not tcgen05-lower %t.mlir -o %t.ptx 2>&1 | FileCheck %s --check-prefix=UNKNOWN

func.func @first() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// CHECK: target-errors.mlir:[[@LINE+1]]:1: error: kernels target different architectures: sm_100a, sm_103a
func.func @second() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}
// UNKNOWN: .mlir:8:1: error: target sm_999 is not a tcgen05 target
