// store_fragment writes 16-byte vector stores (st.global.v4.b32) where every address is
// 16-byte aligned: the destination argument promises it with llvm.align = 16, the
// leading dimension (ld * 4 bytes) and the column (column * 4 bytes) keep each thread's
// row start on a 16-byte boundary. Layout D, .32x32b.x32: each thread holds 32
// consecutive f32 columns of its row (9.7.16.10.5), 128 bytes: 8 vector stores at byte
// offsets 0, 16, ..., 112 of the row. Anything less keeps the 32 scalar st.global.b32.
// REQUIRES: ptxas
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .entry aligned(
// CHECK-NOT: st.global.b32
// CHECK: st.global.v4.b32 [[ROW:\[%rd[0-9]+]]], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-NEXT: st.global.v4.b32 [[ROW]]+16],
// CHECK-NEXT: st.global.v4.b32 [[ROW]]+32],
// CHECK-NEXT: st.global.v4.b32 [[ROW]]+48],
// CHECK-NEXT: st.global.v4.b32 [[ROW]]+64],
// CHECK-NEXT: st.global.v4.b32 [[ROW]]+80],
// CHECK-NEXT: st.global.v4.b32 [[ROW]]+96],
// CHECK-NEXT: st.global.v4.b32 [[ROW]]+112],
// CHECK-NOT: st.global
// CHECK: ret;

// No alignment promised: scalar stores.
// CHECK-LABEL: .entry unpromised(
// CHECK-NOT: st.global.v4
// CHECK-COUNT-32: st.global.b32
// CHECK-NOT: st.global
// CHECK: ret;

// 8-byte alignment promised: less than a vector store needs.
// CHECK-LABEL: .entry align8(
// CHECK-NOT: st.global.v4
// CHECK-COUNT-32: st.global.b32
// CHECK: ret;

// Column 2: the rows start 8 bytes past a 16-byte boundary.
// CHECK-LABEL: .entry column2(
// CHECK-NOT: st.global.v4
// CHECK-COUNT-32: st.global.b32
// CHECK: ret;

// ld = 130: row r starts at r * 520 bytes, not a multiple of 16 for odd r.
// CHECK-LABEL: .entry ld130(
// CHECK-NOT: st.global.v4
// CHECK-COUNT-32: st.global.b32
// CHECK: ret;

// Run-time columns: the loop's column %col (0, 32, 64, 96) plus %t * 256 is a multiple of 4
// whatever %t is (kernel_ir.known_residue), so the vector form stays.
// (LLVM rebases the row address, so the offsets are -64 .. 48 of one register.)
// CHECK-LABEL: .entry loop_columns(
// CHECK-NOT: st.global.b32
// CHECK-COUNT-8: st.global.v4.b32 [%rd{{[0-9]+}}{{(\+-?[0-9]+)?}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-NOT: st.global
// CHECK: ret;

// The same loop, stored 2 columns further: 8 bytes past a 16-byte boundary.
// CHECK-LABEL: .entry loop_columns_plus2(
// CHECK-NOT: st.global.v4
// CHECK-COUNT-32: st.global.b32
// CHECK: ret;

module {
  func.func @aligned(%A: !llvm.ptr<1>, %C: !llvm.ptr<1> {llvm.align = 16 : i64})
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %col = arith.constant 0 : index
    %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"}
        : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %f = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%f, %C, %col) {ld = 128 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    return
  }
  func.func @unpromised(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %col = arith.constant 0 : index
    %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"}
        : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %f = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%f, %C, %col) {ld = 128 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    return
  }
  func.func @align8(%A: !llvm.ptr<1>, %C: !llvm.ptr<1> {llvm.align = 8 : i64})
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %col = arith.constant 0 : index
    %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"}
        : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %f = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%f, %C, %col) {ld = 128 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    return
  }
  func.func @column2(%A: !llvm.ptr<1>, %C: !llvm.ptr<1> {llvm.align = 16 : i64})
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %col = arith.constant 2 : index
    %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"}
        : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %f = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%f, %C, %col) {ld = 128 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    return
  }
  func.func @ld130(%A: !llvm.ptr<1>, %C: !llvm.ptr<1> {llvm.align = 16 : i64})
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %col = arith.constant 0 : index
    %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"}
        : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %f = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%f, %C, %col) {ld = 130 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    return
  }
  func.func @loop_columns(%A: !llvm.ptr<1>, %C: !llvm.ptr<1> {llvm.align = 16 : i64}, %t: i32)
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"}
        : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %ti = arith.index_cast %t : i32 to index
    %n = arith.muli %ti, %c256 : index
    scf.for %col = %c0 to %c128 step %c32 {
      %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      %d = arith.addi %n, %col : index
      %dest = arith.addi %d, %c0 : index
      "tcgen05.store_fragment"(%f, %C, %dest) {ld = 1024 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    }
    return
  }
  func.func @loop_columns_plus2(%A: !llvm.ptr<1>, %C: !llvm.ptr<1> {llvm.align = 16 : i64}, %t: i32)
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
    "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"}
        : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %ti = arith.index_cast %t : i32 to index
    %n = arith.muli %ti, %c256 : index
    scf.for %col = %c0 to %c128 step %c32 {
      %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      %d = arith.addi %n, %col : index
      %dest = arith.addi %d, %c2 : index
      "tcgen05.store_fragment"(%f, %C, %dest) {ld = 1024 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    }
    return
  }
}
