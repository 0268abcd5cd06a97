// Loads and stores of the stages of multi-buffered TMEM buffers through the whole
// pipeline: tcgen05-select-layouts follows the tcgen05.tmem_stage views to their
// [stages, rows, cols] buffer and writes one stage's footprint on it, tcgen05-plan-tmem
// places the stages side by side and copies the footprint onto each view, and each ld/st
// of a view addresses its own stage.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' | FileCheck %s --check-prefix=LAYOUT
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem' | FileCheck %s --check-prefix=PLAN
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// Expected values, derived by hand:
// - A 128 x 128 f32 stage written by an M = 128, N = 128 cta_group::1 MMA is a Layout D
//   accumulator (9.7.16.10.5): row r on lane r, column c on column c, so one stage takes
//   128 columns on all lanes (half_lanes = false).
// - Full-lane stages sit side by side (stage_layout "column_blocks"): stage i of the
//   buffer at column 0 starts at column 128 * i; the two stages take 256 columns, a legal
//   allocation (a power of two in [32, 512], 9.7.16.7.1).
// - A TMEM address is lane << 16 | column (9.7.16.1.1); warp w of the warpgroup reads
//   lanes [32w, 32w + 32) (9.7.16.8.1), so its .32x32b message of column c of stage i is
//   at base + (w << 21) + 128 * i + c.

!acc2 = !tcgen05.tmem<[2, 128, 128], f32>
!acc = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>

// LAYOUT-LABEL: func.func @stage_views
// LAYOUT: "tcgen05.tmem_buffer"() {columns = 128 : i64, half_lanes = false, layout = "D", name = "acc", role = "d"} : () -> !tcgen05.tmem<[2, 128, 128], f32>
// LAYOUT: "tcgen05.mma"{{.*}}layout = "D"
// LAYOUT: "tcgen05.mma"{{.*}}layout = "D"
// LAYOUT: "tcgen05.ld"{{.*}}{num = 32 : i64, shape = "32x32b"}
// LAYOUT: "tcgen05.ld"{{.*}}{num = 32 : i64, shape = "32x32b"}

// PLAN-LABEL: func.func @stage_views
// PLAN: [[BASE:%.+]] = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64}
// PLAN: [[ACC:%.+]] = "tcgen05.tmem_buffer"([[BASE]]) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "acc", role = "d", stage_layout = "column_blocks", stage_stride = 128 : i64}
// PLAN: [[S0:%.+]] = "tcgen05.tmem_stage"([[ACC]], {{%.+}}) {columns = 128 : i64, half_lanes = false, layout = "D", role = "d"}
// PLAN: [[S1:%.+]] = "tcgen05.tmem_stage"([[ACC]], {{%.+}}) {columns = 128 : i64, half_lanes = false, layout = "D", role = "d"}
// PLAN: "tcgen05.ld"([[S0]],
// PLAN: "tcgen05.ld"([[S1]],

// Stage 0's MMA and load use the allocation's address, stage 1's that address + 128.
// PTX-LABEL: .entry stage_views(
// PTX: tcgen05.mma.cta_group::1.kind::f16 [[[BASE:%r[0-9]+]]],
// PTX: tcgen05.mma.cta_group::1.kind::f16 [[[MMA1:%r[0-9]+]]],
// PTX: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-NEXT: add.s32 [[T0:%r[0-9]+]], [[BASE]], [[LANE]];
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
// PTX: add.s32 [[T1:%r[0-9]+]], [[T0]], 128;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T1]]];
// PTX-NOT: tcgen05.ld.sync
func.func @stage_views(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc2
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 128 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
  %s0 = "tcgen05.tmem_stage"(%acc, %c0) : (!acc2, index) -> !acc
  %s1 = "tcgen05.tmem_stage"(%acc, %c1) : (!acc2, index) -> !acc
  "tcgen05.mma"(%s0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%s1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %x0 = "tcgen05.ld"(%s0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x0, %C, %c0) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x1 = "tcgen05.ld"(%s1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x1, %C, %c128) {ld = 256 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// A buffer no MMA uses: 128 rows of a cta_group::1 kernel default to Layout D, so one
// [128, 64] stage takes 64 columns and stage 1 starts at column 64; the store and the
// load of columns [32, 64) of stage 1 address column 64 + 32 = 96 (allocation 128).
!buf2 = !tcgen05.tmem<[2, 128, 64], f32>
!buf = !tcgen05.tmem<[128, 64], f32>

// PLAN-LABEL: func.func @stage_store
// PLAN: "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64}
// PLAN: "tcgen05.tmem_buffer"({{%.+}}) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "buf", role = "d", stage_layout = "column_blocks", stage_stride = 64 : i64}

// PTX-LABEL: .entry stage_store(
// PTX: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-NEXT: add.s32 [[W:%r[0-9]+]], [[BASE:%r[0-9]+]], [[LANE]];
// PTX: add.s32 [[T:%r[0-9]+]], [[W]], 96;
// PTX: tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T]]],
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T]]];
func.func @stage_store(%X: !llvm.ptr<1>, %Y: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %buf = "tcgen05.tmem_buffer"() {name = "buf"} : () -> !buf2
  %s1 = "tcgen05.tmem_stage"(%buf, %c1) : (!buf2, index) -> !buf
  %x = "tcgen05.load_fragment"(%X, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !frag
  "tcgen05.st"(%s1, %c32, %x) : (!buf, index, !frag) -> ()
  %y = "tcgen05.ld"(%s1, %c32) : (!buf, index) -> !frag
  "tcgen05.store_fragment"(%y, %Y, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
