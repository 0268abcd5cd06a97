// The M = 64 pair of examples/gemm_m64_pair.mlir: two 64 x 128 f32 accumulators, live
// together. Layout F (M = 64, cta_group::1, not .ws) uses 16 lanes of each 32-lane quarter
// at lane alignment 0 or 16 (9.7.16.10.5), so the two take the two halves of the same 128
// columns, and one allocation of 128 columns (a power of two, 9.7.16.7.1) holds both.
// RUN: tcgen05-opt %examples/gemm_m64_pair.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem' | FileCheck %s
// RUN: tcgen05-opt %examples/gemm_m64_pair.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem{report=true}' -o %t.mlir 2> %t.err
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t.err

// CHECK-LABEL: func.func @gemm_m64_pair
// The allocation comes first, then the permit is given up (no further tcgen05.alloc).
// CHECK-NEXT: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
// CHECK-NEXT: "tcgen05.relinquish_alloc_permit"() {cta_group = 1 : i64} : () -> ()
// CHECK-NOT: "tcgen05.alloc"
// CHECK: [[ACC0:%.+]] = "tcgen05.tmem_buffer"([[BASE]])
// CHECK-SAME: column_offset = 0 : i64, columns = 128 : i64, half_lanes = true, lane_offset = 0 : i64, layout = "F", name = "acc0"
// CHECK-NEXT: [[ACC1:%.+]] = "tcgen05.tmem_buffer"([[BASE]])
// CHECK-SAME: column_offset = 0 : i64, columns = 128 : i64, half_lanes = true, lane_offset = 16 : i64, layout = "F", name = "acc1"
// CHECK-NOT: "tcgen05.alloc"
// CHECK: "tcgen05.mma"([[ACC0]]
// CHECK: "tcgen05.mma"([[ACC1]]
// CHECK: "tcgen05.ld"([[ACC0]]
// CHECK: "tcgen05.ld"([[ACC1]]
// Freed once, with the allocated count, right before the kernel returns.
// CHECK: "tcgen05.dealloc"([[BASE]]) {columns = 128 : i64, cta_group = 1 : i64} : (i32) -> ()
// CHECK-NEXT: return
// CHECK-NOT: "tcgen05.dealloc"

// The report: peak and allocation, and per buffer its lane half and columns. Live ranges
// are op numbers in a pre-order walk of the kernel (the func.func is 0): acc0 and acc1
// are ops 9 and 10, and both are last used inside the epilogue loop, whose last op (the
// scf.yield) is op 27, so both stay live to 27.
// REPORT: tcgen05-plan-tmem: kernel @gemm_m64_pair strategy=first-fit peak=128 columns allocation=128 columns
// REPORT-NEXT: buffer shape layout lanes columns live
// REPORT-NEXT: %acc0 64x128xf32 F 0-15 of each quarter [0, 128) [9, 27]
// REPORT-NEXT: %acc1 64x128xf32 F 16-31 of each quarter [0, 128) [10, 27]
