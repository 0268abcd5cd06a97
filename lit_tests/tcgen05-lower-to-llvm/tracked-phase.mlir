// A wait whose mbarrier phase is counted at run time. The commit sits in a branch inside
// a loop, so tcgen05-insert-sync cannot count its executions from the induction
// variable and leaves the wait without a phase operand. The lowering keeps one i32
// counter per such mbarrier in every thread: 0 at entry, +1 at every commit to it (all
// threads pass the commit; only thread 0 issues it), and the wait's parity is
// (count - 1) mod 2 = (count + 1) & 1 (mbarrier.try_wait.parity waits for the phase of
// that parity, 9.7.13.15.16). mem2reg then keeps the counter in registers: the PTX has no
// local-memory access, and ptxas accepts it.
// RUN: tcgen05-opt %s -p tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-lower-to-llvm | FileCheck %s
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: func.func @branch_in_loop
// CHECK:       [[COUNTER:%.+]] = llvm.alloca {{%.+}} x i32
// CHECK:       llvm.store {{%.+}}, [[COUNTER]] : i32, !llvm.ptr
// CHECK:       scf.for
// CHECK:         scf.if
// CHECK:           tcgen05.commit
// CHECK-NEXT:      [[OLD:%.+]] = llvm.load [[COUNTER]] : !llvm.ptr -> i32
// CHECK:           [[NEW:%.+]] = arith.addi [[OLD]], {{%.+}} : i32
// CHECK-NEXT:      llvm.store [[NEW]], [[COUNTER]] : i32, !llvm.ptr
// CHECK-NEXT:      [[COUNT:%.+]] = llvm.load [[COUNTER]] : !llvm.ptr -> i32
// CHECK:           [[PLUS:%.+]] = arith.addi [[COUNT]], {{%.+}} : i32
// CHECK:           [[PARITY:%.+]] = arith.andi [[PLUS]], {{%.+}} : i32
// CHECK-NOT:       scf.while
// CHECK:           mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [$0], $1;{{.*}} ro({{%.+}}, [[PARITY]] :

// PTX-LABEL: .visible .entry branch_in_loop(
// PTX-NOT:   .local
// PTX-NOT:   ld.local
// PTX-NOT:   st.local
// PTX:       tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX:       mbarrier.try_wait.parity.shared::cta.b64
// PTX-NOT:   ld.local
// PTX-NOT:   st.local
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @branch_in_loop(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  scf.for %i = %c0 to %c4 step %c1 {
    %p = arith.cmpi ne, %i, %n : index
    scf.if %p {
      "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    }
  }
  return
}
