// The MXFP8 warp-specialized GEMM (examples/ws_gemm_mxf8_blockscaled.mlir), written with no
// synchronization: the plan of its scale-factor rings and the protocol tcgen05-insert-sync
// writes, then ptxas for sm_100a. The CHECK lines are written by hand from the ring
// protocol (docs/partitions.md) and synchronization/scale_copies.py's table: the full and
// empty rings of the 2 shared-memory stages (count 1) and acc_full (count 1, one stage:
// the accumulator holds one tile, so no acc_empty under minimal); a stage's bytes are
// 128 x 128 x 1 (A, e4m3) + 128 x 128 x 1 (B) + 32 x 16 (SFA) + 32 x 16 (SFB) = 33792;
// in the MMA role the full wait, then fence::after_thread_sync (the next round's copy
// into a TMEM stage after the MMAs that read it, 9.7.16.6.4.2), the two copies, the four
// MMAs (cp -> mma is a pipelined pair, 9.7.16.6.2: nothing between) and the commit to
// empty. The scale rings take 4 columns a stage (128 entries x 4 factors, tmem-facts
// section 3) after the accumulator's 128. The K loop runs to a run-time bound, so the
// producer tail's parities are computed (arith.maxsi of the trip count).
// REQUIRES: ptxas
// RUN: tcgen05-opt %examples/ws_gemm_mxf8_blockscaled.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync' | FileCheck %s --implicit-check-not=fence_proxy_async
// RUN: tcgen05-lower %examples/ws_gemm_mxf8_blockscaled.mlir --arch sm_100a -o %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx

// CHECK-LABEL: func.func @ws_gemm_mxf8_blockscaled(
// CHECK: %[[FULL:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64}
// CHECK-NEXT: %[[EMPTY:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64}
// CHECK-NEXT: %[[ACCF:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 1 : i64}
// CHECK: "tcgen05.tmem_buffer"({{.*}}column_offset = 0 : i64, columns = 128 : i64{{.*}}name = "acc"
// CHECK: %[[SFA:.+]] = "tcgen05.tmem_buffer"({{.*}}column_offset = 128 : i64, columns = 4 : i64{{.*}}name = "sfa", role = "scale_a", stage_layout = "column_blocks", stage_stride = 4
// CHECK: %[[SFB:.+]] = "tcgen05.tmem_buffer"({{.*}}column_offset = 136 : i64, columns = 4 : i64{{.*}}name = "sfb", role = "scale_b", stage_layout = "column_blocks", stage_stride = 4

// Load role: per K block the empty wait and the expect_tx of the stage's bytes; after the
// loop the producer tail, its parities computed from the run-time trip count.
// CHECK: "tcgen05.role"
// CHECK: scf.for
// CHECK: "tcgen05.mbarrier_wait"
// CHECK-NEXT: "tcgen05.mbarrier_expect_tx"({{.*}}) {bytes = 33792 : i64
// CHECK-COUNT-4: "tcgen05.tma_load"
// CHECK: arith.maxsi
// CHECK: "tcgen05.mbarrier_wait"({{.*}}producer tail
// CHECK: "tcgen05.mbarrier_wait"({{.*}}producer tail
// CHECK: name = "load"

// MMA role: per K block the full wait, the fence, the copies into this stage of the scale
// rings, the MMAs reading them, the commit to empty; after the loop the commit to acc_full.
// CHECK: "tcgen05.role"
// CHECK: scf.for
// CHECK: %[[TA:.+]] = "tcgen05.tmem_stage"(%[[SFA]],
// CHECK-NEXT: %[[TB:.+]] = "tcgen05.tmem_stage"(%[[SFB]],
// CHECK: "tcgen05.mbarrier_wait"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.cp"(%[[TA]], {{.*}}) {multicast = "warpx4", shape = "32x128b"}
// CHECK-NEXT: "tcgen05.cp"(%[[TB]], {{.*}}) {multicast = "warpx4", shape = "32x128b"}
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: "tcgen05.mma"({{.*}}, %[[TA]], %[[TB]]) {k_offset = 0 : i64, kind = "mxf8f6f4"
// CHECK-NEXT: "tcgen05.mma"({{.*}}, %[[TA]], %[[TB]]) {k_offset = 32 : i64, kind = "mxf8f6f4"
// CHECK-NEXT: "tcgen05.mma"({{.*}}, %[[TA]], %[[TB]]) {k_offset = 64 : i64, kind = "mxf8f6f4"
// CHECK-NEXT: "tcgen05.mma"({{.*}}, %[[TA]], %[[TB]]) {k_offset = 96 : i64, kind = "mxf8f6f4"
// CHECK-NEXT: "tcgen05.commit"
// CHECK: "tcgen05.commit"
// CHECK: name = "mma"

// In the PTX, the copies and the block-scaled MMAs (1X: one factor per K = 32, Table 54).
// PTX-COUNT-2: tcgen05.cp.cta_group::1.32x128b.warpx4
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
