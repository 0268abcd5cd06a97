// P through tensor memory as the A operand of the next MMA (examples/gemm_chain_p_tmem.mlir):
// the planned IR shows the store of the computed bf16 fragment into the A buffer (packed:
// 64 K elements in 32 columns, .32x32b.x32) and the ordering before the MMA that reads it
// (9.7.16.6.4: the store's completion, tcgen05.wait::st; then fence::before_thread_sync,
// a barrier and fence::after_thread_sync, since thread 0 issues the MMA for all four
// warps); the PTX is assembled by ptxas.
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/gemm_chain_p_tmem.mlir --emit=mlir --report -o %t.mlir 2> %t.report
// RUN: FileCheck %s --input-file %t.mlir
// RUN: FileCheck %s --input-file %t.report --check-prefix=REPORT
// RUN: tcgen05-lower %examples/gemm_chain_p_tmem.mlir --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx --check-prefix=PTX
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// REPORT: %P 128x64xbf16: Layout D, role a, 32 columns
// REPORT: tcgen05.st at line {{[0-9]+}}: 32 columns, .32x32b.x32, 1 message x 4 warps, 32 registers per thread; A operand: 64 K elements packed in 32 columns
// REPORT: %P      128x64xbf16  D       0-127  [64, 96)

// CHECK-LABEL: func.func @gemm_chain_p_tmem
// CHECK: %[[P:.*]] = "tcgen05.tmem_buffer"(%{{.*}}) {column_offset = 64 : i64, columns = 32 : i64, {{.*}}layout = "D", name = "P", role = "a"}
// CHECK: "tcgen05.ld"(%{{.*}}, %[[C0:.*]]) {num = 64 : i64, shape = "32x32b"}
// CHECK: %[[PF:.*]] = "tcgen05.frag_map"
// CHECK: "tcgen05.st"(%[[P]], %[[C0]], %[[PF]]) {num = 32 : i64, shape = "32x32b"}
// CHECK-NEXT: "tcgen05.wait"() {kind = "st"{{.*}}
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync", reason = "completion of tcgen05.st at line {{[0-9]+}} before tcgen05.mma
// CHECK-NEXT: "tcgen05.barrier"()
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.mma"(%{{.*}}, %[[P]], %{{.*}}, %{{.*}}) {k_offset = 0 : i64

// The packed registers: two bf16 of a row in one 32-bit register, the lower K in the low half.
// PTX: cvt.rn.bf16.f32 [[LO:%rs[0-9]+]],
// PTX: cvt.rn.bf16.f32 [[HI:%rs[0-9]+]],
// PTX: cvt.u32.u16 [[LO32:%r[0-9]+]], [[LO]];
// PTX: cvt.u32.u16 [[HI32:%r[0-9]+]], [[HI]];
// PTX: shl.b32 [[SH:%r[0-9]+]], [[HI32]], 16;
// PTX: or.b32 [[R0:%r[0-9]+]], [[LO32]], [[SH]];
// PTX: tcgen05.st.sync.aligned.32x32b.x32.b32 [{{%r[0-9]+}}], {[[R0]],
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: tcgen05.fence::before_thread_sync;
// PTX: barrier.sync 0;
// PTX: tcgen05.fence::after_thread_sync;
// PTX: tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
