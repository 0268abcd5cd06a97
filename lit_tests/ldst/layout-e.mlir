// Layout E (M = 64, .ws; 9.7.16.10.5): columns [0, N/2) of D on lanes 0-63 and [N/2, N)
// on lanes 64-127, so D takes N/2 columns; thread l of warp w holds row 32*(w & 1) + l at
// column (w >> 1) * N/2 + col (tmem-facts section 1). The kernel has no .ws MMA: the
// buffer asks for its layout.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{report=true}' 2>%t.report | FileCheck %s --check-prefix=PLAN
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t.report
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// N = 128: 64 columns per block, 64 registers per thread for the whole of D, so the
// default register-budget=32 splits each pair into four 32-column pairs, two per block:
// [0, 32) and [32, 64) read by warps 0 and 1, [64, 96) and [96, 128) by warps 2 and 3.
// PLAN-LABEL: func.func @layout_e
// PLAN: "tcgen05.tmem_buffer"() {columns = 64 : i64, half_lanes = false, layout = "E", name = "buf", role = "d"}
// PLAN-COUNT-4: "tcgen05.st"{{.*}} {num = 32 : i64, shape = "32x32b"}
// PLAN-COUNT-4: "tcgen05.ld"{{.*}} {num = 32 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[64, 32], f32>

// REPORT: %buf 64x128xf32: Layout E, role d, 64 columns
// REPORT-DAG: split tcgen05.st at line {{[0-9]+}}: 128 columns -> 4 load_fragment/st pairs of 32 columns, .32x32b.x32, 1 message x 2 warps, 32 registers per thread
// REPORT-DAG: split tcgen05.ld at line {{[0-9]+}}: 128 columns -> 4 ld/store_fragment pairs of 32 columns, .32x32b.x32, 1 message x 2 warps, 32 registers per thread

// The first chunk of block 0 and the first chunk of block 1 use the same taddr (TMEM
// column 0 of the warp's lanes), guarded by different predicates.
// PTX-LABEL: .entry layout_e(
// PTX: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-NEXT: add.s32 [[T0:%r[0-9]+]], %r{{[0-9]+}}, [[LANE]];
// PTX: setp.ne.b32 tcgen05_guard, [[BLOCK0:%r[0-9]+]], 0; @tcgen05_guard tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T0]]], {
// PTX: add.s32 [[T32:%r[0-9]+]], [[T0]], 32;
// PTX: setp.ne.b32 tcgen05_guard, [[BLOCK0]], 0; @tcgen05_guard tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T32]]], {
// PTX: setp.ne.b32 tcgen05_guard, [[BLOCK1:%r[0-9]+]], 0; @tcgen05_guard tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T0]]], {
// PTX: setp.ne.b32 tcgen05_guard, [[BLOCK1]], 0; @tcgen05_guard tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T32]]], {
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: setp.ne.b32 tcgen05_guard, [[BLOCK0]], 0; @tcgen05_guard tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
// PTX: setp.ne.b32 tcgen05_guard, [[BLOCK0]], 0; @tcgen05_guard tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T32]]];
// PTX: setp.ne.b32 tcgen05_guard, [[BLOCK1]], 0; @tcgen05_guard tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
// PTX: setp.ne.b32 tcgen05_guard, [[BLOCK1]], 0; @tcgen05_guard tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T32]]];
func.func @layout_e(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "E", name = "buf"} : () -> !tcgen05.tmem<[64, 128], f32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 128 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[64, 128], f32>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[64, 128], f32>, index, !tcgen05.frag<[64, 128], f32>) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[64, 128], f32>, index) -> !tcgen05.frag<[64, 128], f32>
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 128 : i64} : (!tcgen05.frag<[64, 128], f32>, !llvm.ptr<1>, index) -> ()
  return
}
