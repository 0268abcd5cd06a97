// Layout A (M = 256, cta_group::2; 9.7.16.10.5): each CTA of the pair holds 128 rows of D,
// row r_loc on lane r_loc and column c on column c (tmem-facts section 1). Both CTAs run
// this program: each warp stores and loads its own lane quarter (9.7.16.8.1) at the same
// TMEM address in both CTAs, and %cluster_ctarank & 1 says which 128 rows of the global
// matrices a CTA's registers hold. No MMA: the buffer asks for its layout.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' | FileCheck %s --check-prefix=PLAN
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// 64 columns are 64 registers per thread: the default register-budget=32 splits each
// load -> store pair into two pairs of 32 columns, .32x32b.x32 each.
// PLAN-LABEL: func.func @layout_a
// PLAN: "tcgen05.tmem_buffer"() {columns = 64 : i64, half_lanes = false, layout = "A", name = "buf", role = "d"}
// PLAN: "tcgen05.load_fragment"(%{{.*}}, %[[C0:[^ ,)]+]]) {ld = 64 : i64, num = 32 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[256, 32], f32>
// PLAN: "tcgen05.st"(%{{.*}}, %[[C0]], %{{.*}}) {num = 32 : i64, shape = "32x32b"}
// PLAN: %[[C32:[^ ,)]+]] = arith.constant 32 : index
// PLAN: "tcgen05.load_fragment"(%{{.*}}, %[[C32]]) {ld = 64 : i64, num = 32 : i64, shape = "32x32b"}
// PLAN: "tcgen05.st"(%{{.*}}, %[[C32]], %{{.*}}) {num = 32 : i64, shape = "32x32b"}
// PLAN: "tcgen05.ld"(%{{.*}}, %[[C0]]) {num = 32 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[256, 32], f32>
// PLAN: "tcgen05.store_fragment"
// PLAN: "tcgen05.ld"(%{{.*}}, %{{.*}}) {num = 32 : i64, shape = "32x32b"}
// PLAN: "tcgen05.store_fragment"

// PTX-LABEL: .entry layout_a(
// PTX: .reqnctapercluster 2, 1, 1
// PTX: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// taddr = buffer address + ((32 * warp) << 16) + column: warp << 21.
// PTX: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-NEXT: add.s32 [[T0:%r[0-9]+]], %r{{[0-9]+}}, [[LANE]];
// PTX: tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T0]]], {
// PTX: add.s32 [[T32:%r[0-9]+]], [[T0]], 32;
// PTX: tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T32]]], {
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T32]]];
// PTX-NOT: tcgen05.ld.sync
// PTX: tcgen05.dealloc.cta_group::2
func.func @layout_a(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "A", name = "buf"} : () -> !tcgen05.tmem<[256, 64], f32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[256, 64], f32>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[256, 64], f32>, index, !tcgen05.frag<[256, 64], f32>) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[256, 64], f32>, index) -> !tcgen05.frag<[256, 64], f32>
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 64 : i64} : (!tcgen05.frag<[256, 64], f32>, !llvm.ptr<1>, index) -> ()
  return
}
