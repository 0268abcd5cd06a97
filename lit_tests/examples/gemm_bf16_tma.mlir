// The TMA-fed K-loop GEMM (examples/gemm_bf16_tma.mlir), end to end: the TMA and
// expect_tx lines of the PTX, then ptxas for sm_100a, sm_103a and sm_110a.
// Expected by hand: the syntax of cp.async.bulk.tensor (PTX ISA 9.7.9.25.5.1, the line
// upstream's nvvm.cp.async.bulk.tensor.shared.cluster.global lowers to, see
// tests/test_differential_nvvm.py) and of mbarrier.arrive.expect_tx (9.7.13.15.13);
// 49152 bytes = 128 x 64 x 2 (A's tile) + 256 x 64 x 2 (B's tile).
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/gemm_bf16_tma.mlir --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tcgen05-lower %examples/gemm_bf16_tma.mlir --arch sm_103a -o %t103.ptx
// RUN: %ptxas -arch=sm_103a %t103.ptx -o %t103.cubin
// RUN: tcgen05-lower %examples/gemm_bf16_tma.mlir --arch sm_110a -o %t110.ptx
// RUN: %ptxas -arch=sm_110a %t110.ptx -o %t110.cubin

// CHECK-LABEL: .visible .entry gemm_bf16_tma(
// The tensor maps are the fourth and fifth parameters: global addresses of CUtensorMaps.
// CHECK-DAG: ld.param.b64 [[TMB:%rd[0-9]+]], [gemm_bf16_tma_param_4];
// CHECK-DAG: ld.param.b64 [[TMA:%rd[0-9]+]], [gemm_bf16_tma_param_3];
// Thread 0 leads; single-thread instructions take that as an i32 guard.
// CHECK: setp.eq.b32 [[IS0:%p[0-9]+]], {{%r[0-9]+}}, 0;
// CHECK: selp.b32 [[LEADER:%r[0-9]+]], 1, 0, [[IS0]];

// Per K-block: one thread arrives on the full mbarrier expecting both tiles' bytes, then
// issues both loads, at coordinates {k, 0}, signalling that mbarrier.
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 49152;
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL:%r[0-9]+]]], [[BYTES]];
// CHECK: cvta.global.u64 [[GA:%rd[0-9]+]], [[TMA]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: [{{%r[0-9]+}}], [[[GA]], {[[K:%r[0-9]+]], [[ROW:%r[0-9]+]]}], [[[FULL]]];
// CHECK: cvta.global.u64 [[GB:%rd[0-9]+]], [[TMB]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: [{{%r[0-9]+}}], [[[GB]], {[[K]], [[ROW]]}], [[[FULL]]];
// CHECK-NOT: cp.async.bulk.tensor
// Every thread waits for the full mbarrier's phase before the MMAs read the tiles.
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[FULL]]]
// CHECK: tcgen05.mma.cta_group::1.kind::f16
