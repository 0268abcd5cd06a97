// The CTA's place in the grid and a runtime-shaped epilogue, in PTX: gpu.block_id and
// gpu.grid_dim read %ctaid and %nctaid (PTX ISA, Special Registers); a store_fragment
// with extents stores each element under a predicate (no branch, so the warp stays
// converged for the next .sync.aligned tcgen05.ld), with row stride ld an operand; the
// column offset here is %nctaid.x - 1, only to use it.
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .entry grid_epilogue
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %ctaid.y;
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %nctaid.x;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// Where C, ld * 4 and the column offset * 4 are multiples of 16 bytes and the fragment's
// 32 columns are inside N (a run-time test, warp-uniform, so a branch): 8
// st.global.v4.b32, each under the thread's row test.
// CHECK-COUNT-8: @tcgen05_guard st.global.v4.b32 [{{%rd[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// Elsewhere each element under its own predicate.
// CHECK-COUNT-32: @%p{{[0-9]+}} st.global.b32 [{{%rd[0-9]+}}], {{%r[0-9]+}};
// CHECK-NOT: st.global
func.func @grid_epilogue(%C: !llvm.ptr<1>, %M: index, %N: index, %ldc: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["1", "ceildiv(M, 128)"]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %tile = gpu.block_id y
  %ntiles = gpu.grid_dim x
  %m0 = arith.muli %tile, %c128 : index
  %n0 = arith.subi %ntiles, %c1 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%frag, %C, %c0, %ldc, %m0, %n0, %M, %N)
      {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}
      : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index, index, index, index, index,
         index) -> ()
  return
}
