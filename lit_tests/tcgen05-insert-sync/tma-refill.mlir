// tcgen05-insert-sync on examples/gemm_bf16_tma.mlir: the kernel writes the TMA protocol
// (expect_tx, the wait on %full, a barrier); the pass keeps it and adds what the MMAs
// need. A tcgen05.tma_load that refills a tile the MMAs of the previous K-block read
// waits for their completion (commit -> mbarrier wait, 9.7.16.6.5: the async-proxy reads
// end before the writes begin), placed at the end of the body since the epilogue after
// the loop needs the same completion; the epilogue then only adds
// fence::after_thread_sync. Expected by hand from the rules table of the pass.
// RUN: tcgen05-opt %examples/gemm_bf16_tma.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' | FileCheck %s

// CHECK-LABEL: func.func @gemm_bf16_tma
// CHECK: [[MBAR:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK: [[FULL:%.+]] = "tcgen05.alloc_mbarrier"() : ()
// The kernel's own protocol, unchanged: nothing inserted before the loads.
// CHECK: scf.for [[K:%[^ ]+]] =
// CHECK-NEXT: "tcgen05.mbarrier_expect_tx"([[FULL]])
// CHECK-NEXT: "tcgen05.tma_load"({{%[^,]+}}, {{%[^,]+}}, [[FULL]], [[K]],
// CHECK-NEXT: "tcgen05.tma_load"({{%[^,]+}}, {{%[^,]+}}, [[FULL]], [[K]],
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[FULL]])
// CHECK-NEXT: "tcgen05.barrier"() : () -> ()
// CHECK-NEXT: arith.cmpi
// CHECK-COUNT-4: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[MBAR]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}}, tcgen05.mma at line {{[0-9]+}}, tcgen05.mma at line {{[0-9]+}}, tcgen05.mma at line {{[0-9]+}} before tcgen05.tma_load at line {{[0-9]+}}: WAR on a shared-memory tile (next iteration)"}
// CHECK: "tcgen05.mbarrier_wait"([[MBAR]], {{%[^)]+}}) {reason = "completion of {{.*}} before tcgen05.tma_load at line {{[0-9]+}}: WAR on a shared-memory tile (next iteration)"}
// CHECK-NEXT: }
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NOT: "tcgen05.commit"
// CHECK: return
