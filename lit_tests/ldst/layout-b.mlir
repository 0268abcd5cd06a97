// Layout B (M = 128, cta_group::2, dense A; 9.7.16.10.5): each CTA holds 64 rows of D;
// columns [0, N/2) sit on lanes 0-63 and [N/2, N) on lanes 64-127, so D takes N/2
// columns (tmem-facts section 1). Warp w holds rows 32*(w & 1) .. +31 of column block
// w >> 1: the whole of D is read by all four warps, each over N/2 columns, and a slice of
// one block only by that block's two warps, which a warp-uniform predicate selects.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' | FileCheck %s --check-prefix=PLAN
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// N = 64: 32 columns per CTA; the whole of D is 32 registers per thread, within the
// default budget, so nothing is split.
// PLAN-LABEL: func.func @layout_b
// PLAN: "tcgen05.tmem_buffer"() {columns = 32 : i64, half_lanes = false, layout = "B", name = "buf", role = "d"}
// PLAN: "tcgen05.load_fragment"{{.*}} {ld = 64 : i64, num = 32 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 64], f32>
// PLAN: "tcgen05.st"{{.*}} {num = 32 : i64, shape = "32x32b"}
// PLAN: "tcgen05.ld"{{.*}} {num = 32 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 64], f32>
// The second half of N, columns [32, 64): lanes 64-127, warps 2 and 3.
// PLAN: "tcgen05.ld"{{.*}} {num = 32 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 32], f32>

// PTX-LABEL: .entry layout_b(
// PTX: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// PTX: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-NEXT: add.s32 [[T0:%r[0-9]+]], %r{{[0-9]+}}, [[LANE]];
// PTX: tcgen05.st.sync.aligned.32x32b.x32.b32 [[[T0]]], {
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
// The slice in block 1: only the warps with (w >> 1) - 1 < 1 (unsigned) take part, at
// the block's TMEM column 32 mod 32 = 0, i.e. the same taddr; the others skip the message
// and the stores.
// PTX: setp.ne.b32 tcgen05_guard, [[PART:%r[0-9]+]], 0; @tcgen05_guard tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
// PTX-NEXT: // end inline asm
// PTX-NEXT: @%p{{[0-9]+}} bra
func.func @layout_b(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %half: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "B", name = "buf"} : () -> !tcgen05.tmem<[128, 64], f32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 64], f32>) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  %right = "tcgen05.ld"(%buf, %c32) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%right, %half, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}
