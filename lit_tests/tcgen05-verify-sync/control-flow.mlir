// Control flow beyond scf.for (scf.while, scf.index_switch, values through scf.if
// results) and waits whose phase is tracked at run time (no phase operand). Every
// expected message is derived by hand from the rules in the pass docstring (PTX ISA
// 9.7.16.6.4 and the mbarrier.try_wait.parity behaviour); the kernels are planned by hand.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

// Ordered: an scf.while of 2 iterations (its condition evaluates: %k = 0, 1 < 2, then
// 2 < 2 is false). Each iteration: mma, commit (commit k+1 of the mbarrier), a tracked
// wait (parity (k+1 - 1) mod 2 = k mod 2, the phase the thread believes current: it
// blocks until that phase completes, so the mma is complete), fence::after_thread_sync,
// then the ld (9.7.16.6.4.4). wait::ld, fence::before_thread_sync, a barrier and
// fence::after_thread_sync order the ld before the next iteration's mma (9.7.16.6.4.4)
// and put a barrier between the wait and the next commit. No error.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @ordered_while(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = arith.constant true
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %end = scf.while (%k = %c0) : (index) -> index {
    %more = arith.cmpi ult, %k, %c2 : index
    scf.condition(%more) %k : index
  } do {
  ^bb0(%j: index):
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    "tcgen05.wait"() {kind = "ld"} : () -> ()
    "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }
  return
}

// -----

// The same loop without the tracked wait: the fence::after_thread_sync follows no wait,
// so the mma is not complete when the ld reads its accumulator (9.7.16.6.4.4). The
// commit is issued (the mma's completion would be observed through it), so the message
// names the wait for that commit's phase. Both iterations report the same pair: one error.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @while_without_wait(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = arith.constant true
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %end = scf.while (%k = %c0) : (index) -> index {
    %more = arith.cmpi ult, %k, %c2 : index
    scf.condition(%more) %k : index
  } do {
  ^bb0(%j: index):
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.mma at line 76:5 writes, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 77:5 completes -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
    %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    "tcgen05.wait"() {kind = "ld"} : () -> ()
    "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }
  return
}

// -----

// Ordered, with a trip count that does not evaluate (%n): the loop is run as exits after
// 0, 1, 2 and 3 iterations. On every exit after at least one iteration the last mma was
// waited for (tracked) and fenced; on the exit after 0 no mma ran. So the ld after the
// loop is ordered on all of them. No error.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @while_unknown_trips(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %end = scf.while (%k = %c0) : (index) -> index {
    %more = arith.cmpi ult, %k, %n : index
    scf.condition(%more) %k : index
  } do {
  ^bb0(%j: index):
    "tcgen05.barrier"() : () -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// A tracked wait before any commit to its mbarrier: parity (0 - 1) mod 2 = 1, the phase
// before the first, which a fresh mbarrier reports complete at once. Not an error, but it
// completes nothing: the mma is still not committed when the ld reads its accumulator.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @tracked_wait_before_any_commit(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.mma at line 148:3 writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Two commits with no wait between them, then a tracked wait: its parity is that of the
// most recent commit, (2 - 1) mod 2 = 1, and it is no error in itself. But the thread
// has seen no phase complete (it believes phase 0 current), so mbarrier.try_wait.parity
// with parity 1 names the phase before phase 0 and returns at once: it completes nothing,
// and the ld of the second mma's accumulator is unordered. The message names the commit
// whose phase the second mma completes with (the second one).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @two_commits_then_tracked_wait(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @below {{tcgen05.ld reads TMEM columns [64, 96) that tcgen05.mma at line 181:3 writes, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 182:3 completes -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  %x = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The mbarrier protocol is the same for tracked waits: the wait (parity (1 - 1) mod 2 =
// 0, the phase the thread believes current) completes phase 0, then the second commit
// follows it with no barrier between them, and a slower thread still in the wait may see
// that commit complete phase 1 too.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @tracked_wait_then_commit()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
  // expected-error @below {{tcgen05.commit to the mbarrier that the wait at line 210:3 waits on, with no barrier between them: a thread still in that wait could see this commit complete the next phase too and then wait for a phase that never completes}}
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// scf.index_switch on a value that does not evaluate: every case and the default run
// from the state after the commit. Case 0 waits (tracked: parity (1 - 1) mod 2 = 0,
// completes phase 0) and fences before its ld; case 1 reads the accumulator with
// neither (9.7.16.6.4.4). After the switch the mma is complete on one way only (the
// weakest is kept): the ld after the switch is unordered too.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @switch_unordered_case(%C: !llvm.ptr<1>, %sel: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  scf.index_switch %sel
  case 0 {
    "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    scf.yield
  }
  case 1 {
    // expected-error @below {{tcgen05.ld reads TMEM columns [32, 64) that tcgen05.mma at line 237:3 writes, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 238:3 completes -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
    %y = "tcgen05.ld"(%acc, %c32) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    scf.yield
  }
  default {
    scf.yield
  }
  // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.mma at line 237:3 writes, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 238:3 completes -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  %z = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%z, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The same switch on an index that evaluates (1 + 1 = 2, no such case): only the
// default runs, and it touches nothing. The ld after the switch waits for the commit
// (tracked: parity 0, completes phase 0) and fences. No error: case 1 never runs.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @switch_known_index(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant false
  %sel = arith.addi %c1, %c1 : index
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  scf.index_switch %sel
  case 1 {
    %y = "tcgen05.ld"(%acc, %c32) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    scf.yield
  }
  default {
    scf.yield
  }
  "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  %z = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%z, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// A TMEM buffer chosen by an scf.if result (the form lift-cf-to-scf gives cf branches
// with a block argument). %flag does not evaluate, so %pick is %acc0 (columns [0, 64))
// or %acc1 ([64, 128)), and the ld of its columns [0, 32) reads [0, 32) or [64, 96).
// Neither mma is committed: one error for each (9.7.16.6.4.4).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @picked_buffer_unordered(%C: !llvm.ptr<1>, %flag: i1)
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
  %pick = scf.if %flag -> (!acc) {
    scf.yield %acc0 : !acc
  } else {
    scf.yield %acc1 : !acc
  }
  // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.mma at line 320:3 writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  %y = "tcgen05.ld"(%pick, %c0) : (!acc, index) -> !frag
  // expected-error @above {{tcgen05.ld reads TMEM columns [64, 96) that tcgen05.mma at line 321:3 writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The same with the ordering: one commit after both mmas covers them (9.7.16.12.1), its
// tracked wait (parity 0) completes phase 0, then fence::after_thread_sync. No error.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @picked_buffer_ordered(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  %pick = scf.if %flag -> (!acc) {
    scf.yield %acc0 : !acc
  } else {
    scf.yield %acc1 : !acc
  }
  "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  %y = "tcgen05.ld"(%pick, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Only the first mma is waited for; the second is not. With %flag unknown the ld may
// read either buffer: the one error is for the second mma, whose buffer the else branch
// yields (never silently dropped because the other way is ordered).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @picked_buffer_half_ordered(%C: !llvm.ptr<1>, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %pick = scf.if %flag -> (!acc) {
    scf.yield %acc0 : !acc
  } else {
    scf.yield %acc1 : !acc
  }
  // expected-error @below {{tcgen05.ld reads TMEM columns [64, 96) that tcgen05.mma at line 390:3 writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  %y = "tcgen05.ld"(%pick, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The same with a condition that evaluates (true): %pick is %acc0 only, whose mma is
// complete and fenced. No error (the else branch, which yields %acc1, does not run).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @picked_buffer_known(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %flag = arith.constant true
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %pick = scf.if %flag -> (!acc) {
    scf.yield %acc0 : !acc
  } else {
    scf.yield %acc1 : !acc
  }
  %y = "tcgen05.ld"(%pick, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// A kernel of several blocks: the pass runs scf control flow only.
// expected-error @below {{tcgen05-verify-sync cannot check a kernel with several blocks (cf branches): run lift-cf-to-scf first (the default pipeline runs it before planning)}}
func.func @cf_blocks(%flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  cf.cond_br %flag, ^bb1, ^bb2
^bb1:
  cf.br ^bb2
^bb2:
  return
}

// -----

// The mbarrier of a commit is an scf.if result on a kernel argument: which mbarrier's
// phase advances depends on the way taken, so the pass cannot check the op.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @picked_mbarrier(%flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %bar2 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %mb = scf.if %flag -> (!tcgen05.mbarrier) {
    scf.yield %bar : !tcgen05.mbarrier
  } else {
    scf.yield %bar2 : !tcgen05.mbarrier
  }
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  // expected-error @below {{tcgen05-verify-sync cannot check this op: its mbarrier may be one of several (the ways into it yield different ones)}}
  "tcgen05.commit"(%mb) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// One branch of an scf.if on a kernel argument commits, the other does not: after it, a
// wait with an explicit parity is right on one way only (commits 1 or 0 -> parity 0 or
// 1), so the pass rejects it; a tracked wait would follow the way taken.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @explicit_parity_after_uneven_branches(%flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %p0 = arith.constant 0 : i32
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  scf.if %flag {
    "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  }
  // expected-error @below {{the phase of this op's mbarrier is unknown here: the branches of the scf.if at line 494:3 commit to it a different number of times (a wait without a phase operand follows the way taken)}}
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  return
}

// -----

// The loop of @while_without_wait, 31,763,525 iterations long: after 8 runs of the body its condition counts
// as not evaluating (exits after 8 to 11 runs), so the pass checks it as quickly as the
// short loop and reports the same missing wait (it used to run the loop into the
// 2,000,000-op budget and then give up).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @long_while_without_wait(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 31763525 : index
  %t = arith.constant true
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %end = scf.while (%k = %c0) : (index) -> index {
    %more = arith.cmpi ult, %k, %c2 : index
    scf.condition(%more) %k : index
  } do {
  ^bb0(%j: index):
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.mma at line 528:5 writes, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 529:5 completes -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
    %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    "tcgen05.wait"() {kind = "ld"} : () -> ()
    "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }
  return
}

