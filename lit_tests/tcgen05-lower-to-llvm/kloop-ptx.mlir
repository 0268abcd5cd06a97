// The K loop of examples/gemm_bf16_kloop.mlir in PTX: every iteration refills the tiles,
// issues four MMAs, commits them and waits on the mbarrier before the next iteration's
// fills. ptxas must accept the result.
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/gemm_bf16_kloop.mlir --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK: .target sm_100a
// CHECK-LABEL: .visible .entry gemm_bf16_kloop(
// Thread 0 initializes the one mbarrier for one arrival per phase.
// CHECK: mov.b32 [[COUNT:%r[0-9]+]], 1;
// CHECK: mbarrier.init.shared::cta.b64 [[[MBAR:%r[0-9]+]]], [[COUNT]];
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;

// The K loop: k = 0, 64, ... while k < 512. LLVM lays the body out before the loop
// header, and the fills of the next iteration after the header. k counts in 32 bits: its
// bounds are constants below 2^31 (lowering.loops).
// CHECK: mov.b32 [[K:%r[0-9]+]], 0;
// The proxy fence and the barrier after the fills, before the MMAs read the tiles.
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NOT: tcgen05.ld
// CHECK: barrier.sync 0;
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
// CHECK-NOT: tcgen05.mma
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[MBAR]]];
// The phase parity of iteration k / 64 is its low bit, bit 6 of k.
// CHECK: bfe.u32 [[PARITY:%r[0-9]+]], {{%r[0-9]+}}, 6, 1;
// The wait loop, inside the K loop and inside one inline PTX block: try_wait until the
// phase completed.
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: { .reg .pred tcgen05_done; tcgen05_wait: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[MBAR]]], [[PARITY]]; @!tcgen05_done bra tcgen05_wait; }
// CHECK-NEXT: // end inline asm
// CHECK-NOT: tcgen05.
// CHECK: add.s32 [[K]], [[K]], 64;
// CHECK: setp.gt.s32 [[KDONE:%p[0-9]+]], [[K]], 511;
// CHECK: @[[KDONE]] bra [[KEXIT:\$L__BB[0-9_]+]];
// The fills: 16-byte chunks of A (K-major source), 2-byte elements of B (transposed).
// CHECK-NOT: tcgen05.
// CHECK: st.shared.v2.b64
// CHECK-NOT: tcgen05.
// CHECK: st.shared.b16
// CHECK-NOT: tcgen05.
// CHECK: [[KEXIT]]:

// After the loop, once: fence::after_thread_sync, then the epilogue loads.
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: tcgen05.fence::after_thread_sync;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// CHECK: ret;
