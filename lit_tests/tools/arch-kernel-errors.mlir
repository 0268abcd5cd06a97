// With --arch, an error in a kernel's tcgen05.kernel dictionary is still located at the
// kernel (it was reported as an error of the --arch option, with no line); only a bad
// --arch value itself is the option's error.
// RUN: sed 's/threads = 128 : i64/threads = "x"/' %s > %t.threads.mlir
// RUN: not tcgen05-lower %t.threads.mlir --arch sm_100a -o %t.ptx 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: sed 's/cta_group = 1 : i64}/cta_group = 1 : i64, bogus = 1 : i64}/' %s > %t.entry.mlir
// RUN: not tcgen05-lower %t.entry.mlir --arch sm_103a -o %t.ptx 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: sed 's/target = "sm_100a"/target = 7/' %s > %t.target.mlir
// RUN: not tcgen05-lower %t.target.mlir --arch sm_100a -o %t.ptx 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: sed 's/tcgen05.kernel = {.*}}/tcgen05.kernel = 3 : i64}/' %s > %t.dict.mlir
// RUN: not tcgen05-lower %t.dict.mlir --arch sm_100a -o %t.ptx 2>&1 | FileCheck %s --check-prefix=DICT
// RUN: not tcgen05-lower %s --arch sm_999 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=ARCH

// THREADS: .threads.mlir:[[@LINE+5]]:1: error: attribute tcgen05.kernel.threads = "x" must be an integer
// ENTRY: .entry.mlir:[[@LINE+4]]:1: error: tcgen05.kernel has no entry 'bogus'
// TARGET: .target.mlir:[[@LINE+3]]:1: error: attribute tcgen05.kernel.target = 7 : i64 must be a string
// DICT: .dict.mlir:[[@LINE+2]]:1: error: tcgen05.kernel = 3 : i64 must be a dictionary
// ARCH: arch-kernel-errors.mlir: error: --arch sm_999: target sm_999 is not a tcgen05 target
func.func @k() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}
// THREADS-NOT: --arch
// ENTRY-NOT: --arch
