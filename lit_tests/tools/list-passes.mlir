// tcgen05-opt --list-passes lists every tcgen05 pass, in pipeline order, with its options.
// RUN: tcgen05-opt --list-passes | FileCheck %s

// CHECK: tcgen05-verify
// CHECK: tcgen05-select-layouts
// CHECK: strategy=
// CHECK: tcgen05-plan-tmem
// CHECK-NEXT: strategy=first-fit (first-fit|
// CHECK-NEXT: report=
// CHECK: tcgen05-insert-sync
// CHECK-NEXT: strategy=minimal (minimal|
// CHECK-NEXT: report=
// CHECK: tcgen05-verify-sync
// CHECK: tcgen05-lower-to-llvm
// CHECK: tcgen05-finalize-kernels
