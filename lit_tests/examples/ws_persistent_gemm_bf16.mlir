// The persistent warp-specialized GEMM (examples/ws_persistent_gemm_bf16.mlir), written
// with no synchronization: the protocol tcgen05-insert-sync writes into the planned IR,
// then ptxas for sm_100a, sm_103a and sm_110a with the default pipeline. The CHECK lines
// are written by hand from the protocol (docs/partitions.md, "Synchronization that
// tcgen05-insert-sync writes"; 9.7.16.6.4.3 / .4, 9.7.13.15): four mbarrier rings, full
// and empty of the 4 shared-memory stages (count 1: the expect_tx, the commit), acc_full
// (count 1: the commit) and acc_empty (count 128: the epilogue warpgroup's threads) of
// the 2 accumulator stages; per K block the use counter it = 4 t + kb (4 K blocks per
// tile), stage it mod 4 and round it / 4; per tile stage t mod 2 and round t / 2; the
// waits for parity round & 1 (full, acc_full) and (round + 1) & 1 (empty, acc_empty);
// 49152 bytes = 128 x 64 x 2 (A's stage) + 256 x 64 x 2 (B's stage). No proxy fence:
// TMA writes and MMA reads are both async proxy (9.7.16.6.5). The load role ends with
// the producer tail: a wait on each empty stage for the phase of its last commit (the
// arrivals of two commits are not ordered, 9.7.16.12.1).
// REQUIRES: ptxas
// RUN: tcgen05-opt %examples/ws_persistent_gemm_bf16.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync' | FileCheck %s --implicit-check-not=fence_proxy_async
// RUN: tcgen05-lower %examples/ws_persistent_gemm_bf16.mlir --arch sm_100a -o %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: tcgen05-lower %examples/ws_persistent_gemm_bf16.mlir --arch sm_103a -o %t103.ptx
// RUN: %ptxas -arch=sm_103a %t103.ptx -o %t103.cubin
// RUN: tcgen05-lower %examples/ws_persistent_gemm_bf16.mlir --arch sm_110a -o %t110.ptx
// RUN: %ptxas -arch=sm_110a %t110.ptx -o %t110.cubin

// CHECK-LABEL: func.func @ws_persistent_gemm_bf16(
// The rings, at the kernel's entry, in the order full, empty, acc_full, acc_empty.
// CHECK: %[[FULL:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
// CHECK-NEXT: %[[EMPTY:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
// CHECK-NEXT: %[[ACCF:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
// CHECK-NEXT: %[[ACCE:.+]] = "tcgen05.alloc_mbarrier"() {count = 128 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier

// Load role: per K block, wait for the stage's empty phase of the previous round, expect
// the stage's bytes on its full mbarrier, and the two TMA loads complete on it.
// CHECK: "tcgen05.partitions"
// CHECK: scf.for %[[T:[^ ]+]] = 
// CHECK: scf.for %[[KB:[^ ]+]] = 
// CHECK: %[[AS:.+]] = "tcgen05.smem_stage"
// CHECK-NEXT: %[[BS:.+]] = "tcgen05.smem_stage"
// CHECK-NEXT: %[[T4:.+]] = arith.muli %[[T]], %c4{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[IT:.+]] = arith.addi %[[T4]], %[[KB]] : index
// CHECK-NEXT: %[[S:.+]] = arith.remui %[[IT]], %c4{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[R:.+]] = arith.divui %[[IT]], %c4{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[FULL_S:.+]] = "tcgen05.mbarrier_stage"(%[[FULL]], %[[S]])
// CHECK-NEXT: %[[EMPTY_S:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %[[S]])
// CHECK-NEXT: %[[R1:.+]] = arith.addi %[[R]], %c1{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[EP:.+]] = arith.andi %[[R1]], %c1{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[EP32:.+]] = arith.index_cast %[[EP]] : index to i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[EMPTY_S]], %[[EP32]])
// CHECK-NEXT: "tcgen05.mbarrier_expect_tx"(%[[FULL_S]]) {bytes = 49152 : i64
// CHECK-NEXT: "tcgen05.tma_load"(%{{[^,]+}}, %[[AS]], %[[FULL_S]], %{{[^,]+}}, %{{[^,]+}})
// CHECK-NEXT: "tcgen05.tma_load"(%{{[^,]+}}, %[[BS]], %[[FULL_S]], %{{[^,]+}}, %{{[^,]+}})
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: {{^ *[}]$}}
// The producer tail, after the loops: 4 tiles x 4 K blocks = 16 uses of the 4 stages,
// so each empty_s gets 4 commits (uses s, s + 4, s + 8, s + 12), the last in phase 3:
// one wait per stage, in stage order, for parity 3 & 1 = 1, then the role ends.
// CHECK-NEXT: %[[TAIL0:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c0{{(_[0-9]+)?}})
// CHECK-NEXT: %[[TP0:.+]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[TAIL0]], %[[TP0]]) {reason = "producer tail
// CHECK-NEXT: %[[TAIL1:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c1{{(_[0-9]+)?}})
// CHECK-NEXT: %[[TP1:.+]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[TAIL1]], %[[TP1]]) {reason = "producer tail
// CHECK-NEXT: %[[TAIL2:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c2{{(_[0-9]+)?}})
// CHECK-NEXT: %[[TP2:.+]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[TAIL2]], %[[TP2]]) {reason = "producer tail
// CHECK-NEXT: %[[TAIL3:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c3{{(_[0-9]+)?}})
// CHECK-NEXT: %[[TP3:.+]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[TAIL3]], %[[TP3]]) {reason = "producer tail
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: name = "load"

// MMA role: per tile, wait until the epilogue drained the accumulator stage's previous
// round, fence after_thread_sync, the K loop, then commit to acc_full; per K block wait
// for the stage's full phase of this round, the four MMAs, commit to empty.
// CHECK: scf.for %[[MT:[^ ]+]] = 
// CHECK: %[[D:.+]] = "tcgen05.tmem_stage"
// CHECK-NEXT: %[[J:.+]] = arith.remui %[[MT]], %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[U:.+]] = arith.divui %[[MT]], %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[ACCF_J:.+]] = "tcgen05.mbarrier_stage"(%[[ACCF]], %[[J]])
// CHECK-NEXT: %[[ACCE_J:.+]] = "tcgen05.mbarrier_stage"(%[[ACCE]], %[[J]])
// CHECK-NEXT: %[[U1:.+]] = arith.addi %[[U]], %c1{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[AEP:.+]] = arith.andi %[[U1]], %c1{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[AEP32:.+]] = arith.index_cast %[[AEP]] : index to i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[ACCE_J]], %[[AEP32]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: scf.for %[[MKB:[^ ]+]] = 
// CHECK: %[[MAS:.+]] = "tcgen05.smem_stage"
// CHECK-NEXT: %[[MBS:.+]] = "tcgen05.smem_stage"
// CHECK-NEXT: %[[ACCUMULATE:.+]] = arith.cmpi ne, %[[MKB]]
// CHECK-NEXT: %[[MT4:.+]] = arith.muli %[[MT]], %c4{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[MIT:.+]] = arith.addi %[[MT4]], %[[MKB]] : index
// CHECK-NEXT: %[[MS:.+]] = arith.remui %[[MIT]], %c4{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[MR:.+]] = arith.divui %[[MIT]], %c4{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[FULL_MS:.+]] = "tcgen05.mbarrier_stage"(%[[FULL]], %[[MS]])
// CHECK-NEXT: %[[EMPTY_MS:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %[[MS]])
// CHECK-NEXT: %[[FP:.+]] = arith.andi %[[MR]], %c1{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[FP32:.+]] = arith.index_cast %[[FP]] : index to i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[FULL_MS]], %[[FP32]])
// CHECK-NEXT: "tcgen05.mma"(%[[D]], %[[MAS]], %[[MBS]], %[[ACCUMULATE]]) {k_offset = 0 : i64
// CHECK-NEXT: "tcgen05.mma"(%[[D]], %[[MAS]], %[[MBS]], %{{.+}}) {k_offset = 16 : i64
// CHECK-NEXT: "tcgen05.mma"(%[[D]], %[[MAS]], %[[MBS]], %{{.+}}) {k_offset = 32 : i64
// CHECK-NEXT: "tcgen05.mma"(%[[D]], %[[MAS]], %[[MBS]], %{{.+}}) {k_offset = 48 : i64
// CHECK-NEXT: "tcgen05.commit"(%[[EMPTY_MS]])
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: "tcgen05.commit"(%[[ACCF_J]])
// CHECK-NEXT: {{^ *[}]$}}
// CHECK: name = "mma"

// Epilogue: per tile, wait for the accumulator stage's full phase of this round, fence
// after_thread_sync, the loads and stores, then wait::ld, fence before_thread_sync and
// every thread's arrive on acc_empty.
// CHECK: scf.for %[[ET:[^ ]+]] = 
// CHECK: %[[ED:.+]] = "tcgen05.tmem_stage"
// CHECK-NEXT: %[[EJ:.+]] = arith.remui %[[ET]], %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[EU:.+]] = arith.divui %[[ET]], %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[EACCF_J:.+]] = "tcgen05.mbarrier_stage"(%[[ACCF]], %[[EJ]])
// CHECK-NEXT: %[[EACCE_J:.+]] = "tcgen05.mbarrier_stage"(%[[ACCE]], %[[EJ]])
// CHECK-NEXT: %[[AFP:.+]] = arith.andi %[[EU]], %c1{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[AFP32:.+]] = arith.index_cast %[[AFP]] : index to i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[EACCF_J]], %[[AFP32]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: scf.for
// CHECK-NEXT: "tcgen05.ld"(%[[ED]],
// CHECK-NEXT: arith.addi
// CHECK-NEXT: "tcgen05.store_fragment"
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld"
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.mbarrier_arrive"(%[[EACCE_J]])
// CHECK-NEXT: {{^ *[}]$}}
// CHECK: name = "epilogue"

// After the join: fence after_thread_sync, then the dealloc.
// CHECK: }) : () -> ()
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.dealloc"

// The MMA warp's K block in PTX (derived by hand from Table 40 and the tile placement):
// each tile's encoded base (shared address >> 4) is built once, before the role's loops
// (A at the dynamic array's start, B 65536 bytes after it: A's 4 stages of 128 x 64 x 2
// bytes), and from it one 64-bit descriptor per tile and K block: the high word SBO 1024
// bytes (encoded 64 at bits 32-45), the fixed 0b001 at bits 46-48, 128B swizzle (2 at
// bits 61-63): 0x40004040 << 32 = 4611756662049472512, plus the LBO field (16 bytes,
// encoded 1 at bit 16: 65536) and the K block's 32 bytes (encoded 2) per MMA, added in 64
// bits (LLVM folds the disjoint high word into the add): 4611756662049538048 + 0, 2, 4,
// 6. Per K block the stage's offset (A's stage 16384 bytes = 1024 << 4, B's 32768 = 2048
// << 4) is added to each descriptor's low word in one inline PTX multiply-add of the
// stage index. The MMAs and the commit are issued by the lane elect.sync elects
// (one-warp role).
// PTX: mov.b64 [[SMEM:%rd[0-9]+]], __tcgen05_dynamic_smem;
// PTX: cvt.u32.u64 [[ABASE:%r[0-9]+]], [[SMEM]];
// PTX-NEXT: add.s32 [[BBASE:%r[0-9]+]], [[ABASE]], 65536;
// PTX-NEXT: shr.u32 [[AENC:%r[0-9]+]], [[ABASE]], 4;
// PTX-NEXT: shr.u32 [[BENC:%r[0-9]+]], [[BBASE]], 4;
// PTX-NEXT: cvt.u64.u32 [[AW:%rd[0-9]+]], [[AENC]];
// PTX-NEXT: add.s64 [[ADESC0:%rd[0-9]+]], [[AW]], 4611756662049538048;
// PTX-NEXT: cvt.u64.u32 [[BW:%rd[0-9]+]], [[BENC]];
// PTX-NEXT: add.s64 [[BDESC0:%rd[0-9]+]], [[BW]], 4611756662049538048;
// PTX-NEXT: add.s64 [[ADESC1:%rd[0-9]+]], [[AW]], 4611756662049538050;
// PTX-NEXT: add.s64 [[BDESC1:%rd[0-9]+]], [[BW]], 4611756662049538050;
// PTX-NEXT: add.s64 [[ADESC2:%rd[0-9]+]], [[AW]], 4611756662049538052;
// PTX-NEXT: add.s64 [[BDESC2:%rd[0-9]+]], [[BW]], 4611756662049538052;
// PTX-NEXT: add.s64 [[ADESC3:%rd[0-9]+]], [[AW]], 4611756662049538054;
// PTX-NEXT: add.s64 [[BDESC3:%rd[0-9]+]], [[BW]], 4611756662049538054;
// PTX: mov.b64 {lo, hi}, [[ADESC0]]; mad.lo.u32 lo, [[STAGE:%r[0-9]+]], 1024, lo; mov.b64 [[A0:%rd[0-9]+]], {lo, hi};
// PTX: mov.b64 {lo, hi}, [[BDESC0]]; mad.lo.u32 lo, [[STAGE]], 2048, lo; mov.b64 [[B0:%rd[0-9]+]], {lo, hi};
// PTX: elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], [[A0]], [[B0]],
// PTX: mov.b64 {lo, hi}, [[ADESC1]]; mad.lo.u32 lo, [[STAGE]], 1024, lo; mov.b64 [[A1:%rd[0-9]+]], {lo, hi};
// PTX: mov.b64 {lo, hi}, [[BDESC1]]; mad.lo.u32 lo, [[STAGE]], 2048, lo; mov.b64 [[B1:%rd[0-9]+]], {lo, hi};
// PTX: elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], [[A1]], [[B1]],
// PTX: mov.b64 {lo, hi}, [[ADESC2]]; mad.lo.u32 lo, [[STAGE]], 1024, lo; mov.b64 [[A2:%rd[0-9]+]], {lo, hi};
// PTX: mov.b64 {lo, hi}, [[BDESC2]]; mad.lo.u32 lo, [[STAGE]], 2048, lo; mov.b64 [[B2:%rd[0-9]+]], {lo, hi};
// PTX: elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], [[A2]], [[B2]],
// PTX: mov.b64 {lo, hi}, [[ADESC3]]; mad.lo.u32 lo, [[STAGE]], 1024, lo; mov.b64 [[A3:%rd[0-9]+]], {lo, hi};
// PTX: mov.b64 {lo, hi}, [[BDESC3]]; mad.lo.u32 lo, [[STAGE]], 2048, lo; mov.b64 [[B3:%rd[0-9]+]], {lo, hi};
// PTX: elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], [[A3]], [[B3]],
// PTX: elect.sync _|tcgen05_guard, -1; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
