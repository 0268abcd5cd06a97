// tcgen05-insert-sync{strategy=handoffs} (tcgen05_lower/synchronization/role_handoffs.py):
// an MMA role and a softmax role hand S, P and O to each other, turn by turn. The MMA
// role: S = Q K before its loop (turn 0); in iteration j, O += P V and S again (turn
// j + 1); O += P V after it (turn n + 1). The softmax role: in iteration j < n + 1, load S
// and store P (turn j); after its loop, load O (turn n + 1). Its first turn reads S, which
// the MMA role writes: the MMA role goes first. Counted by hand from role_handoffs.py's
// table: a forward mbarrier (count 1) and a backward one (count 128, the softmax role's
// threads); the MMA role commits after each of its 3 sites (3), waits on the backward
// mbarrier + fence::after_thread_sync before its loop's and its epilogue's first MMA
// (parity (j + 1 + 1) & 1 = j & 1, and (n + 2) & 1) (4); the softmax role waits + fences
// before its loop's first load (parity j & 1) and its epilogue's (parity (n + 1) & 1) (4),
// runs wait::ld, wait::st, fence::before_thread_sync and arrives after its loop's last
// store (4), wait::ld + fence::before_thread_sync at its end (2); the fence after the
// partitions op (1): 18 ops. @correction adds a correction loop of O (ld then st of the
// same 32 columns, step 32, two trips): one wait::ld before the store (9.7.16.6.4.2), none
// between iterations (disjoint columns), and the turn's wait::ld before its arrival goes
// (the last store waited for every load before it): 18 ops; @overlap steps by 16, so the
// load of iteration i + 1 meets the store of iteration i: a wait::st before the load as
// well, 19. @first_in_loop has no MMA before the MMA role's loop: its turn j waits for
// completion j - 1 of the backward mbarrier, parity (j + 1) & 1 (in iteration 0 the phase
// before the first, which a fresh mbarrier reports complete); its turn after the loop
// writes O only, which the softmax's loop turn before it did not touch: a wait (the
// phases stay in step) and no fence. M: 3 + 2, softmax: 2 + 3 + 2 + 2, the partitions
// op's fence: 15. verify-sync accepts all four (and rejects the deletion of any inserted
// op: tests/test_role_handoffs.py). @p_over_s is @handoffs with P an alias of S
// (alias = "S": P's cells are S's, planning/aliases.py): the handoffs see one buffer S
// (and O); the MMA role's loop reads P (S's cells) as A in O += P V, then writes S with
// another accumulator: no pipelined pair (9.7.16.6.2), so a commit to an mbarrier of its
// own after O += P V and a wait (parity j & 1) + fence::after_thread_sync before S
// (mma_hazards.py; none before or after the loop: no MMA there writes what an earlier MMA
// of its turn read); the softmax's store of P after its load of S waits with wait::ld
// (9.7.16.6.4.2), and the wait::ld before its arrival goes (nothing loaded is in flight
// there). MMA role: 3 + 1 commits, 2 + 1 waits, 2 + 1 fences (10); softmax: 2 waits, 2
// fences, wait::ld before the store, wait::st, fence::before, arrival, wait::ld +
// fence::before at its end (10); the partitions op's fence: 21 ops, 3 mbarriers.
// @alias_across_turns: the MMA role writes S (turn 0), reads P, S's cells, as A in its
// loop (O += P V, turn j + 1) and writes S again after it; the softmax role loads O in its
// loop and S after it. The MMA's S after its loop and the last O += P V are of different
// turns: the handoffs order them only through the fence after the MMA's wait, which the
// table would leave out (the softmax's loop turn before it touched only O); a buffer an
// alias names keeps it (role_handoffs.aliased_cells). MMA: a commit after each of its 3
// sites, wait + fence before its loop's and its epilogue's MMA (7); softmax: wait + fence,
// wait::ld, fence::before, arrival in its loop, wait + fence before its epilogue,
// wait::ld + fence::before at its end (9); the partitions op's fence: 17 ops, 2 mbarriers.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=handoffs report=true},tcgen05-verify-sync{report=true}' 2>&1 >/dev/null | FileCheck %s

// CHECK: tcgen05-insert-sync: kernel @handoffs strategy=handoffs added 18 ops (3 commit, 4 mbarrier_wait, 2 wait::ld, 1 wait::st, 2 fence::before, 5 fence::after, 1 mbarrier_arrive), 2 mbarriers
// CHECK-NEXT: mbarrier (count 1)                   mma -> softmax (S, P, O): tcgen05.commit after each turn of 'mma' on them; 'softmax' waits before its turn
// CHECK-NEXT: mbarrier (count 128)                 softmax -> mma (S, P, O): the 128 threads of 'softmax' arrive after each turn; 'mma' waits before its turn
// CHECK-NEXT: tcgen05.commit the MMAs of 'mma''s turn on S, P, O complete before the other role's next turn (the commit tracks every prior MMA of the thread, 9.7.16.12.1)
// CHECK-NEXT: tcgen05.mbarrier_wait 'mma' accesses S, P, O after the loads and stores of the other role's previous turn on them (turn j + 1 waits for parity (j + 2) & 1)
// CHECK-NEXT: tcgen05.fence::after_thread_sync 'mma''s tcgen05 ops on S, P, O ordered after the mbarrier wait (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.commit the MMAs of 'mma''s turn on S, P, O complete before the other role's next turn (the commit tracks every prior MMA of the thread, 9.7.16.12.1)
// CHECK-NEXT: tcgen05.mbarrier_wait 'mma' accesses S, P, O after the loads and stores of the other role's previous turn on them (the turn after the loop waits for parity (U + 2) & 1, U the loop's bound)
// CHECK-NEXT: tcgen05.fence::after_thread_sync 'mma''s tcgen05 ops on S, P, O ordered after the mbarrier wait (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.commit the MMAs of 'mma''s turn on S, P, O complete before the other role's next turn (the commit tracks every prior MMA of the thread, 9.7.16.12.1)
// CHECK-NEXT: tcgen05.mbarrier_wait 'softmax' accesses S, P, O after the MMAs of the other role's previous turn on them (turn j waits for parity (j + 0) & 1)
// CHECK-NEXT: tcgen05.fence::after_thread_sync 'softmax''s tcgen05 ops on S, P, O ordered after the mbarrier wait (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.wait::ld the tcgen05.ld of 'softmax''s turn on S, P, O complete before its arrival (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.wait::st the tcgen05.st of 'softmax''s turn on S, P, O complete before its arrival (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.fence::before_thread_sync 'softmax''s tcgen05 ops on S, P, O ordered before its arrival (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.mbarrier_arrive 'softmax''s turn on S, P, O is over: the MMA role's next turn may overwrite and read them
// CHECK-NEXT: tcgen05.mbarrier_wait 'softmax' accesses S, P, O after the MMAs of the other role's previous turn on them (the turn after the loop waits for parity (U + 0) & 1, U the loop's bound)
// CHECK-NEXT: tcgen05.fence::after_thread_sync 'softmax''s tcgen05 ops on S, P, O ordered after the mbarrier wait (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.wait::ld the tcgen05.ld of 'softmax' complete before the join of the roles and the dealloc after it (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.fence::before_thread_sync 'softmax''s tcgen05 ops ordered before the join (9.7.16.6.4.4)
// CHECK-NEXT: tcgen05.fence::after_thread_sync the dealloc after the roles' join ordered after their TMEM accesses (9.7.16.6.4.4)
// CHECK: kernel @correction strategy=handoffs added 18 ops (3 commit, 4 mbarrier_wait, 2 wait::ld, 1 wait::st,
// CHECK: tcgen05.wait::ld tcgen05.st of O after this thread's tcgen05.ld of cells it may share
// CHECK-NOT: tcgen05.ld of O after this thread's tcgen05.st
// CHECK: kernel @overlap strategy=handoffs added 19 ops (3 commit, 4 mbarrier_wait, 2 wait::ld, 2 wait::st,
// CHECK: tcgen05.wait::st tcgen05.ld of O after this thread's tcgen05.st of cells it may share
// CHECK-NEXT: tcgen05.wait::ld tcgen05.st of O after this thread's tcgen05.ld of cells it may share
// CHECK: kernel @first_in_loop strategy=handoffs added 15 ops (2 commit, 4 mbarrier_wait, 2 wait::ld, 2 fence::before, 4 fence::after, 1 mbarrier_arrive), 2 mbarriers
// CHECK: tcgen05.mbarrier_wait 'mma' accesses S, O after the loads and stores of the other role's previous turn on them (turn j waits for parity (j + 1) & 1)
// CHECK: kernel @p_over_s strategy=handoffs added 21 ops (4 commit, 5 mbarrier_wait, 2 wait::ld, 1 wait::st, 2 fence::before, 6 fence::after, 1 mbarrier_arrive), 3 mbarriers
// CHECK: mbarrier (count 1)                   mma -> softmax (S, O): tcgen05.commit after each turn of 'mma' on them; 'softmax' waits before its turn
// CHECK: mbarrier (count 1)                   mma -> mma (S): tcgen05.commit after the MMAs that read S's cells; the MMA that writes them waits (9.7.16.6.2: other accumulators, no pipelined pair)
// CHECK: tcgen05.commit the MMAs of 'mma' reading S's cells complete before its MMA with another accumulator writes them (9.7.16.12.1)
// CHECK-NEXT: tcgen05.mbarrier_wait 'mma' writes S's cells after its MMAs with another accumulator that read them have completed (iteration j waits for parity j & 1; two MMAs of different accumulators are no pipelined pair, 9.7.16.6.2)
// CHECK-NEXT: tcgen05.fence::after_thread_sync 'mma''s MMA on S ordered after the mbarrier wait (9.7.16.6.4.4)
// CHECK: tcgen05.wait::ld tcgen05.st of P (on S's cells) after this thread's tcgen05.ld of cells it may share
// CHECK-NOT: tcgen05.wait::ld the tcgen05.ld of 'softmax''s turn
// CHECK: tcgen05.wait::st the tcgen05.st of 'softmax''s turn on S, O complete before its arrival
// CHECK: kernel @alias_across_turns strategy=handoffs added 17 ops (3 commit, 4 mbarrier_wait, 2 wait::ld, 2 fence::before, 5 fence::after, 1 mbarrier_arrive), 2 mbarriers
// CHECK: tcgen05-verify-sync: kernel @handoffs: {{.*}}: ordered
// CHECK: tcgen05-verify-sync: kernel @correction: {{.*}}: ordered
// CHECK: tcgen05-verify-sync: kernel @overlap: {{.*}}: ordered
// CHECK: tcgen05-verify-sync: kernel @first_in_loop: {{.*}}: ordered
// CHECK: tcgen05-verify-sync: kernel @p_over_s: {{.*}}: ordered
// CHECK: tcgen05-verify-sync: kernel @alias_across_turns: {{.*}}: ordered

!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @handoffs(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
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
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

func.func @correction(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
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
        scf.for %col = %c0 to %c64 step %c32 {
          %o = "tcgen05.ld"(%O, %col) : (!s, index) -> !tcgen05.frag<[128, 32], f32>
          "tcgen05.st"(%O, %col, %o) : (!s, index, !tcgen05.frag<[128, 32], f32>) -> ()
        }
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

func.func @overlap(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
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
        scf.for %col = %c0 to %c48 step %c16 {
          %o = "tcgen05.ld"(%O, %col) : (!s, index) -> !tcgen05.frag<[128, 32], f32>
          "tcgen05.st"(%O, %col, %o) : (!s, index, !tcgen05.frag<[128, 32], f32>) -> ()
        }
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

func.func @first_in_loop(%out: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      "tcgen05.mma"(%O, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        "tcgen05.store_fragment"(%x, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

func.func @p_over_s(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
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
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

func.func @alias_across_turns(%out: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      }
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
        "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      }
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%x, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
