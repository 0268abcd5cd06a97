// TMEM buffers chosen at run time are carried as their TMEM addresses (i32, lane << 16 |
// column, 9.7.16.1.1): two accumulators that swap roles through scf.for iteration
// arguments become two i32 iteration arguments, the MMA's [d-tmem] and the load's taddr
// are computed from them, and the loop yields them swapped. tcgen05-plan-tmem puts %acc0
// at column 0 and %acc1 at column 128 (both live through the whole loop, 128 columns
// each), so the loop starts from the allocation's address and that address + 128.
// RUN: tcgen05-opt %s -p tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-lower-to-llvm | FileCheck %s
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: func.func @through_iteration_arguments
// CHECK:      %[[BASE:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> i32
// CHECK:      %[[C128:.*]] = arith.constant 128 : i32
// CHECK-NEXT: %[[ACC1:.*]] = arith.addi %[[BASE]], %[[C128]] : i32
// CHECK:      scf.for %{{.*}} iter_args(%[[CUR:.*]] = %[[BASE]], %[[NEXT:.*]] = %[[ACC1]]) -> (i32, i32) {
// CHECK:        nvvm.inline_ptx "{ .reg .pred tcgen05_guard; setp.ne.b32 tcgen05_guard, $5, 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $2, $3, $4; }" ro(%[[NEXT]],
// CHECK:        %[[TADDR:.*]] = arith.addi %[[CUR]], %{{.*}} : i32
// CHECK-NEXT:   nvvm.inline_ptx "tcgen05.ld.sync.aligned.32x32b.x32.b32 {{.*}} ro(%[[TADDR]] : i32)
// CHECK:        scf.yield %[[NEXT]], %[[CUR]] : i32, i32
func.func @through_iteration_arguments(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !tcgen05.tmem<[128, 128], f32>
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !tcgen05.tmem<[128, 128], f32>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%cur = %acc0, %next = %acc1)
      -> (!tcgen05.tmem<[128, 128], f32>, !tcgen05.tmem<[128, 128], f32>) {
    "tcgen05.mma"(%next, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
    %x = "tcgen05.ld"(%cur, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    scf.yield %next, %cur : !tcgen05.tmem<[128, 128], f32>, !tcgen05.tmem<[128, 128], f32>
  }
  return
}

