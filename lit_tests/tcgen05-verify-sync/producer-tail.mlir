// tcgen05-verify-sync requires the producer tail of a ring (passes/verify_sync_roles.py,
// "Asynchronous arrivals are checked at exit"; docs/partitions.md): the last commit to
// each empty mbarrier of a ring is waited for by nothing in the loop, and the arrivals of
// two commits are not ordered (9.7.16.12.1), so without a wait for its phase the arrival
// may land in the shared memory of a CTA that has exited. Each kernel: one tile of
// K = 192, 3 K blocks through a 2-stage ring (use i: stage i mod 2, round i / 2), so
// stage 0 gets the commits of uses 0 and 2 (the last in phase 1, parity 1) and stage 1
// the commit of use 1 (phase 0, parity 0): derived by hand from the loop, not from a pass.
// Located at the commit (the last to the mbarriers it names), naming each mbarrier and
// phase; for a pair (cta_group::2) each CTA's copy of the multicast commit's mbarrier.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-verify-sync' --split-input-file --verify-diagnostics

// With the tail (a wait per stage, for the parity of its last commit): ordered.
func.func @tail_written(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %ready = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %er = arith.addi %r, %c1 : index
        %ep = arith.andi %er, %c1 : index
        %empty_parity = arith.index_cast %ep : index to i32
        %k = arith.muli %i, %c64 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      // The producer tail: stage 0's last commit (phase 1), stage 1's (phase 0).
      %tail0 = "tcgen05.mbarrier_stage"(%empty, %c0) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
      "tcgen05.mbarrier_wait"(%tail0, %p1) : (!tcgen05.mbarrier, i32) -> ()
      %tail1 = "tcgen05.mbarrier_stage"(%empty, %c1) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
      "tcgen05.mbarrier_wait"(%tail1, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %fp = arith.andi %r, %c1 : index
        %full_parity = arith.index_cast %fp : index to i32
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%full_s, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        %accumulate = arith.cmpi ne, %i, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty_s) : (!tcgen05.mbarrier) -> ()
      }
      "tcgen05.commit"(%ready) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%ready, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c256 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
            : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}

// -----

// No tail: both stages' last commits are in flight at exit.
func.func @no_tail(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %ready = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %er = arith.addi %r, %c1 : index
        %ep = arith.andi %er, %c1 : index
        %empty_parity = arith.index_cast %ep : index to i32
        %k = arith.muli %i, %c64 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %fp = arith.andi %r, %c1 : index
        %full_parity = arith.index_cast %fp : index to i32
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%full_s, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        %accumulate = arith.cmpi ne, %i, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        // expected-error @+1 {{the arrival of tcgen05.commit in role 'mma' may still be in flight when the CTA holding its mbarrier exits: no wait observes phase 1 (parity 1) of the mbarrier (stage 0 of the ring allocated at line 123:12); phase 0 (parity 0) of the mbarrier (stage 1 of the ring allocated at line 123:12)}}
        "tcgen05.commit"(%empty_s) : (!tcgen05.mbarrier) -> ()
      }
      "tcgen05.commit"(%ready) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%ready, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c256 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
            : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}

// -----

// A tail on stage 0 only: stage 1's commit is in flight at exit.
func.func @tail_on_one_stage(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %ready = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %er = arith.addi %r, %c1 : index
        %ep = arith.andi %er, %c1 : index
        %empty_parity = arith.index_cast %ep : index to i32
        %k = arith.muli %i, %c64 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      // A tail on stage 0 only.
      %tail0 = "tcgen05.mbarrier_stage"(%empty, %c0) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
      "tcgen05.mbarrier_wait"(%tail0, %p1) : (!tcgen05.mbarrier, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %fp = arith.andi %r, %c1 : index
        %full_parity = arith.index_cast %fp : index to i32
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%full_s, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        %accumulate = arith.cmpi ne, %i, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        // expected-error @+1 {{the arrival of tcgen05.commit in role 'mma' may still be in flight when the CTA holding its mbarrier exits: no wait observes phase 0 (parity 0) of the mbarrier (stage 1 of the ring allocated at line 208:12) (an asynchronous arrival}}
        "tcgen05.commit"(%empty_s) : (!tcgen05.mbarrier) -> ()
      }
      "tcgen05.commit"(%ready) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%ready, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c256 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
            : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}

// -----

// Stage 1's tail wait for parity 1: its only commit is in phase 0 (parity 0),
// and a wait for parity 1 returns at once on an mbarrier with no phase complete: it
// observes nothing (9.7.13.15.16, try_wait.parity); and if phase 0 completed first it
// would wait for phase 1, which never comes.
func.func @tail_wrong_parity(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %ready = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %er = arith.addi %r, %c1 : index
        %ep = arith.andi %er, %c1 : index
        %empty_parity = arith.index_cast %ep : index to i32
        %k = arith.muli %i, %c64 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      %tail0 = "tcgen05.mbarrier_stage"(%empty, %c0) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
      "tcgen05.mbarrier_wait"(%tail0, %p1) : (!tcgen05.mbarrier, i32) -> ()
      %tail1 = "tcgen05.mbarrier_stage"(%empty, %c1) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
      // expected-error @+1 {{phase 0 of this wait's mbarrier may complete before the wait (for parity 1) in role 'load' runs: its arrival tcgen05.commit at line 343:9 in role 'mma' is not ordered after the wait, which then waits for phase 1 (9.7.13.15.16)}}
      "tcgen05.mbarrier_wait"(%tail1, %p1) : (!tcgen05.mbarrier, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %fp = arith.andi %r, %c1 : index
        %full_parity = arith.index_cast %fp : index to i32
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%full_s, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        %accumulate = arith.cmpi ne, %i, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        // expected-error @+1 {{the arrival of tcgen05.commit in role 'mma' may still be in flight when the CTA holding its mbarrier exits: no wait observes phase 0 (parity 0) of the mbarrier (stage 1 of the ring allocated at line 299:12) (an asynchronous arrival}}
        "tcgen05.commit"(%empty_s) : (!tcgen05.mbarrier) -> ()
      }
      "tcgen05.commit"(%ready) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%ready, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c256 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
            : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}

// -----

// A CTA pair without the tail: the multicast commit (mask 0b11) reaches both CTAs'
// copies of empty_s, and neither CTA's load role waits for the last ones.
func.func @pair_no_tail(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 128>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[256, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %ready = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %er = arith.addi %r, %c1 : index
        %ep = arith.andi %er, %c1 : index
        %empty_parity = arith.index_cast %ep : index to i32
        %k = arith.muli %i, %c64 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %fp = arith.andi %r, %c1 : index
        %full_parity = arith.index_cast %fp : index to i32
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%full_s, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        %accumulate = arith.cmpi ne, %i, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
        // expected-error @+1 {{the arrival of tcgen05.commit in role 'mma (rank 0)' may still be in flight when the CTA holding its mbarrier exits: no wait observes phase 1 (parity 1) of the mbarrier (stage 0 of the ring allocated at line 390:12, its copy in the CTA of rank 0); phase 1 (parity 1) of the mbarrier (stage 0 of the ring allocated at line 390:12, its copy in the CTA of rank 1); phase 0 (parity 0) of the mbarrier (stage 1 of the ring allocated at line 390:12, its copy in the CTA of rank 0); phase 0 (parity 0) of the mbarrier (stage 1 of the ring allocated at line 390:12, its copy in the CTA of rank 1)}}
        "tcgen05.commit"(%empty_s) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
      }
      "tcgen05.commit"(%ready) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%ready, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c256 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[256, 256], f32>, index) -> !tcgen05.frag<[256, 32], f32>
        "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
            : (!tcgen05.frag<[256, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}

// -----

// The pair with the tail: each CTA's load role waits on its own copies: ordered.
func.func @pair_tail_written(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 128>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %true = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[256, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %ready = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %er = arith.addi %r, %c1 : index
        %ep = arith.andi %er, %c1 : index
        %empty_parity = arith.index_cast %ep : index to i32
        %k = arith.muli %i, %c64 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      // The producer tail: stage 0's last commit (phase 1), stage 1's (phase 0).
      %tail0 = "tcgen05.mbarrier_stage"(%empty, %c0) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
      "tcgen05.mbarrier_wait"(%tail0, %p1) : (!tcgen05.mbarrier, i32) -> ()
      %tail1 = "tcgen05.mbarrier_stage"(%empty, %c1) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
      "tcgen05.mbarrier_wait"(%tail1, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c3 step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %fp = arith.andi %r, %c1 : index
        %full_parity = arith.index_cast %fp : index to i32
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%full_s, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        %accumulate = arith.cmpi ne, %i, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty_s) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
      }
      "tcgen05.commit"(%ready) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%ready, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c256 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[256, 256], f32>, index) -> !tcgen05.frag<[256, 32], f32>
        "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
            : (!tcgen05.frag<[256, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
