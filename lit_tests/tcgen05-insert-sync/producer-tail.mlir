// The producer tail tcgen05-insert-sync writes after the load role's loops of a ring
// kernel (tcgen05_lower/synchronization/rings.py, ``tail_parities``; docs/partitions.md):
// a wait on each empty stage that gets commits, for the phase of its last commit. The
// stages and parities are derived by hand from the loops (use it of S stages: stage
// it mod S; stage s gets ceil((uses - s) / S) commits, the last in phase n_s - 1).
//
// Uses not a multiple of the stages (tests/kernels/ws_persistent_gemm_k384_auto.mlir):
// 3 tiles x 6 K blocks = 18 uses of 4 stages; stages 0 and 1 get 5 commits (last in
// phase 4: parity 0), stages 2 and 3 get 4 (last in phase 3: parity 1).
// RUN: tcgen05-opt %S/../../tests/kernels/ws_persistent_gemm_k384_auto.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync' | FileCheck %s --check-prefix=WRAP
// WRAP: %[[FULL:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64}
// WRAP-NEXT: %[[EMPTY:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64}
// WRAP: "tcgen05.tma_load"
// WRAP-NEXT: "tcgen05.tma_load"
// WRAP-NEXT: {{^ *[}]$}}
// WRAP-NEXT: {{^ *[}]$}}
// WRAP-NEXT: %[[T0:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c0{{(_[0-9]+)?}})
// WRAP-NEXT: %[[P0:.+]] = arith.constant 0 : i32
// WRAP-NEXT: "tcgen05.mbarrier_wait"(%[[T0]], %[[P0]]) {reason = "producer tail: the last commit to empty stage 0
// WRAP-NEXT: %[[T1:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c1{{(_[0-9]+)?}})
// WRAP-NEXT: %[[P1:.+]] = arith.constant 0 : i32
// WRAP-NEXT: "tcgen05.mbarrier_wait"(%[[T1]], %[[P1]]) {reason = "producer tail: the last commit to empty stage 1
// WRAP-NEXT: %[[T2:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c2{{(_[0-9]+)?}})
// WRAP-NEXT: %[[P2:.+]] = arith.constant 1 : i32
// WRAP-NEXT: "tcgen05.mbarrier_wait"(%[[T2]], %[[P2]]) {reason = "producer tail: the last commit to empty stage 2
// WRAP-NEXT: %[[T3:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c3{{(_[0-9]+)?}})
// WRAP-NEXT: %[[P3:.+]] = arith.constant 1 : i32
// WRAP-NEXT: "tcgen05.mbarrier_wait"(%[[T3]], %[[P3]]) {reason = "producer tail: the last commit to empty stage 3
// WRAP-NEXT: gpu.yield
//
// Fewer uses than stages (tests/kernels/ws_gemm_tma_one_tile_auto.mlir: one tile of 2 K
// blocks on a 4-stage ring). Under minimal no stage is refilled: no empty protocol, no
// commit to drain, no tail. Under conservative (the empty protocol anyway) stages 0 and 1
// get one commit each (phase 0: parity 0) and stages 2 and 3 none: two waits.
// RUN: tcgen05-opt %S/../../tests/kernels/ws_gemm_tma_one_tile_auto.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync' | FileCheck %s --check-prefix=ONCE
// ONCE-NOT: producer tail
// RUN: tcgen05-opt %S/../../tests/kernels/ws_gemm_tma_one_tile_auto.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=conservative},tcgen05-verify-sync' | FileCheck %s --check-prefix=CONS
// CONS: %[[FULL:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64}
// CONS-NEXT: %[[EMPTY:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64}
// CONS: "tcgen05.tma_load"
// CONS-NEXT: "tcgen05.tma_load"
// CONS-NEXT: {{^ *[}]$}}
// CONS-NEXT: {{^ *[}]$}}
// CONS-NEXT: %[[T0:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c0{{(_[0-9]+)?}})
// CONS-NEXT: %[[P0:.+]] = arith.constant 0 : i32
// CONS-NEXT: "tcgen05.mbarrier_wait"(%[[T0]], %[[P0]]) {reason = "producer tail: the last commit to empty stage 0
// CONS-NEXT: %[[T1:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c1{{(_[0-9]+)?}})
// CONS-NEXT: %[[P1:.+]] = arith.constant 0 : i32
// CONS-NEXT: "tcgen05.mbarrier_wait"(%[[T1]], %[[P1]]) {reason = "producer tail: the last commit to empty stage 1
// CONS-NEXT: gpu.yield
