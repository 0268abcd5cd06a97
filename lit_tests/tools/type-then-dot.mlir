// A dialect type directly followed by a `.` aborts the MLIR 22.1 bindings (an assertion on
// unhandled captured errors, exit 134); the tools refuse it, located, before parsing.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: not tcgen05-opt %s -p tcgen05-verify 2>&1 | FileCheck %s

// CHECK: type-then-dot.mlir:[[@LINE+2]]:36: error: unexpected '.' after a type
!a = i32
!b = !tcgen05.tmem<[128, 16], bf16>.
