// The transposing fill (an MN-contiguous source, src_layout = "k_mn", into a K-major
// tile) reads 16-byte chunks along N where the source argument promises 16-byte
// alignment and src_ld * 2 bytes is a multiple of 16: one ld.global.v4.b32 of 8 bf16
// (tile rows n0 .. n0 + 7 at one K index), unpacked two per 32-bit register, then 8
// st.shared.b16, one per K-major row. Without the promise, one ld/st.b16 per element.
// REQUIRES: ptxas
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .entry chunks(
// CHECK-NOT: ld.global.b16
// CHECK: ld.global.v4.b32 {[[R0:%r[0-9]+]], [[R1:%r[0-9]+]], [[R2:%r[0-9]+]], [[R3:%r[0-9]+]]}, [%rd{{[0-9]+}}];
// CHECK-DAG: mov.b32 {%rs{{[0-9]+}}, %rs{{[0-9]+}}}, [[R0]];
// CHECK-DAG: mov.b32 {%rs{{[0-9]+}}, %rs{{[0-9]+}}}, [[R1]];
// CHECK-DAG: mov.b32 {%rs{{[0-9]+}}, %rs{{[0-9]+}}}, [[R2]];
// CHECK-DAG: mov.b32 {%rs{{[0-9]+}}, %rs{{[0-9]+}}}, [[R3]];
// CHECK-COUNT-8: st.shared.b16
// CHECK-NOT: st.shared.b16
// CHECK: ret;

// CHECK-LABEL: .entry elements(
// CHECK-NOT: ld.global.v4.b32
// CHECK: ld.global.b16
// CHECK: st.shared.b16
// CHECK-NOT: st.shared.b16
// CHECK: ret;

module {
  func.func @chunks(%A: !llvm.ptr<1>, %B: !llvm.ptr<1> {llvm.align = 16 : i64})
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 128 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    return
  }
  func.func @elements(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>)
      attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 128 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
    return
  }
}
