// The warp-specialized TMA GEMM on a CTA pair synchronized by hand
// (tests/kernels/ws_gemm_2cta_bf16_hand.mlir; examples/ws_gemm_2cta_bf16.mlir is the same
// kernel with no synchronization, lit_tests/examples/ws_gemm_2cta_bf16.mlir), end to
// end: the pair's protocol in the PTX, then ptxas for sm_100a, sm_103a and sm_110a.
// Expected by hand from the example's protocol (its header comment, docs/cta-pairs.md)
// and the PTX syntax of mbarrier.init / arrive.expect_tx / try_wait.parity / arrive
// (9.7.13.15), mapa, cp.async.bulk.tensor with .cta_group::2 (9.7.9.25.5.1),
// tcgen05.mma.cta_group::2 (9.7.16.10.9.1) and tcgen05.commit multicast (9.7.16.12.1):
// a cluster of 2; eight mbarriers, six of count 1 and two of count 256 (the accumulator
// empty mbarriers: both CTAs' 128 epilogue threads); the expect_tx of the even CTA's
// issuing thread announces 49152 = 2 x (128 x 64 x 2 + 64 x 64 x 2) bytes (both CTAs'
// A and B stages); each CTA's TMA loads complete on the mbarrier mapa gives in the even
// CTA (rank & -2); the waits on mbarriers the other CTA completes acquire at cluster
// scope; the commits multicast to both CTAs (mask 3); the epilogue arrives on the even
// CTA's mbarrier with release at cluster scope.
// REQUIRES: ptxas
// RUN: tcgen05-lower %S/../../tests/kernels/ws_gemm_2cta_bf16_hand.mlir --arch sm_100a --pass-option 'tcgen05-insert-sync{strategy=none}' -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: FileCheck %s --check-prefix=COUNT --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tcgen05-lower %S/../../tests/kernels/ws_gemm_2cta_bf16_hand.mlir --arch sm_103a --pass-option 'tcgen05-insert-sync{strategy=none}' -o %t103.ptx
// RUN: %ptxas -arch=sm_103a %t103.ptx -o %t103.cubin
// RUN: tcgen05-lower %S/../../tests/kernels/ws_gemm_2cta_bf16_hand.mlir --arch sm_110a --pass-option 'tcgen05-insert-sync{strategy=none}' -o %t110.ptx
// RUN: %ptxas -arch=sm_110a %t110.ptx -o %t110.cubin

// CHECK-LABEL: .visible .entry ws_gemm_2cta_bf16(
// CHECK: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
// The pair's even rank, read once: %cluster_ctarank & ~1.
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// CHECK: and.b32 [[EVEN:%r[0-9]+]], [[RANK]], -2;
// The mbarriers in the order the kernel allocates them: full0, full1, empty0, empty1,
// acc_full0, acc_full1 (count 1), acc_empty0, acc_empty1 (count 256).
// CHECK: mov.b32 [[ONE:%r[0-9]+]], 1;
// CHECK: mbarrier.init.shared::cta.b64 [[[FULL0:%r[0-9]+]]], [[ONE]];
// CHECK: mbarrier.init.shared::cta.b64 [[[FULL1:%r[0-9]+]]], [[ONE]];
// CHECK: mbarrier.init.shared::cta.b64 [[[EMPTY0:%r[0-9]+]]], [[ONE]];
// CHECK: mbarrier.init.shared::cta.b64 [[[EMPTY1:%r[0-9]+]]], [[ONE]];
// CHECK: mbarrier.init.shared::cta.b64 [[[ACCF0:%r[0-9]+]]], [[ONE]];
// CHECK: mbarrier.init.shared::cta.b64 [[[ACCF1:%r[0-9]+]]], [[ONE]];
// CHECK: mov.b32 [[N256:%r[0-9]+]], 256;
// CHECK: mbarrier.init.shared::cta.b64 [[[ACCE0:%r[0-9]+]]], [[N256]];
// CHECK: mbarrier.init.shared::cta.b64 [[[ACCE1:%r[0-9]+]]], [[N256]];
// CHECK: fence.mbarrier_init.release.cluster;
// One warp per CTA allocates (cta_group::2), then the pair meets at a cluster barrier.
// CHECK: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32
// CHECK: barrier.cluster.arrive; barrier.cluster.wait;

// Load role, first K block: each CTA waits on its own empty mbarrier (a commit of the
// even CTA's MMA warp signals both), the even CTA's thread expects both CTAs' bytes on
// full0, and each CTA's thread loads its slices, completing on the even CTA's full0.
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY0]]], {{%r[0-9]+}};
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 49152;
// CHECK: @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL0]]], [[BYTES]];
// CHECK: mapa.shared::cluster.u32 [[EVENFULL:%r[0-9]+]], [[FULL0]], [[EVEN]];
// CHECK: @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[EVENFULL]]];
// CHECK: mapa.shared::cluster.u32 [[EVENFULLB:%r[0-9]+]], [[FULL0]], [[EVEN]];
// CHECK: @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[EVENFULLB]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY1]]], {{%r[0-9]+}};
// CHECK: @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL1]]], [[BYTES]];

// MMA role: M = 256 MMAs for the pair, the stage's release multicast to both CTAs.
// CHECK: tcgen05.mma.cta_group::2.kind::f16
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// The waits on acc_empty (both CTAs' arrivals) and on full (both CTAs' loads) acquire at
// cluster scope.
// CHECK-DAG: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 tcgen05_done, [[[ACCE0]]],
// CHECK-DAG: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 tcgen05_done, [[[FULL0]]],
// Epilogue: each CTA's threads arrive on the even CTA's acc_empty.
// CHECK-DAG: mapa.shared::cluster.u32 [[EVENACCE:%r[0-9]+]], [[ACCE1]], [[EVEN]];
// CHECK-DAG: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[EVENACCE]]];

// COUNT-COUNT-8: mbarrier.init.shared::cta.b64
// COUNT-NOT: mbarrier.init
// COUNT-COUNT-16: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
// COUNT-NOT: cp.async.bulk.tensor
