// tcgen05-lower-to-llvm ends the kernel's block right after each region op it leaves at
// the kernel's top level (here the copy loops of two smem_fills and the kernel's own
// scf.for), so that convert-scf-to-cf, which splits a block at every scf op it lowers
// and moves the rest of the block, moves one branch instead of the rest of the kernel
// (benchmarks/compile/REPORT.md). The blocks chain in program order, and the kernel
// still compiles to PTX that ptxas accepts.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-lower-to-llvm | FileCheck %s
// RUN: tcgen05-lower %s --arch sm_100a -o %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: func.func @fills_and_loop
// The copy loop of the fill of %a, then a branch to the next block.
// CHECK:      scf.for
// CHECK:        llvm.store
// CHECK-NEXT: {{^ +}$}}
// CHECK-NEXT: cf.br ^[[B1:bb[0-9]+]]
// CHECK-NEXT: ^[[B1]]:
// CHECK:      scf.for
// CHECK:        llvm.store
// CHECK-NEXT: {{^ +}$}}
// CHECK-NEXT: cf.br ^[[B2:bb[0-9]+]]
// The K loop (after the proxy fence and barrier the fills need), then the epilogue.
// CHECK-NEXT: ^[[B2]]:
// CHECK:      scf.for
// CHECK:        tcgen05.mma
// CHECK-NEXT: {{^ +}$}}
// CHECK-NEXT: cf.br ^[[B3:bb[0-9]+]]
// CHECK-NEXT: ^[[B3]]:
// CHECK-NOT:  cf.br
// CHECK:      return
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @fills_and_loop(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc", role = "d"} : () -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
  "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
  scf.for %k = %c0 to %c4 step %c1 {
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
