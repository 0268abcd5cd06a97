// Attention with online softmax over 4 KV blocks (examples/attention_fwd_bf16.mlir): the
// planned IR (after tcgen05-select-layouts, tcgen05-plan-tmem and tcgen05-insert-sync)
// shows, inside the loop over the blocks,
// - the running max and sum carried by the loop as per-row iteration arguments (from
//   frag_maps of no input), updated by per-row maps;
// - P stored with tcgen05.st into the A buffer of the P V MMA (64 K elements packed in 32
//   columns, .32x32b.x32);
// - O rescaled in tensor memory (ld, frag_map, st) after the first block;
// - the ordering before the P V MMA (9.7.16.6.4: the stores' completion, tcgen05.wait::st,
//   then fence::before_thread_sync, a barrier and fence::after_thread_sync, since thread
//   0 issues the MMA for all four warps);
// - S, P and O planned together: three disjoint column ranges, and the report says why
//   S and P share no columns (both are live across the loop).
// The expected column ranges are the first-fit placement by hand: S 64 columns at 0, P
// (64 bf16 K elements, two per 32-bit column, 9.7.16.10.4) 32 at 64, O 64 at 96; the
// allocation is the power of two at or above 160 (256).
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/attention_fwd_bf16.mlir --emit=mlir --report -o %t.mlir 2> %t.report
// RUN: FileCheck %s --input-file %t.mlir
// RUN: FileCheck %s --input-file %t.report --check-prefix=REPORT
// RUN: tcgen05-lower %examples/attention_fwd_bf16.mlir --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx --check-prefix=PTX
// RUN: FileCheck %s --input-file %t.ptx --check-prefix=SYNC
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// REPORT: %P 128x64xbf16: Layout D, role a, 32 columns
// REPORT: tcgen05.st at line {{[0-9]+}}: 32 columns, .32x32b.x32, 1 message x 4 warps, 32 registers per thread; A operand: 64 K elements packed in 32 columns
// REPORT: tcgen05-plan-tmem: kernel @attention_fwd_bf16 strategy=first-fit peak=160 columns allocation=256 columns
// REPORT-NEXT: buffer
// REPORT-NEXT: %S      128x64xf32   D       0-127  [0, 64)
// REPORT-NEXT: %P      128x64xbf16  D       0-127  [64, 96)
// REPORT-NEXT: %O      128x64xf32   D       0-127  [96, 160)
// REPORT-NEXT: sharing: %S shares no columns: live [[S:\[[0-9]+, [0-9]+\]]] overlaps %P's [[P:\[[0-9]+, [0-9]+\]]] (buffers live at the same time on the same lanes never share columns)
// REPORT-NEXT: sharing: %P shares no columns: live [[P]] overlaps %S's [[S]]
// REPORT: tcgen05-verify-sync: kernel @attention_fwd_bf16: {{.*}}: ordered

// CHECK-LABEL: func.func @attention_fwd_bf16
// CHECK: %[[S:.*]] = "tcgen05.tmem_buffer"(%{{.*}}) {column_offset = 0 : i64, columns = 64 : i64, {{.*}}name = "S", role = "d"}
// CHECK: %[[P:.*]] = "tcgen05.tmem_buffer"(%{{.*}}) {column_offset = 64 : i64, columns = 32 : i64, {{.*}}name = "P", role = "a"}
// CHECK: %[[O:.*]] = "tcgen05.tmem_buffer"(%{{.*}}) {column_offset = 96 : i64, columns = 64 : i64, {{.*}}name = "O", role = "d"}
// CHECK: %[[MINIT:.*]] = "tcgen05.frag_map"() ({
// CHECK: %[[LINIT:.*]] = "tcgen05.frag_map"() ({
// CHECK: scf.for %{{.*}} iter_args(%[[M:.*]] = %[[MINIT]], %[[L:.*]] = %[[LINIT]]) -> (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>)
// CHECK: "tcgen05.ld"(%[[S]], %{{.*}}) {num = 64 : i64, shape = "32x32b"}
// CHECK: %[[MJ:.*]] = "tcgen05.frag_reduce"
// CHECK: %[[MNEW:.*]] = "tcgen05.frag_map"(%[[M]], %[[MJ]])
// CHECK: %[[LNEW:.*]] = "tcgen05.frag_map"(%[[L]], %{{.*}}, %{{.*}})
// CHECK: %[[PF:[0-9]+]] = "tcgen05.frag_map"(%{{[0-9]+}}) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: }) : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], bf16>
// CHECK-NEXT: "tcgen05.st"(%[[P]], %{{.*}}, %[[PF]]) {num = 32 : i64, shape = "32x32b"}
// CHECK-NEXT: scf.if
// CHECK: "tcgen05.ld"(%[[O]], %{{.*}}) {num = 32 : i64, shape = "32x32b"}
// CHECK: "tcgen05.st"(%[[O]], %{{.*}}, %{{.*}}) {num = 32 : i64, shape = "32x32b"}
// CHECK: "tcgen05.wait"() {kind = "st", reason = "completion of tcgen05.st at line {{[0-9]+}}, tcgen05.st at line {{[0-9]+}} before tcgen05.mma
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"()
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.mma"(%[[O]], %[[P]], %{{.*}}, %{{.*}}) {k_offset = 0 : i64
// CHECK: scf.yield %[[MNEW]], %[[LNEW]] : !tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>

// The running max and sum are loop-carried registers (no one-column TMEM message); P
// goes to its A buffer:
// PTX-NOT: .32x32b.x1.
// PTX: tcgen05.st.sync.aligned.32x32b.x32.b32
// PTX-NOT: .32x32b.x1.
// The ordering before the P V MMA (the block stands apart from the stores in the PTX's
// block layout):
// SYNC: tcgen05.wait::st.sync.aligned;
// SYNC: tcgen05.fence::before_thread_sync;
// SYNC: barrier.sync 0;
// SYNC: tcgen05.fence::after_thread_sync;
// SYNC: tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}
