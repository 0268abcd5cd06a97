// The shipped GEMM tile, end to end: PTX text checked instruction by instruction, then
// assembled by ptxas for sm_100a.
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/gemm_bf16_128x256.mlir --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK: .target sm_100a
// CHECK-LABEL: .visible .entry gemm_bf16_128x256(
// CHECK: .reqntid 128, 1, 1

// Thread 0 initializes the mbarrier; warp 0 allocates 256 columns once.
// CHECK: setp.eq.b32 {{%p[0-9]+}}, [[TID:%r[0-9]+]], 0;
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER:%r[0-9]+]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0:%r[0-9]+]], 0; @tcgen05_guard tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], {{%r[0-9]+}};
// CHECK-NOT: tcgen05.alloc
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK: barrier.sync 0;
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: ld.shared.b32
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0]], 0; @tcgen05_guard tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;

// The operand tiles are filled by all threads, then made visible to the async proxy.
// CHECK: fence.proxy.async.shared::cta;
// CHECK: barrier.sync 0;

// Four K = 16 MMAs issued by one thread; the first overwrites the accumulator.
// CHECK-COUNT-4: setp.ne.b32 tcgen05_guard, [[MMA:%r[0-9]+]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
// CHECK-NOT: tcgen05.mma

// Completion through an mbarrier: commit by the same thread, then every thread waits.
// CHECK: setp.ne.b32 tcgen05_guard, [[MMA]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [{{%r[0-9]+}}];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: bra

// fence::after_thread_sync before the first load; each warp loads its lane quarter.
// The loaded registers are stored straight away: a true register dependency on a
// tcgen05.ld is honoured without tcgen05.wait::ld (9.7.16.6.4.5).
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{]}}[[R0:%r[0-9]+]], {{.*}}}, [{{%r[0-9]+}}];
// CHECK: st.global.b32 {{.*}}[[R0]];

// wait::ld once the loads are done with the cells, then all threads' accesses are
// ordered before warp 0 frees the columns (9.7.16.6.4.4).
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK: barrier.sync 0;
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0]], 0; @tcgen05_guard tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: ret;
