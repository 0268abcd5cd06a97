// The M = 64 pair (examples/gemm_m64_pair.mlir) planned and lowered to PTX: two Layout F
// accumulators in the two lane halves of one 128-column allocation, read back with
// .16x32bx2. ptxas must accept the result.
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/gemm_m64_pair.mlir --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK: .target sm_100a
// CHECK-LABEL: .visible .entry gemm_m64_pair(

// One allocation of 128 columns by warp 0; its address comes back through shared memory.
// CHECK: mov.b32 [[NCOLS:%r[0-9]+]], 128;
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0:%r[0-9]+]], 0; @tcgen05_guard tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], [[NCOLS]];
// CHECK-NOT: tcgen05.alloc
// CHECK: ld.shared.b32 [[ACC0:%r[0-9]+]], [__tcgen05_slots_gemm_m64_pair];
// acc1 sits at lane 16 of the same columns: TMEM address = lane << 16 | column
// (9.7.16.1.1), and 16 << 16 = 1048576.
// CHECK-NEXT: add.s32 [[ACC1:%r[0-9]+]], [[ACC0]], 1048576;
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0]], 0; @tcgen05_guard tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;

// The instruction descriptor (Table 42, kind::f16): dtype F32 = 1 at bits 4-5, atype and
// btype BF16 = 1 at bits 7-9 and 10-12, N >> 3 = 16 at bits 17-22, M >> 4 = 4 at bits
// 24-28: 0x10 | 0x80 | 0x400 | 0x200000 | 0x4000000 = 0x4200490 = 69207184.
// CHECK: fence.proxy.async.shared::cta;
// CHECK: barrier.sync 0;
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 69207184;
// Eight MMAs by one thread, alternating between the two accumulators; the first one of
// each overwrites (enable-input-d false), the others accumulate.
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER:%r[0-9]+]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [[[ACC0]]],
// CHECK-SAME: {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [[OVERWRITE:%p[0-9]+]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [[[ACC1]]],
// CHECK-SAME: {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [[OVERWRITE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [[[ACC0]]],
// CHECK-SAME: {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [[ACCUMULATE:%p[0-9]+]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [[[ACC1]]],
// CHECK-SAME: {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [[ACCUMULATE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [[[ACC0]]],
// CHECK-SAME: {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [[ACCUMULATE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [[[ACC1]]],
// CHECK-SAME: {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [[ACCUMULATE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [[[ACC0]]],
// CHECK-SAME: {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [[ACCUMULATE]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [[[ACC1]]],
// CHECK-SAME: {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], [[ACCUMULATE]];
// CHECK-NOT: tcgen05.mma
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: tcgen05.fence::after_thread_sync;

// Each warp addresses its own lane quarter: base + ((32 * warp) << 16), i.e. warp << 21.
// CHECK: shl.b32 [[QUARTER:%r[0-9]+]], {{%r[0-9]+}}, 21;
// CHECK: add.s32 {{%r[0-9]+}}, [[ACC0]], [[QUARTER]];
// 32 columns per load: two halves of 16 (.x16), the second at immHalfSplitoff 16, 16
// registers per thread (Table 47), first for acc0 ...
// CHECK: tcgen05.ld.sync.aligned.16x32bx2.x16.b32
// CHECK-SAME: {{[{]}}[[R0:%r[0-9]+]], {{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+}}{{[}]}},
// CHECK-SAME: [[[ADDR0:%r[0-9]+]]], 16;
// The registers are stored without tcgen05.wait::ld: tcgen05.ld respects true register
// dependencies (9.7.16.6.4.5); the loads are waited for before the dealloc.
// CHECK-NEXT: // end inline asm
// CHECK-NOT: tcgen05.wait::ld
// CHECK: st.global.b32 [{{.*}}], [[R0]];
// ... then for acc1, 16 lanes further.
// CHECK: add.s32 [[ADDR1:%r[0-9]+]], [[ADDR0]], 1048576;
// CHECK: tcgen05.ld.sync.aligned.16x32bx2.x16.b32
// CHECK-SAME: {{[{]}}{{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+}}{{[}]}},
// CHECK-SAME: [[[ADDR1]]], 16;
// CHECK-NOT: tcgen05.ld
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-NOT: tcgen05.ld

// CHECK: tcgen05.fence::before_thread_sync;
// CHECK: barrier.sync 0;
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: mov.b32 [[DCOLS:%r[0-9]+]], 128;
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0]], 0; @tcgen05_guard tcgen05.dealloc.cta_group::1.sync.aligned.b32 [[ACC0]], [[DCOLS]];
// CHECK: ret;
