// Multi-buffered buffers ([stages, rows, cols]) and tcgen05.tmem_stage. tcgen05-plan-tmem
// places the stages (stage_layout, stage_stride on the buffer) and copies the buffer's
// layout onto each view; tcgen05.tmem_stage lowers to the stage's TMEM address, lane in
// bits 31-16 and column in bits 15-0 (9.7.16.1.1).
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-plan-tmem{strategy=optimal}' | FileCheck %s
// RUN: tcgen05-opt %s -p 'tcgen05-plan-tmem{strategy=optimal},tcgen05-lower-to-llvm,canonicalize' | FileCheck %s --check-prefix=ADDR
// RUN: tcgen05-lower %s --pipeline 'tcgen05-plan-tmem{strategy=optimal},tcgen05-lower-to-llvm,convert-nvvm-to-llvm,convert-scf-to-cf,convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts,tcgen05-finalize-kernels' -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// The buffers carry the footprint tcgen05-select-layouts gives one stage (64 x 128 f32
// Layout F: 128 columns on 16 lanes of each quarter; 128 x 64 f32 Layout D: 64 columns),
// and the MMAs the layout it selects.
!f3 = !tcgen05.tmem<[3, 64, 128], f32>
!f = !tcgen05.tmem<[64, 128], f32>
!d2 = !tcgen05.tmem<[2, 128, 64], f32>
!d = !tcgen05.tmem<[128, 64], f32>
!ta64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!ta128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">

// Three half-lane stages: stages 0 and 1 share columns [0, 128) at lane offsets 0 and
// 16, stage 2 takes [128, 256) at lane offset 0. Two full-lane stages of 64 columns go
// side by side above them: [256, 320) and [320, 384). Peak 384, allocation 512.
// CHECK-LABEL: func.func @stages
// CHECK: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 512 : i64, cta_group = 1 : i64}
// CHECK: [[F3:%.+]] = "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = true, lane_offset = 0 : i64, layout = "F", name = "f3", role = "d", stage_layout = "lane_pairs", stage_stride = 128 : i64}
// CHECK: [[D2:%.+]] = "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 256 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "d2", role = "d", stage_layout = "column_blocks", stage_stride = 64 : i64}
// CHECK: "tcgen05.tmem_stage"([[F3]], {{%.+}}) {columns = 128 : i64, half_lanes = true, layout = "F", role = "d"}
// CHECK: "tcgen05.tmem_stage"([[D2]], {{%.+}}) {columns = 64 : i64, half_lanes = false, layout = "D", role = "d"}

// Stage 2 of the lane pairs: lane 16 * (2 mod 2) = 0, column (2 div 2) * 128 = 128, so
// the address is the allocation's + 128. Stage 1 of the side-by-side buffer: its column
// 256 + 64 = 320 (canonicalize folds the two additions). The dynamic stage i:
// + ((i and 1) * 16) << 16 + (i >> 1) * 128.
// ADDR-LABEL: func.func @stages
// ADDR-DAG: [[C320:%.+]] = arith.constant 320 : i32
// ADDR-DAG: [[C128:%.+]] = arith.constant 128 : i32
// ADDR: [[F3ADDR:%.+]] = llvm.load
// ADDR: [[S2:%.+]] = arith.addi [[F3ADDR]], [[C128]] : i32
// ADDR: nvvm.inline_ptx "{{.*}}tcgen05.mma{{.*}}" ro([[S2]],
// ADDR: [[S1:%.+]] = arith.addi [[F3ADDR]], [[C320]] : i32
// ADDR: nvvm.inline_ptx "{{.*}}tcgen05.mma{{.*}}" ro([[S1]],
// ADDR: [[I:%.+]] = arith.index_castui %arg0 : index to i32
// ADDR: [[ODD:%.+]] = arith.andi [[I]], {{%.+}} : i32
// ADDR: [[LANE:%.+]] = arith.muli [[ODD]], {{%.+}} : i32
// ADDR: [[SHIFTED:%.+]] = arith.shli [[LANE]], {{%.+}} : i32
// ADDR: [[WITHLANE:%.+]] = arith.addi [[F3ADDR]], [[SHIFTED]] : i32
// ADDR: [[PAIR:%.+]] = arith.shrui [[I]], {{%.+}} : i32
// ADDR: [[STEP:%.+]] = arith.muli [[PAIR]], [[C128]] : i32
// ADDR: [[SI:%.+]] = arith.addi [[WITHLANE]], [[STEP]] : i32
// ADDR: nvvm.inline_ptx "{{.*}}tcgen05.mma{{.*}}" ro([[SI]],

// PTX-LABEL: .visible .entry stages(
// PTX: tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}]
// PTX: tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}]
// PTX: tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}]
func.func @stages(%i: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %false = arith.constant false
  %a64 = "tcgen05.smem_buffer"() : () -> !ta64
  %a128 = "tcgen05.smem_buffer"() : () -> !ta128
  %b128 = "tcgen05.smem_buffer"() : () -> !tb128
  %b64 = "tcgen05.smem_buffer"() : () -> !tb64
  %f3 = "tcgen05.tmem_buffer"() {name = "f3", role = "d", layout = "F", columns = 128 : i64, half_lanes = true} : () -> !f3
  %d2 = "tcgen05.tmem_buffer"() {name = "d2", role = "d", layout = "D", columns = 64 : i64, half_lanes = false} : () -> !d2
  %s2 = "tcgen05.tmem_stage"(%f3, %c2) : (!f3, index) -> !f
  "tcgen05.mma"(%s2, %a64, %b128, %false) {kind = "f16", layout = "F"} : (!f, !ta64, !tb128, i1) -> ()
  %t1 = "tcgen05.tmem_stage"(%d2, %c1) : (!d2, index) -> !d
  "tcgen05.mma"(%t1, %a128, %b64, %false) {kind = "f16", layout = "D"} : (!d, !ta128, !tb64, i1) -> ()
  %si = "tcgen05.tmem_stage"(%f3, %i) : (!f3, index) -> !f
  "tcgen05.mma"(%si, %a64, %b128, %false) {kind = "f16", layout = "F"} : (!f, !ta64, !tb128, i1) -> ()
  return
}
