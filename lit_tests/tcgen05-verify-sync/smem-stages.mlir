// The synchronization passes on stages of multi-stage shared-memory tiles
// (tcgen05.smem_stage): both count a stage as its whole ring. The loop loads K block i by
// TMA into stage i mod 2 of 2-stage rings and multiplies it; the refill in iteration
// i + 1 writes the other stage than the MMAs of iteration i read, which the passes order
// as if it were the same one (more than needed, never less: docs/partitions.md, "Rings").
// Expected by hand from that rule and the tma_load rules of tcgen05-verify-sync (tma.mlir
// beside this file).
//
// Without the commit -> wait, tcgen05-verify-sync names the refill and the MMA it meets:
// RUN: not tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=none},tcgen05-verify-sync' 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: :[[# @LINE + 34]]:5: error: tcgen05.tma_load overwrites a shared-memory tile that tcgen05.mma at line [[# @LINE + 39]]:5 reads through the async proxy, without ordering: missing tcgen05.commit -> mbarrier wait (9.7.16.6.5)
//
// tcgen05-insert-sync adds that commit and its wait before the next iteration's TMA loads
// (the reason names the ring's WAR), and tcgen05-verify-sync accepts the result:
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync' | FileCheck %s
// CHECK-LABEL: func.func @ring
// CHECK: scf.for
// CHECK: "tcgen05.smem_stage"
// CHECK: "tcgen05.tma_load"
// CHECK: "tcgen05.mma"
// CHECK: "tcgen05.commit"({{.+}}) {reason = "completion of tcgen05.mma at line [[# @LINE + 29]], tcgen05.mma at line [[# @LINE + 30]] before tcgen05.tma_load at line [[# @LINE + 24]]: WAR on a shared-memory tile (next iteration)"}
// CHECK: "tcgen05.mbarrier_wait"({{.+}}) {reason = "completion of tcgen05.mma at line [[# @LINE + 28]], tcgen05.mma at line [[# @LINE + 29]] before tcgen05.tma_load at line [[# @LINE + 23]]: WAR on a shared-memory tile (next iteration)"}
!ring = !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
!t = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 128], f32>
func.func @ring(%C: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ring
  %b = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() : () -> !acc
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  scf.for %k = %c0 to %c256 step %c64 {
    %i = arith.divui %k, %c64 : index
    %s = arith.remui %i, %c2 : index
    %as = "tcgen05.smem_stage"(%a, %s) : (!ring, index) -> !t
    %bs = "tcgen05.smem_stage"(%b, %s) : (!ring, index) -> !t
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.tma_load"(%tma, %as, %full, %k, %c0) : (!llvm.ptr<1>, !t, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.tma_load"(%tmb, %bs, %full, %k, %c0) : (!llvm.ptr<1>, !t, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.barrier"() : () -> ()
    %not_first = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %as, %bs, %not_first) {kind = "f16", k_offset = 0 : i64} : (!acc, !t, !t, i1) -> ()
    "tcgen05.mma"(%acc, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64} : (!acc, !t, !t, i1) -> ()
  }
  return
}
