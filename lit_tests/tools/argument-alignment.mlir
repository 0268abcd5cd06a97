// An llvm.align that is not a power of two on an argument of any function (here one that
// is not a kernel, and a kernel whose tcgen05.kernel is misspelled) is a located error
// before the pipeline runs, whatever the pipeline: LLVM's translation asserts on it and
// aborted the process (SIGABRT).
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: not tcgen05-lower %s --pipeline 'convert-func-to-llvm' -o %t.ptx 2>&1 | FileCheck %s

// CHECK: argument-alignment.mlir:[[@LINE+1]]:1: error: argument 0: llvm.align = 48 is not a power of two
func.func @helper(%C: !llvm.ptr<1> {llvm.align = 48 : i64}) {
  return
}

// CHECK: argument-alignment.mlir:[[@LINE+1]]:1: error: argument 0: llvm.align = 3 is not a power of two
func.func @k(%C: !llvm.ptr<1> {llvm.align = 3 : i64}) attributes {tcgen05.kernal = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// CHECK: argument-alignment.mlir:[[@LINE+1]]:1: error: argument 0: llvm.align = 8 : si64 is not a signless integer
func.func @signed(%C: !llvm.ptr<1> {llvm.align = 8 : si64}) {
  return
}
// CHECK-NOT: Traceback

// 2^33: a power of two past LLVM's largest alignment (2^32), which its translation refused
// ("huge alignment values are unsupported", an internal error); 2^32 itself is accepted.
// CHECK: argument-alignment.mlir:[[@LINE+1]]:1: error: argument 0: llvm.align = 8589934592 is past LLVM's largest alignment, 2^32 bytes
func.func @huge(%C: !llvm.ptr<1> {llvm.align = 8589934592 : i64}, %D: !llvm.ptr<1> {llvm.align = 4294967296 : i64}) {
  return
}
// CHECK-NOT: argument 1
