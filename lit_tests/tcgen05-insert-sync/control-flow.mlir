// Control flow beyond scf.for: a commit inside an scf.if inside a loop (its phase is
// counted at run time), scf.while, scf.index_switch, and a kernel of cf branches lifted
// to scf by lift-cf-to-scf. Every expected op below is derived by hand from the rules
// table of tcgen05-insert-sync (PTX ISA 9.7.16.6.4), and tcgen05-verify-sync, an
// independent check, must accept each output.
// RUN: tcgen05-opt %s -p lift-cf-to-scf,tcgen05-insert-sync --split-input-file | FileCheck %s
// RUN: tcgen05-opt %s -p lift-cf-to-scf,tcgen05-insert-sync,tcgen05-verify-sync --split-input-file | FileCheck %s

// mma -> ld inside one branch of a loop body: the commit sits in the branch, which may
// run in some iterations only, so no induction variable counts its commits: the wait has
// no phase operand (tracked at run time, 9.7.16.12.1). The ld of one iteration and the
// mma of the next (WAR on the accumulator) need wait::ld -> fence::before -> barrier ->
// fence::after (9.7.16.6.4.4), once per iteration before the branch.
// CHECK-LABEL: func.func @branch_in_loop
// CHECK:      [[MB:%[0-9]+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK:      scf.for
// CHECK:        "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line [[@LINE+28]] before scf.if at line [[@LINE+26]]: WAR on TMEM columns [0, 64) (next iteration)"}
// CHECK-NEXT:   "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT:   "tcgen05.barrier"()
// CHECK-NEXT:   "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT:   scf.if %
// CHECK-NEXT:     "tcgen05.mma"
// CHECK-NEXT:     "tcgen05.commit"([[MB]])
// CHECK-NEXT:     "tcgen05.mbarrier_wait"([[MB]]) {reason = {{.*}}} : (!tcgen05.mbarrier) -> ()
// CHECK-NEXT:     "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT:     "tcgen05.ld"
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @branch_in_loop(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
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

// -----

// scf.while accumulating into one buffer, read after the loop. The trip count is not
// known, so the MMA of every iteration is completed right after it (commit -> tracked
// wait -> fence::after): the last one is what the ld after the loop needs. No
// speculative op survives that no dependence needs (the mma -> mma accumulation is a
// pipelined pair, 9.7.16.6.2). A barrier keeps every thread's wait of one iteration
// before the next iteration's commit (see "mbarriers" in the pass).
// CHECK-LABEL: func.func @while_then_read
// CHECK:      [[MB:%[0-9]+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK:      scf.while
// CHECK:        scf.condition
// CHECK:      } do {
// CHECK-NEXT:   "tcgen05.mma"
// CHECK-NEXT:   "tcgen05.barrier"() {reason = "every thread has passed its wait on this mbarrier before tcgen05.commit
// CHECK-NEXT:   "tcgen05.commit"([[MB]]) {reason = "completion of tcgen05.mma at line [[@LINE+23]] right after it, inside scf.while"}
// CHECK-NEXT:   "tcgen05.mbarrier_wait"([[MB]]) {reason = {{.*}}} : (!tcgen05.mbarrier) -> ()
// CHECK-NEXT:   "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: "tcgen05.ld"
// CHECK-NOT:  tcgen05.commit
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @while_then_read(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.while : () -> () {
    %p = arith.cmpi ne, %n, %c0 : index
    scf.condition(%p)
  } do {
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    scf.yield
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// scf.index_switch: the MMA before the switch is read in one case only. Dependences of
// work issued before a region op on anything inside it are ordered once, before the
// region op (commit right after the mma, wait + fence::after before the switch), so the
// case bodies get nothing.
// CHECK-LABEL: func.func @switch_case_reads
// CHECK:      "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[MB:%[0-9]+]])
// CHECK:      "tcgen05.mbarrier_wait"([[MB]], %{{.*}}) {reason = "completion of tcgen05.mma at line [[@LINE+17]] before scf.index_switch at line [[@LINE+18]]: RAW on TMEM columns [0, 64)"}
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: scf.index_switch %
// CHECK-NEXT: case 1 {
// CHECK-NEXT:   "tcgen05.ld"
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @switch_case_reads(%C: !llvm.ptr<1>, %sel: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  scf.index_switch %sel
  case 1 {
    %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    scf.yield
  }
  default {
    scf.yield
  }
  return
}

// -----

// cf branches: lift-cf-to-scf makes the block argument an scf.if result; the ld of the
// chosen buffer depends on both MMAs (every cell either branch may yield, columns
// [0, 128)). One commit after the second mma covers both (9.7.16.12.1: it tracks all
// prior async tcgen05 ops of the thread).
// CHECK-LABEL: func.func @cf_pick
// CHECK:      "tcgen05.mma"
// CHECK-NEXT: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[MB:%[0-9]+]]) {reason = "completion of tcgen05.mma at line [[@LINE+18]], tcgen05.mma at line [[@LINE+19]] before tcgen05.ld at line [[@LINE+26]]: RAW on TMEM columns [0, 128)"}
// CHECK:      scf.if
// CHECK:      "tcgen05.mbarrier_wait"([[MB]], %{{.*}})
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.ld"
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @cf_pick(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  cf.cond_br %flag, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%acc0 : !acc)
^bb2:
  cf.br ^bb3(%acc1 : !acc)
^bb3(%pick: !acc):
  %y = "tcgen05.ld"(%pick, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
