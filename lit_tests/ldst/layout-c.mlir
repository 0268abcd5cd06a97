// Layout C (M = 128, cta_group::2, sparse A; 9.7.16.10.5) under both readings of
// tmem-facts section 1 (confidence L), selected by tcgen05-select-layouts{layout-c=...}:
// - F (default, the PTX wording "4x1 (1/2 datapath utilized)", alignment 0 or 16): each
//   CTA's 64 rows sit as in Layout F, rows 16w .. 16w+15 on lanes 32w+a .. 32w+a+15, read
//   with .16x32bx2 by every warp;
// - B (CUTLASS's Layout-B atom): as in Layout B, all 128 lanes and N/2 columns, read with
//   .32x32b by the warps of each column block.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' | FileCheck %s --check-prefix=PLAN-F
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{layout-c=B}' | FileCheck %s --check-prefix=PLAN-B
// RUN: tcgen05-lower %s -o %t.f.ptx
// RUN: FileCheck %s --check-prefix=PTX-F --input-file %t.f.ptx
// RUN: %ptxas -arch=sm_100a %t.f.ptx -o %t.f.cubin
// RUN: tcgen05-lower %s --pipeline 'tcgen05-verify,tcgen05-select-layouts{layout-c=B},tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync,tcgen05-lower-to-llvm,convert-nvvm-to-llvm,convert-scf-to-cf,convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts,tcgen05-finalize-kernels' -o %t.b.ptx
// RUN: FileCheck %s --check-prefix=PTX-B --input-file %t.b.ptx
// RUN: %ptxas -arch=sm_100a %t.b.ptx -o %t.b.cubin

// PLAN-F-LABEL: func.func @layout_c
// PLAN-F: "tcgen05.tmem_buffer"() {columns = 64 : i64, half_lanes = true, layout = "C", layout_c = "F", name = "buf", role = "d"}
// 64 columns x 16 lanes = 32 registers per thread: .16x32bx2.x32, halves 32 apart.
// PLAN-F: "tcgen05.st"{{.*}} {half_split = 32 : i64, num = 32 : i64, shape = "16x32bx2"}
// PLAN-F: "tcgen05.ld"{{.*}} {half_split = 32 : i64, num = 32 : i64, shape = "16x32bx2"}

// PLAN-B-LABEL: func.func @layout_c
// PLAN-B: "tcgen05.tmem_buffer"() {columns = 32 : i64, half_lanes = false, layout = "C", layout_c = "B", name = "buf", role = "d"}
// PLAN-B: "tcgen05.st"{{.*}} {num = 32 : i64, shape = "32x32b"}
// PLAN-B: "tcgen05.ld"{{.*}} {num = 32 : i64, shape = "32x32b"}

// PTX-F-LABEL: .entry layout_c(
// PTX-F: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// PTX-F: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-F-NEXT: add.s32 [[T0:%r[0-9]+]], %r{{[0-9]+}}, [[LANE]];
// PTX-F: tcgen05.st.sync.aligned.16x32bx2.x32.b32 [[[T0]]], 32, {
// PTX-F: tcgen05.wait::st.sync.aligned;
// PTX-F: tcgen05.ld.sync.aligned.16x32bx2.x32.b32 {{[{].*[}]}}, [[[T0]]], 32;

// PTX-B-LABEL: .entry layout_c(
// PTX-B: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-B-NEXT: add.s32 [[T0:%r[0-9]+]], %r{{[0-9]+}}, [[LANE]];
// PTX-B: tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T0]]], {
// PTX-B: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
func.func @layout_c(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "C", name = "buf"} : () -> !tcgen05.tmem<[128, 64], f32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 64], f32>) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  return
}
