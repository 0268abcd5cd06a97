// Shared memory is budgeted: tiles past the 227 KiB a CTA may use on compute capability
// 10.x are a located error at the tile that crosses it, listing the tiles; --report and
// --report-json give a kernel's dynamic shared memory, the launch size.
// RUN: split-file %s %t
// RUN: not tcgen05-lower %t/big.mlir -o %t.ptx 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: tcgen05-lower %t/small.mlir --report --report-json %t.json -o %t.ptx 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --input-file %t.json --check-prefix=JSON

// BIG: big.mlir:3:8: error: shared-memory tiles need 262144 bytes of dynamic shared memory, over the 232448 a CTA may use (227 KiB, compute capability 10.x); this tile crosses it. Tiles in order: line 2: 131072 bytes at 0; line 3: 131072 bytes at 131072
// REPORT: tcgen05-lower: kernel @small dynamic shared memory: 16384 bytes (the launch size, also in the manifest)
// JSON: "dynamic_smem_bytes": 16384

//--- big.mlir
func.func @big(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 256], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 256], bf16, "K", "128B">
  return
}
//--- small.mlir
func.func @small(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}
