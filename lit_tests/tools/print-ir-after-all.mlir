// tcgen05-opt --mlir-print-ir-after-all prints MLIR's "IR Dump After <pass> (<argument>)"
// header once per pass, each followed by the IR that pass left: nothing new after the
// verifier, layouts after tcgen05-select-layouts, the allocation after
// tcgen05-plan-tmem, sync ops after tcgen05-insert-sync.
// RUN: tcgen05-opt %examples/gemm_bf16_128x256.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' --mlir-print-ir-after-all -o %t.mlir 2>&1 | FileCheck %s

// CHECK: // -----// IR Dump After tcgen05-verify (tcgen05-verify) ('builtin.module' operation) //----- //
// CHECK-NOT: {{[{ ]}}layout = "
// CHECK: // -----// IR Dump After tcgen05-select-layouts (tcgen05-select-layouts) ('builtin.module' operation) //----- //
// CHECK-NOT: "tcgen05.alloc"
// CHECK: "tcgen05.mma"{{.*}} layout = "D"
// CHECK-NOT: "tcgen05.alloc"
// CHECK: // -----// IR Dump After tcgen05-plan-tmem (tcgen05-plan-tmem) ('builtin.module' operation) //----- //
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @gemm_bf16_128x256
// CHECK-NEXT: "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64}
// CHECK-NOT: "tcgen05.commit"
// CHECK: // -----// IR Dump After tcgen05-insert-sync (tcgen05-insert-sync) ('builtin.module' operation) //----- //
// CHECK: "tcgen05.commit"
// CHECK-NOT: IR Dump After
