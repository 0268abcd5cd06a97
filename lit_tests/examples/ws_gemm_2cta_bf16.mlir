// The warp-specialized TMA GEMM on a CTA pair (examples/ws_gemm_2cta_bf16.mlir), written
// with no synchronization: the pair protocol tcgen05-insert-sync writes into the planned
// IR (prefix PLAN), then, end to end with the default pipeline, the pair's protocol in
// the PTX and ptxas for sm_100a, sm_103a and sm_110a.
// The PLAN lines are written by hand from the protocol (docs/cta-pairs.md, "Warp roles
// and TMA in a CTA pair"; docs/partitions.md; 9.7.16.6.4.3 / .4, 9.7.13.15,
// 9.7.9.25.5.1, 9.7.16.12.1): four mbarrier rings of 2 stages, full (count 1: the even
// CTA's expect_tx), empty (count 1: the commit), acc_full (count 1: the commit) and
// acc_empty (count 256: the 128 epilogue threads of each CTA of the pair); per K block
// the use counter it = 4 t + kb, stage it mod 2 and round it / 2; per tile stage t mod 2
// and round t / 2; parities round & 1 (full, acc_full) and (round + 1) & 1 (empty,
// acc_empty); the expect_tx announces both CTAs' bytes, 49152 = 2 x (128 x 64 x 2 +
// 64 x 64 x 2); both commits multicast to the two CTAs (mask 3 = 0b11); the epilogue
// arrives at the even CTA's acc_empty (cta = "even"); the load role ends with the
// producer tail, a wait on each empty stage for the phase of its last commit.
// The CHECK lines (PTX) follow the PTX syntax of mbarrier.init / arrive.expect_tx /
// try_wait.parity / arrive (9.7.13.15), mapa, cp.async.bulk.tensor with .cta_group::2
// (9.7.9.25.5.1), tcgen05.mma.cta_group::2 (9.7.16.10.9.1) and tcgen05.commit multicast
// (9.7.16.12.1): a cluster of 2; eight mbarriers (the rings' stages), six of count 1 and
// two of count 256; each CTA's TMA loads complete on the mbarrier mapa gives in the even
// CTA (rank & -2); the waits on mbarriers the other CTA completes (full: its loads;
// acc_empty: its arrivals) acquire at cluster scope; the others (empty, acc_full) do not.
// REQUIRES: ptxas
// RUN: tcgen05-opt %examples/ws_gemm_2cta_bf16.mlir -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync' | FileCheck %s --check-prefix=PLAN --implicit-check-not=fence_proxy_async
// RUN: tcgen05-lower %examples/ws_gemm_2cta_bf16.mlir --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: FileCheck %s --check-prefix=COUNT --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tcgen05-lower %examples/ws_gemm_2cta_bf16.mlir --arch sm_103a -o %t103.ptx
// RUN: %ptxas -arch=sm_103a %t103.ptx -o %t103.cubin
// RUN: tcgen05-lower %examples/ws_gemm_2cta_bf16.mlir --arch sm_110a -o %t110.ptx
// RUN: %ptxas -arch=sm_110a %t110.ptx -o %t110.cubin

// PLAN-LABEL: func.func @ws_gemm_2cta_bf16(
// The rings, at the kernel's entry, in the order full, empty, acc_full, acc_empty.
// PLAN: %[[FULL:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
// PLAN-NEXT: %[[EMPTY:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
// PLAN-NEXT: %[[ACCF:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
// PLAN-NEXT: %[[ACCE:.+]] = "tcgen05.alloc_mbarrier"() {count = 256 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier

// Load role (each CTA): per K block, wait for the stage's empty phase of the previous
// round (its own CTA's copy), expect both CTAs' bytes on full (issued by the even CTA
// only), and the two TMA loads of the CTA's slices complete on the even CTA's full.
// PLAN: "tcgen05.partitions"
// PLAN: scf.for %[[T:[^ ]+]] = 
// PLAN: scf.for %[[KB:[^ ]+]] = 
// PLAN: %[[AS:.+]] = "tcgen05.smem_stage"
// PLAN-NEXT: %[[BS:.+]] = "tcgen05.smem_stage"
// PLAN-NEXT: %[[T4:.+]] = arith.muli %[[T]], %c4{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[IT:.+]] = arith.addi %[[T4]], %[[KB]] : index
// PLAN-NEXT: %[[S:.+]] = arith.remui %[[IT]], %c2{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[R:.+]] = arith.divui %[[IT]], %c2{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[FULL_S:.+]] = "tcgen05.mbarrier_stage"(%[[FULL]], %[[S]])
// PLAN-NEXT: %[[EMPTY_S:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %[[S]])
// PLAN-NEXT: %[[R1:.+]] = arith.addi %[[R]], %c1{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[EP:.+]] = arith.andi %[[R1]], %c1{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[EP32:.+]] = arith.index_cast %[[EP]] : index to i32
// PLAN-NEXT: "tcgen05.mbarrier_wait"(%[[EMPTY_S]], %[[EP32]])
// PLAN-NEXT: "tcgen05.mbarrier_expect_tx"(%[[FULL_S]]) {bytes = 49152 : i64
// PLAN-NEXT: "tcgen05.tma_load"(%{{[^,]+}}, %[[AS]], %[[FULL_S]], %{{[^,]+}}, %{{[^,]+}})
// PLAN-NEXT: "tcgen05.tma_load"(%{{[^,]+}}, %[[BS]], %[[FULL_S]], %{{[^,]+}}, %{{[^,]+}})
// PLAN-NEXT: {{^ *[}]$}}
// PLAN-NEXT: {{^ *[}]$}}
// The producer tail, after the loops (each CTA, on its own copies): 4 tiles x 4 K blocks
// = 16 uses of the 2 stages, so each empty_s gets 8 commits (uses s, s + 2, .., s + 14),
// the last in phase 7: one wait per stage, in stage order, for parity 7 & 1 = 1.
// PLAN-NEXT: %[[TAIL0:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c0{{(_[0-9]+)?}})
// PLAN-NEXT: %[[TP0:.+]] = arith.constant 1 : i32
// PLAN-NEXT: "tcgen05.mbarrier_wait"(%[[TAIL0]], %[[TP0]]) {reason = "producer tail
// PLAN-NEXT: %[[TAIL1:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %c1{{(_[0-9]+)?}})
// PLAN-NEXT: %[[TP1:.+]] = arith.constant 1 : i32
// PLAN-NEXT: "tcgen05.mbarrier_wait"(%[[TAIL1]], %[[TP1]]) {reason = "producer tail
// PLAN-NEXT: gpu.yield
// PLAN-NEXT: name = "load"

// MMA role (issued by the even CTA): per tile, wait until both CTAs' epilogues drained
// the accumulator stage's previous round, fence after_thread_sync, the K loop, then
// commit to acc_full of both CTAs; per K block wait for the stage's full phase of this
// round, the four pair MMAs, commit to empty of both CTAs.
// PLAN: scf.for %[[MT:[^ ]+]] = 
// PLAN: %[[D:.+]] = "tcgen05.tmem_stage"
// PLAN-NEXT: %[[J:.+]] = arith.remui %[[MT]], %c2{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[U:.+]] = arith.divui %[[MT]], %c2{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[ACCF_J:.+]] = "tcgen05.mbarrier_stage"(%[[ACCF]], %[[J]])
// PLAN-NEXT: %[[ACCE_J:.+]] = "tcgen05.mbarrier_stage"(%[[ACCE]], %[[J]])
// PLAN-NEXT: %[[U1:.+]] = arith.addi %[[U]], %c1{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[AEP:.+]] = arith.andi %[[U1]], %c1{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[AEP32:.+]] = arith.index_cast %[[AEP]] : index to i32
// PLAN-NEXT: "tcgen05.mbarrier_wait"(%[[ACCE_J]], %[[AEP32]])
// PLAN-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// PLAN-NEXT: scf.for %[[MKB:[^ ]+]] = 
// PLAN: %[[MAS:.+]] = "tcgen05.smem_stage"
// PLAN-NEXT: %[[MBS:.+]] = "tcgen05.smem_stage"
// PLAN-NEXT: %[[ACCUMULATE:.+]] = arith.cmpi ne, %[[MKB]]
// PLAN-NEXT: %[[MT4:.+]] = arith.muli %[[MT]], %c4{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[MIT:.+]] = arith.addi %[[MT4]], %[[MKB]] : index
// PLAN-NEXT: %[[MS:.+]] = arith.remui %[[MIT]], %c2{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[MR:.+]] = arith.divui %[[MIT]], %c2{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[FULL_MS:.+]] = "tcgen05.mbarrier_stage"(%[[FULL]], %[[MS]])
// PLAN-NEXT: %[[EMPTY_MS:.+]] = "tcgen05.mbarrier_stage"(%[[EMPTY]], %[[MS]])
// PLAN-NEXT: %[[FP:.+]] = arith.andi %[[MR]], %c1{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[FP32:.+]] = arith.index_cast %[[FP]] : index to i32
// PLAN-NEXT: "tcgen05.mbarrier_wait"(%[[FULL_MS]], %[[FP32]])
// PLAN-NEXT: "tcgen05.mma"(%[[D]], %[[MAS]], %[[MBS]], %[[ACCUMULATE]]) {k_offset = 0 : i64
// PLAN-NEXT: "tcgen05.mma"(%[[D]], %[[MAS]], %[[MBS]], %{{.+}}) {k_offset = 16 : i64
// PLAN-NEXT: "tcgen05.mma"(%[[D]], %[[MAS]], %[[MBS]], %{{.+}}) {k_offset = 32 : i64
// PLAN-NEXT: "tcgen05.mma"(%[[D]], %[[MAS]], %[[MBS]], %{{.+}}) {k_offset = 48 : i64
// PLAN-NEXT: "tcgen05.commit"(%[[EMPTY_MS]]) {multicast_mask = 3 : i64
// PLAN-NEXT: {{^ *[}]$}}
// PLAN-NEXT: "tcgen05.commit"(%[[ACCF_J]]) {multicast_mask = 3 : i64
// PLAN-NEXT: {{^ *[}]$}}
// PLAN: name = "mma"

// Epilogue (each CTA): per tile, wait for the accumulator stage's full phase of this
// round (its own copy), fence after_thread_sync, the loads and stores of its 128 lanes,
// then wait::ld, fence before_thread_sync and every thread's arrive on the even CTA's
// acc_empty.
// PLAN: scf.for %[[ET:[^ ]+]] = 
// PLAN: %[[ED:.+]] = "tcgen05.tmem_stage"
// PLAN-NEXT: %[[EJ:.+]] = arith.remui %[[ET]], %c2{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[EU:.+]] = arith.divui %[[ET]], %c2{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[EACCF_J:.+]] = "tcgen05.mbarrier_stage"(%[[ACCF]], %[[EJ]])
// PLAN-NEXT: %[[EACCE_J:.+]] = "tcgen05.mbarrier_stage"(%[[ACCE]], %[[EJ]])
// PLAN-NEXT: %[[AFP:.+]] = arith.andi %[[EU]], %c1{{(_[0-9]+)?}} : index
// PLAN-NEXT: %[[AFP32:.+]] = arith.index_cast %[[AFP]] : index to i32
// PLAN-NEXT: "tcgen05.mbarrier_wait"(%[[EACCF_J]], %[[AFP32]])
// PLAN-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// PLAN-NEXT: scf.for
// PLAN-NEXT: "tcgen05.ld"(%[[ED]],
// PLAN-NEXT: arith.addi
// PLAN-NEXT: "tcgen05.store_fragment"
// PLAN-NEXT: {{^ *[}]$}}
// PLAN-NEXT: "tcgen05.wait"() {kind = "ld"
// PLAN-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// PLAN-NEXT: "tcgen05.mbarrier_arrive"(%[[EACCE_J]]) {cta = "even"
// PLAN-NEXT: {{^ *[}]$}}
// PLAN: name = "epilogue"

// After the join (a cluster barrier): fence after_thread_sync, then the dealloc.
// PLAN: }) : () -> ()
// PLAN-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// PLAN-NEXT: "tcgen05.dealloc"

// CHECK-LABEL: .visible .entry ws_gemm_2cta_bf16(
// CHECK: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
// The pair's even rank, read once: %cluster_ctarank & ~1.
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// CHECK: and.b32 [[EVEN:%r[0-9]+]], [[RANK]], -2;
// The rings' mbarriers in the order they are allocated: full (2 stages), empty,
// acc_full (count 1), acc_empty (count 256).
// CHECK: mov.b32 [[ONE:%r[0-9]+]], 1;
// CHECK-COUNT-6: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], [[ONE]];
// CHECK: mov.b32 [[N256:%r[0-9]+]], 256;
// CHECK-COUNT-2: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], [[N256]];
// CHECK: fence.mbarrier_init.release.cluster;
// One warp per CTA allocates (cta_group::2), then the pair meets at a cluster barrier.
// CHECK: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32
// CHECK: barrier.cluster.arrive; barrier.cluster.wait;

// Load role: each CTA waits on its own empty stage (a wait that acquires at CTA scope:
// only the even CTA's commit completes it), the even CTA's thread expects both CTAs'
// bytes on the full stage, and each CTA's thread loads its slices, completing on the
// even CTA's copy of that stage.
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done,
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 49152;
// CHECK: @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULLS:%r[0-9]+]]], [[BYTES]];
// CHECK: mapa.shared::cluster.u32 [[EVENFULL:%r[0-9]+]], [[FULLS]], [[EVEN]];
// CHECK: @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[EVENFULL]]];
// CHECK: mapa.shared::cluster.u32 [[EVENFULLB:%r[0-9]+]], [[FULLS]], [[EVEN]];
// CHECK: @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[EVENFULLB]]];
// The producer tail, after the load loop, in each CTA (a wait on an mbarrier the commit
// multicast completes in both: CTA scope): parity 1, the phase of the last of the 8
// commits to each empty stage, one wait per stage.
// CHECK: mov.b32 [[TAILP:%r[0-9]+]], 1;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [{{%r[0-9]+}}], [[TAILP]];
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [{{%r[0-9]+}}], [[TAILP]];

// MMA role: M = 256 MMAs for the pair; the releases multicast to both CTAs; the waits on
// full (both CTAs' loads) and acc_empty (both CTAs' arrivals) acquire at cluster scope.
// CHECK-DAG: tcgen05.mma.cta_group::2.kind::f16
// CHECK-DAG: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// CHECK-DAG: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 tcgen05_done,
// Epilogue: each CTA's threads arrive on the even CTA's acc_empty stage, then wait (at
// CTA scope) on their own acc_full stage of the next tile.
// CHECK: mapa.shared::cluster.u32 [[EVENACCE:%r[0-9]+]], {{%r[0-9]+}}, [[EVEN]];
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[EVENACCE]]];

// COUNT-COUNT-8: mbarrier.init.shared::cta.b64
// COUNT-NOT: mbarrier.init
// COUNT-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
// COUNT-NOT: cp.async.bulk.tensor
// COUNT-COUNT-2: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// COUNT-NOT: tcgen05.commit
