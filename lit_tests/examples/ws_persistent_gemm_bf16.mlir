// The persistent warp-specialized GEMM (examples/ws_persistent_gemm_bf16.mlir), end to end:
// the shape of its full/empty protocol in the PTX, then ptxas for sm_100a, sm_103a and
// sm_110a. Expected by hand from the example's protocol (its header comment) and the PTX
// syntax of mbarrier.init / arrive.expect_tx / try_wait.parity / arrive (9.7.13.15),
// cp.async.bulk.tensor (9.7.9.25.5.1) and tcgen05.commit (9.7.16.12.1): twelve mbarriers,
// ten of count 1 (full and empty of the four ring stages, full of the two accumulator
// stages) and two of count 128 (empty of the accumulator stages: the epilogue's threads);
// 49152 bytes = 128 x 64 x 2 (A's stage) + 256 x 64 x 2 (B's stage); B's stage of a ring
// slot lies 4 x 16384 = 65536 bytes after A's (A's ring first).
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/ws_persistent_gemm_bf16.mlir --arch sm_100a --pass-option 'tcgen05-insert-sync{strategy=none}' --pass-option 'tcgen05-verify-sync{partitions=skip}' -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: FileCheck %s --check-prefix=EPI --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tcgen05-lower %examples/ws_persistent_gemm_bf16.mlir --arch sm_103a --pass-option 'tcgen05-insert-sync{strategy=none}' --pass-option 'tcgen05-verify-sync{partitions=skip}' -o %t103.ptx
// RUN: %ptxas -arch=sm_103a %t103.ptx -o %t103.cubin
// RUN: tcgen05-lower %examples/ws_persistent_gemm_bf16.mlir --arch sm_110a --pass-option 'tcgen05-insert-sync{strategy=none}' --pass-option 'tcgen05-verify-sync{partitions=skip}' -o %t110.ptx
// RUN: %ptxas -arch=sm_110a %t110.ptx -o %t110.cubin

// CHECK-LABEL: .visible .entry ws_persistent_gemm_bf16(
// Thread 0 leads; single-thread instructions take that as an i32 guard.
// CHECK: setp.eq.b32 [[IS0:%p[0-9]+]], {{%r[0-9]+}}, 0;
// CHECK: selp.b32 [[LEADER:%r[0-9]+]], 1, 0, [[IS0]];
// The mbarriers in the order the kernel allocates them.
// CHECK: mov.b32 [[ONE:%r[0-9]+]], 1;
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[FULL0:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[FULL1:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[FULL2:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[FULL3:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[EMPTY0:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[EMPTY1:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[EMPTY2:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[EMPTY3:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[ACCF0:%r[0-9]+]]], [[ONE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[ACCF1:%r[0-9]+]]], [[ONE]];
// CHECK: mov.b32 [[N128:%r[0-9]+]], 128;
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[ACCE0:%r[0-9]+]]], [[N128]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[ACCE1:%r[0-9]+]]], [[N128]];
// CHECK-NOT: mbarrier.init

// Load role, tile %p then tile %p + 1: per K block kb, the wait on ring stage kb's empty
// mbarrier, the expect_tx of both stages' bytes on its full one, and the two TMA loads
// completing on it, A's at {k, 0} and B's at {k, n} into B's stage 65536 bytes on.
// CHECK: ld.param.b64 [[TMB:%rd[0-9]+]], [ws_persistent_gemm_bf16_param_4];
// CHECK: ld.param.b64 [[TMA:%rd[0-9]+]], [ws_persistent_gemm_bf16_param_3];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY0]]], {{%r[0-9]+}};
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 49152;
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL0]]], [[BYTES]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL0]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL0]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY1]]], {{%r[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL1]]], [[BYTES]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL1]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL1]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY2]]], {{%r[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL2]]], [[BYTES]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL2]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL2]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY3]]], {{%r[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL3]]], [[BYTES]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL3]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL3]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY0]]], {{%r[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL0]]], [[BYTES]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL0]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL0]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY1]]], {{%r[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL1]]], [[BYTES]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL1]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL1]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY2]]], {{%r[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL2]]], [[BYTES]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL2]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL2]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[EMPTY3]]], {{%r[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL3]]], [[BYTES]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL3]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+, %r[0-9]+[}]}}], [[[FULL3]]];
// CHECK-NOT: cp.async.bulk.tensor

// MMA role (warp 1: thread 32 issues), tile %p into accumulator stage 0, then tile %p + 1
// into stage 1: the wait on the stage's empty mbarrier and fence::after_thread_sync, per K
// block the wait on full, four MMAs and the commit to empty, then the commit to the
// accumulator stage's full mbarrier.
// CHECK: setp.eq.b32 [[IS32:%p[0-9]+]], {{%r[0-9]+}}, 32;
// CHECK: selp.b32 [[MMA:%r[0-9]+]], 1, 0, [[IS32]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[ACCE0]]], {{%r[0-9]+}};
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL0]]], {{%r[0-9]+}};
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[EMPTY0]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL1]]], {{%r[0-9]+}};
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[EMPTY1]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL2]]], {{%r[0-9]+}};
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[EMPTY2]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL3]]], {{%r[0-9]+}};
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[EMPTY3]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[ACCF0]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[ACCE1]]], {{%r[0-9]+}};
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL0]]], {{%r[0-9]+}};
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[EMPTY0]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL1]]], {{%r[0-9]+}};
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[EMPTY1]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL2]]], {{%r[0-9]+}};
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[EMPTY2]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL3]]], {{%r[0-9]+}};
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[EMPTY3]]];
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[ACCF1]]];
// CHECK-NOT: tcgen05.mma

// Epilogue (its blocks in LLVM's order): per accumulator stage, the wait on its full
// mbarrier and the arrive of every thread on its empty one; then the joining barrier and
// the kernel's fence::after_thread_sync before the dealloc.
// CHECK-DAG: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[ACCF0]]], {{%r[0-9]+}};
// CHECK-DAG: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[ACCF1]]], {{%r[0-9]+}};
// CHECK-DAG: mbarrier.arrive.release.cta.shared::cta.b64 _, [[[ACCE0]]];
// CHECK-DAG: mbarrier.arrive.release.cta.shared::cta.b64 _, [[[ACCE1]]];
// CHECK: barrier.sync 0;
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32

// Each epilogue arrive follows tcgen05.wait::ld and fence::before_thread_sync, and each
// wait on an accumulator stage's full mbarrier (like the MMA warp's on an empty one) is
// followed by fence::after_thread_sync.
// EPI: tcgen05.wait::ld.sync.aligned;
// EPI-NEXT: // end inline asm
// EPI-NEXT: // begin inline asm
// EPI-NEXT: tcgen05.fence::before_thread_sync;
// EPI-NEXT: // end inline asm
// EPI-NEXT: // begin inline asm
// EPI-NEXT: mbarrier.arrive.release.cta.shared::cta.b64 _, [{{%r[0-9]+}}];
// EPI: tcgen05.wait::ld.sync.aligned;
// EPI-NEXT: // end inline asm
// EPI-NEXT: // begin inline asm
// EPI-NEXT: tcgen05.fence::before_thread_sync;
// EPI-NEXT: // end inline asm
// EPI-NEXT: // begin inline asm
// EPI-NEXT: mbarrier.arrive.release.cta.shared::cta.b64 _, [{{%r[0-9]+}}];
// EPI-NOT: mbarrier.arrive.release
