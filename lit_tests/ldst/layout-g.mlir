// Layout G (M = 32, .ws; 9.7.16.10.5): column block j = c div N/4 of D on lanes 32j ..
// 32j+31, so D takes N/4 columns and warp w holds rows 0-31 of block w (tmem-facts
// section 1). A slice inside one block is read by one warp. No .ws MMA in the kernel: the
// buffer asks for its layout.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{strategy=max-width}' | FileCheck %s --check-prefix=PLAN
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// N = 128: 32 columns per block. The whole of D: every warp moves its block's 32 columns,
// .32x32b.x32; with max-width nothing is split.
// PLAN-LABEL: func.func @layout_g
// PLAN: "tcgen05.tmem_buffer"() {columns = 32 : i64, half_lanes = false, layout = "G", name = "buf", role = "d"}
// PLAN: "tcgen05.st"{{.*}} {num = 32 : i64, shape = "32x32b"}
// PLAN: "tcgen05.ld"{{.*}} {num = 32 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[32, 128], f32>
// Columns [72, 80): block 2 (warp 2), TMEM columns 8-15: .32x32b.x8.
// PLAN: "tcgen05.ld"{{.*}} {num = 8 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[32, 8], f32>

// PTX-LABEL: .entry layout_g(
// PTX: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-NEXT: add.s32 [[T0:%r[0-9]+]], %r{{[0-9]+}}, [[LANE]];
// PTX: tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T0]]], {
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
// The slice: warp 2 alone ((w - 2) < 1 unsigned), at TMEM column 72 mod 32 = 8.
// PTX: add.s32 [[T8:%r[0-9]+]], [[T0]], 8;
// PTX: setp.ne.b32 tcgen05_guard, {{%r[0-9]+}}, 0; @tcgen05_guard tcgen05.ld.sync.aligned.32x32b.x8.b32 {{[{].*[}]}}, [[[T8]]];
func.func @layout_g(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %part: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c72 = arith.constant 72 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "G", name = "buf"} : () -> !tcgen05.tmem<[32, 128], f32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 128 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[32, 128], f32>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[32, 128], f32>, index, !tcgen05.frag<[32, 128], f32>) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[32, 128], f32>, index) -> !tcgen05.frag<[32, 128], f32>
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 128 : i64} : (!tcgen05.frag<[32, 128], f32>, !llvm.ptr<1>, index) -> ()
  %slice = "tcgen05.ld"(%buf, %c72) : (!tcgen05.tmem<[32, 128], f32>, index) -> !tcgen05.frag<[32, 8], f32>
  "tcgen05.store_fragment"(%slice, %part, %c0) {ld = 8 : i64} : (!tcgen05.frag<[32, 8], f32>, !llvm.ptr<1>, index) -> ()
  return
}
