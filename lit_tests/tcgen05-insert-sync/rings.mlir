// tcgen05-insert-sync{strategy=handoffs} on a ring of three roles
// (tcgen05_lower/synchronization/role_rings.py), the shape of FlashAttention-4's
// correction warpgroup: the MMA role writes S = Q K before its loop (turn 0), runs
// O += P V and S again in iteration j (turn j + 1) and O += P V after it (turn n + 1); the
// softmax role, in iteration j < n + 1 (turn j), loads S, stores P over S's columns 0-31
// (an alias) and stores a column back into C (an alias on S's columns 32-33) after
// loading it, and after its loop (turn n + 1) does the same with C's column 1; the
// correction role, in iteration j (turn j), loads C's column 0, loads O and stores it,
// and after its loop (turn n + 1) loads C's column 1 and O. S (with P and C) is accessed
// by the three roles, and O += P V joins O to it: one ring. Order: the MMA role first (its
// first turn writes S first), then softmax (it reads S, which the MMA writes), then the
// correction (it reads C, S's cells, which softmax writes). Counted by hand from
// role_rings.py's table: three mbarriers (mma -> softmax count 1, softmax -> correction
// and correction -> mma count 128) and the MMA's own (count 1, mma_hazards.py: S of
// iteration j over the P that O += P V reads). MMA: a commit after each of its 3 sites,
// wait + fence before its loop's and its epilogue's turn, and the own order's commit,
// wait and fence (4 commits, 3 waits, 3 fences). Softmax: wait + fence before its loop's
// turn; wait::ld before the store of P (over the S it loaded) and before the store of C
// (over the column it loaded), none before the load of C after the store of P (columns
// 32 and 0-31 do not meet); wait::st, fence::before_thread_sync, arrival after it (its
// loads were waited for: no wait::ld); before its epilogue a wait and no fence (the turns
// since its last one, the MMA's O += P V and the correction's loop, touch P's columns,
// C's column 0 and O, not C's column 1), wait::ld before the store of C, wait::st,
// fence::before and arrival (2 waits, 1 fence, 3 wait::ld, 2 wait::st, 2 fence::before,
// 2 arrivals). Correction: wait + fence before its loop's turn, wait::ld before the store
// of O, wait::st, fence::before, arrival (no wait::ld: the one before the store covered
// its loads); wait + fence before its epilogue (C's column 1, which softmax just stored),
// no signal (the last turn of all); wait::ld + fence::before at its end (2 waits, 2
// fences, 2 wait::ld, 1 wait::st, 2 fence::before, 1 arrival). The fence after the
// partitions op: 33 ops, 4 mbarriers. verify-sync accepts it and rejects the deletion of
// any of them (tests/test_ws_attention_rings.py).
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=handoffs report=true},tcgen05-verify-sync{report=true}' 2>&1 >/dev/null | FileCheck %s

// CHECK: tcgen05-insert-sync: kernel @ring strategy=handoffs added 33 ops (4 commit, 7 mbarrier_wait, 5 wait::ld, 3 wait::st, 4 fence::before, 7 fence::after, 3 mbarrier_arrive), 4 mbarriers
// CHECK-NEXT: mbarrier (count 1)                   mma -> softmax (S, O): tcgen05.commit after each turn of 'mma' on them; 'softmax' waits before its turn
// CHECK-NEXT: mbarrier (count 128)                 softmax -> correction (S, O): the 128 threads of 'softmax' arrive after each turn; 'correction' waits before its turn
// CHECK-NEXT: mbarrier (count 128)                 correction -> mma (S, O): the 128 threads of 'correction' arrive after each turn; 'mma' waits before its turn
// CHECK-NEXT: mbarrier (count 1)                   mma -> mma (S): tcgen05.commit after the MMAs that read S's cells; the MMA that writes them waits (9.7.16.6.2: other accumulators, no pipelined pair)
// CHECK: tcgen05.mbarrier_wait 'softmax' accesses S, O after the turn of 'mma' before it in their ring (the turn after the loop waits for parity (U + 0) & 1, U the loop's bound)
// CHECK-NEXT: tcgen05.wait::ld tcgen05.st of C (on S's cells) after this thread's tcgen05.ld of cells it may share
// CHECK: tcgen05-verify-sync: kernel @ring: {{.*}}: ordered

!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!c = !tcgen05.tmem<[128, 2], f32>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
!row = !tcgen05.frag<[128, 1], f32>
func.func @ring(%out: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 384 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %C = "tcgen05.tmem_buffer"() {name = "C", alias = "S", alias_column = 32 : i64} : () -> !c
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
        %a = "tcgen05.ld"(%C, %c0) : (!c, index) -> !row
        "tcgen05.st"(%C, %c0, %a) : (!c, index, !row) -> ()
      }
      %l = "tcgen05.ld"(%C, %c1) : (!c, index) -> !row
      "tcgen05.st"(%C, %c1, %l) : (!c, index, !row) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %a = "tcgen05.ld"(%C, %c0) : (!c, index) -> !row
        %o = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
        "tcgen05.st"(%O, %c0, %o) : (!s, index, !f) -> ()
      }
      %l = "tcgen05.ld"(%C, %c1) : (!c, index) -> !row
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "correction", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
