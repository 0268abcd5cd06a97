// Layout F (M = 64, cta_group::1, not .ws; 9.7.16.10.5): rows 16w .. 16w+15 on lanes
// 32w+a .. 32w+a+15, a = the lane offset 0 or 16 (tmem-facts section 1). Two 64-row
// buffers live at the same time share their columns, one in each lane half; every warp
// reads its 16 rows of each with a 16-lane shape. The first pair of accesses uses the
// default .16x32bx2, the second asks for .16x256b.x8 (shape and num attributes on an op
// win).
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem' | FileCheck %s --check-prefix=PLAN
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// PLAN-LABEL: func.func @layout_f
// PLAN: %[[LO:.*]] = "tcgen05.tmem_buffer"(%{{.*}}) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = true, lane_offset = 0 : i64, layout = "F", name = "lo", role = "d"}
// PLAN: %[[HI:.*]] = "tcgen05.tmem_buffer"(%{{.*}}) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = true, lane_offset = 16 : i64, layout = "F", name = "hi", role = "d"}
// 64 columns of 16 lanes: 32 registers per thread, .16x32bx2.x32 with halves 32 apart.
// PLAN: "tcgen05.st"(%[[LO]], {{.*}} {half_split = 32 : i64, num = 32 : i64, shape = "16x32bx2"}
// .16x256b.x8: 64 columns, 32 registers.
// PLAN: "tcgen05.st"(%[[HI]], {{.*}} {num = 8 : i64, shape = "16x256b"}
// PLAN: "tcgen05.ld"(%[[LO]], {{.*}} {half_split = 32 : i64, num = 32 : i64, shape = "16x32bx2"}
// PLAN: "tcgen05.ld"(%[[HI]], {{.*}} {num = 8 : i64, shape = "16x256b"}

// taddr = buffer address + (warp << 21) (the warp's quarter); the second buffer's
// address carries lane 16, 16 << 16 = 1048576 more.
// PTX-LABEL: .entry layout_f(
// PTX: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-NEXT: add.s32 [[TLO:%r[0-9]+]], %r{{[0-9]+}}, [[LANE]];
// PTX: tcgen05.st.sync.aligned.16x32bx2.x32.b32 [[[TLO]]], 32, {
// PTX: add.s32 [[THI:%r[0-9]+]], [[TLO]], 1048576;
// PTX: tcgen05.st.sync.aligned.16x256b.x8.b32 [[[THI]]], {
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: tcgen05.ld.sync.aligned.16x32bx2.x32.b32 {{[{].*[}]}}, [[[TLO]]], 32;
// PTX: tcgen05.ld.sync.aligned.16x256b.x8.b32 {{[{].*[}]}}, [[[THI]]];
func.func @layout_f(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %lo = "tcgen05.tmem_buffer"() {layout = "F", name = "lo"} : () -> !tcgen05.tmem<[64, 64], f32>
  %hi = "tcgen05.tmem_buffer"() {layout = "F", name = "hi"} : () -> !tcgen05.tmem<[64, 64], f32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[64, 64], f32>
  "tcgen05.st"(%lo, %c0, %in) : (!tcgen05.tmem<[64, 64], f32>, index, !tcgen05.frag<[64, 64], f32>) -> ()
  %in2 = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[64, 64], f32>
  "tcgen05.st"(%hi, %c0, %in2) {num = 8 : i64, shape = "16x256b"} : (!tcgen05.tmem<[64, 64], f32>, index, !tcgen05.frag<[64, 64], f32>) -> ()
  %a = "tcgen05.ld"(%lo, %c0) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 64], f32>
  %b = "tcgen05.ld"(%hi, %c0) {num = 8 : i64, shape = "16x256b"} : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 64], f32>
  "tcgen05.store_fragment"(%a, %dst, %c0) {ld = 128 : i64} : (!tcgen05.frag<[64, 64], f32>, !llvm.ptr<1>, index) -> ()
  %c64 = arith.constant 64 : index
  "tcgen05.store_fragment"(%b, %dst, %c64) {ld = 128 : i64} : (!tcgen05.frag<[64, 64], f32>, !llvm.ptr<1>, index) -> ()
  return
}
