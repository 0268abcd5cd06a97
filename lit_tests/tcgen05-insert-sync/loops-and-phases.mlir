// Dependences through loops and branches, and the mbarrier phases the waits use.
// Phase arithmetic, derived by hand: each tcgen05.commit is one arrive::one on an mbarrier
// initialized for one arrival, so the n-th commit to it (counting from 0) completes phase
// n, whose parity is n mod 2; a wait for the most recent of c commits uses parity
// (c - 1) mod 2. When c = 0 that is parity 1, the phase "before" phase 0, which
// mbarrier.try_wait.parity reports complete on a fresh mbarrier.
// RUN: tcgen05-opt %s -p tcgen05-insert-sync --split-input-file | FileCheck %s
// RUN: tcgen05-opt %s -p tcgen05-insert-sync,tcgen05-verify-sync --split-input-file | FileCheck %s

// A K loop refilling one pair of tiles, then the accumulator is read. The fills of
// iteration k need the MMAs of iteration k - 1 complete (WAR on the tiles); the code after
// the loop needs the last MMAs, so the wait sits at the end of the body: before the wait
// of iteration k, k + 1 commits were issued, the parity is k mod 2.
// CHECK-LABEL: func.func @kloop
// CHECK:      [[MBAR:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK-NOT:  "tcgen05.alloc_mbarrier"
// CHECK:      scf.for [[K:%[^ ]+]] = [[LB:%[^ ]+]] to {{%[^ ]+}} step [[STEP:%[^ ]+]] {
// CHECK-NEXT:   "tcgen05.smem_fill"
// CHECK-NEXT:   "tcgen05.smem_fill"
// CHECK-NEXT:   "tcgen05.fence_proxy_async"() {reason = "completion of tcgen05.smem_fill at line {{[0-9]+}}, tcgen05.smem_fill at line {{[0-9]+}} before tcgen05.mma at line {{[0-9]+}}: RAW on a shared-memory tile"}
// CHECK-NEXT:   "tcgen05.barrier"
// CHECK-NEXT:   "tcgen05.mma"([[ACC:%[^,]+]],
// CHECK-NEXT:   "tcgen05.mma"([[ACC]],
// CHECK-NEXT:   "tcgen05.commit"([[MBAR]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}}, tcgen05.mma at line {{[0-9]+}} before tcgen05.smem_fill at line {{[0-9]+}}: WAR on a shared-memory tile (next iteration)"}
// CHECK-NEXT:   [[OFF:%.+]] = arith.subi [[K]], [[LB]] : index
// CHECK-NEXT:   [[IT:%.+]] = arith.divui [[OFF]], [[STEP]] : index
// CHECK-NEXT:   [[ONE:%.+]] = arith.constant 1 : index
// CHECK-NEXT:   [[BIT:%.+]] = arith.andi [[IT]], [[ONE]] : index
// CHECK-NEXT:   [[PAR:%.+]] = arith.index_cast [[BIT]] : index to i32
// CHECK-NEXT:   "tcgen05.mbarrier_wait"([[MBAR]], [[PAR]])
// CHECK-NEXT: {{^ *}$}}
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.ld"([[ACC]],
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @kloop(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c64 step %c16 {
    "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
    "tcgen05.smem_fill"(%B, %b, %k) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 0 : i64} : (!acc, !ta, !tb, i1) -> ()
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The same K loop inside a loop over three tiles, and nothing after the K loop needs the
// MMAs: the wait goes right before the fills, at the top of the K body. Before that wait
// in K iteration k of tile o, 3 * o + k commits were issued (3 per tile), so the parity
// is (3o + k - 1) mod 2 = (o + k + 1) mod 2. In the first K iteration of a tile that wait
// is for the previous tile's last commit, which the fills need too (the MMAs of that tile
// read the tiles): one wait serves both, nothing is needed before the K loop.
// CHECK-LABEL: func.func @nested_loops
// CHECK:      scf.for [[O:%[^ ]+]] = [[OLB:%[^ ]+]] to {{%[^ ]+}} step [[OSTEP:%[^ ]+]] {
// CHECK-NEXT:   scf.for [[K:%[^ ]+]] = [[KLB:%[^ ]+]] to {{%[^ ]+}} step [[KSTEP:%[^ ]+]] {
// CHECK-NEXT:     [[OOFF:%.+]] = arith.subi [[O]], [[OLB]] : index
// CHECK-NEXT:     [[OIT:%.+]] = arith.divui [[OOFF]], [[OSTEP]] : index
// CHECK-NEXT:     [[KOFF:%.+]] = arith.subi [[K]], [[KLB]] : index
// CHECK-NEXT:     [[KIT:%.+]] = arith.divui [[KOFF]], [[KSTEP]] : index
// CHECK-NEXT:     [[SUM:%.+]] = arith.addi [[OIT]], [[KIT]] : index
// CHECK-NEXT:     [[ONE:%.+]] = arith.constant 1 : index
// CHECK-NEXT:     [[SUM1:%.+]] = arith.addi [[SUM]], [[ONE]] : index
// CHECK-NEXT:     [[ONE2:%.+]] = arith.constant 1 : index
// CHECK-NEXT:     [[BIT:%.+]] = arith.andi [[SUM1]], [[ONE2]] : index
// CHECK-NEXT:     [[PAR:%.+]] = arith.index_cast [[BIT]] : index to i32
// CHECK-NEXT:     "tcgen05.mbarrier_wait"([[MBAR:%[^,]+]], [[PAR]])
// CHECK-NEXT:     "tcgen05.smem_fill"
// CHECK-NEXT:     "tcgen05.fence_proxy_async"
// CHECK-NEXT:     "tcgen05.barrier"
// CHECK-NEXT:     "tcgen05.mma"
// CHECK-NEXT:     "tcgen05.commit"([[MBAR]])
// CHECK-NEXT:   {{^ *}$}}
// CHECK-NEXT: {{^ *}$}}
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @nested_loops(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %o = %c0 to %c3 step %c1 {
    scf.for %k = %c0 to %c3 step %c1 {
      "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    }
  }
  return
}

// -----

// A branch: the MMA is committed right after it, and the wait and fence go before the
// scf.if whose then-branch loads the accumulator (waits never sit in a branch, so every
// commit is waited for on every path).
// CHECK-LABEL: func.func @branch
// CHECK:      "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"([[MBAR:%[^)]+]])
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: [[P:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[P]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: {{^ *}}scf.if
// CHECK-NEXT: "tcgen05.ld"
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @branch(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %p = arith.cmpi ne, %n, %c0 : index
  scf.if %p {
    %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  return
}

// -----

// Only the issuing thread's ops in a loop: an MMA reads A from TMEM, a tcgen05.cp then
// overwrites A for the next iteration (mma -> cp is not pipelined: commit, wait,
// fence::after_thread_sync). Nothing else in the body is a barrier, so a warp still
// waiting for iteration i's phase could miss it when thread 0 commits iteration i + 1's:
// a barrier goes before the commit (the mbarrier phase rule of the pass docstring).
// CHECK-LABEL: func.func @phase_needs_barrier
// CHECK:      scf.for [[I:%[^ ]+]] = [[LB:%[^ ]+]] to {{%[^ ]+}} step [[STEP:%[^ ]+]] {
// CHECK-NEXT:   "tcgen05.mma"
// CHECK-NEXT:   "tcgen05.barrier"() {reason = "every thread has passed its wait on this mbarrier before tcgen05.commit at line {{[0-9]+}} completes its next phase"}
// CHECK-NEXT:   "tcgen05.commit"([[MBAR:%[^)]+]])
// CHECK-NEXT:   [[OFF:%.+]] = arith.subi [[I]], [[LB]] : index
// CHECK-NEXT:   [[IT:%.+]] = arith.divui [[OFF]], [[STEP]] : index
// CHECK-NEXT:   [[ONE:%.+]] = arith.constant 1 : index
// CHECK-NEXT:   [[BIT:%.+]] = arith.andi [[IT]], [[ONE]] : index
// CHECK-NEXT:   [[PAR:%.+]] = arith.index_cast [[BIT]] : index to i32
// CHECK-NEXT:   "tcgen05.mbarrier_wait"([[MBAR]], [[PAR]])
// CHECK-NEXT:   "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT:   "tcgen05.cp"
// CHECK-NEXT: {{^ *}$}}
!acc = !tcgen05.tmem<[128, 128], f32>
!at = !tcgen05.tmem<[128, 16], bf16>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[128, 16], bf16, "K", "none">
func.func @phase_needs_barrier()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %at = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  scf.for %i = %c0 to %c4 step %c1 {
    "tcgen05.mma"(%acc, %at, %b, %t) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
    "tcgen05.cp"(%at, %a) {shape = "128x256b"} : (!at, !ta) -> ()
  }
  return
}

// -----

// Slices of a buffer addressed by the induction variable: iteration i stores and loads
// columns [i, i + 32). The load reads what the store of the same iteration wrote
// (wait::st); the store of the next iteration writes other columns than this load read,
// so no wait::ld is needed between iterations, and the load's registers are read in the
// same iteration.
// CHECK-LABEL: func.func @slices
// CHECK:      scf.for
// CHECK-NEXT:   "tcgen05.load_fragment"
// CHECK-NEXT:   "tcgen05.st"
// CHECK-NEXT:   "tcgen05.wait"() {kind = "st"
// CHECK-NEXT:   [[X:%.+]] = "tcgen05.ld"
// CHECK-NEXT:   "tcgen05.store_fragment"([[X]],
// CHECK-NEXT: {{^ *}$}}
!buf = !tcgen05.tmem<[128, 128], f32>
!frag = !tcgen05.frag<[128, 32], f32>
func.func @slices(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !buf
  scf.for %i = %c0 to %c128 step %c32 {
    %in = "tcgen05.load_fragment"(%A, %i) {ld = 128 : i64} : (!llvm.ptr<1>, index) -> !frag
    "tcgen05.st"(%buf, %i, %in) : (!buf, index, !frag) -> ()
    %x = "tcgen05.ld"(%buf, %i) : (!buf, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %i) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  return
}
