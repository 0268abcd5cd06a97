// tcgen05-insert-sync{strategy=loads} (tcgen05_lower/synchronization/pipelined_loads.py)
// on kernels it does not plan: located diagnostics naming the rule. Each kernel is the one
// of pipelined-loads.mlir (a load role filling a 2-stage ring and a tile loaded once, an
// MMA role reading use j of the ring before its loop, in iteration j - 1 and in
// iteration j, or after its loop) with one change, in its comment; the expected texts
// follow the module docstring's rules.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=loads}' --split-input-file --verify-diagnostics

// Every TMA load names its mbarrier (here: no TMA load at all): nothing to plan.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @nothing_to_plan(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: no tcgen05.tma_load names no mbarrier, so there is nothing to plan (use strategy=none)}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The MMA role loads Q itself: the loads are in two roles.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @two_load_roles(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: TMA loads in roles 'load' and 'mma'; one role must issue them}}
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The ring load sits in a loop nested in the load loop.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @nested_load(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        scf.for %h = %c0 to %c1 step %c1 {
          // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: a TMA load that names no mbarrier sits in the role's body or in the body of one scf.for of it (all of them in the same loop), not in scf.for nested deeper}}
          "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The load loop counts from 1: its iteration is not the use.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @load_loop_from_one(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: the load loop must count from 0 by 1 (its iteration is the ring's use)}}
      scf.for %j = %c1 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The load loop fills stage (i + 1) mod 2 in iteration i.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @load_stage_ahead(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %j1 = arith.addi %j, %c1 : index
        %s = arith.remui %j1, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: a ring load must fill stage remui(i, S) of its loop's iteration i (its use)}}
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// A second ring, of 3 stages, filled in the same loop.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
!ring3 = !tcgen05.smem<[3, 64, 64], bf16, "K", "128B">
func.func @two_depths(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %k3 = "tcgen05.smem_buffer"() : () -> !ring3
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
        %c3 = arith.constant 3 : index
        %s3 = arith.remui %j, %c3 : index
        %k3s = "tcgen05.smem_stage"(%k3, %s3) : (!ring3, index) -> !kt
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: rings of 2 and 3 stages are filled in one loop; one depth for all}}
        "tcgen05.tma_load"(%tmK, %k3s, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The load loop fills a plain tile, not a ring stage.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @plain_tile_in_loop(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: a tile in a loop must be a ring stage (tcgen05.smem_stage)}}
        "tcgen05.tma_load"(%tmQ, %q, %c0, %key) : (!llvm.ptr<1>, !q, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The load's stage index is j & 1, not remui(j, 2).
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @stage_by_and(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.andi %j, %c1 : index
        %key = arith.muli %j, %c64 : index
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: the stage index must be remui(use, 2) (the ring's depth)}}
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// No MMA reads the loaded tiles (the MMAs read another tile).
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @no_reader(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %x = "tcgen05.smem_buffer"() : () -> !kt
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: no tcgen05.mma reads the tiles the TMA loads fill}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %x, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %x, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %x, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %x, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The epilogue issues an MMA reading Q too.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @mma_in_two_roles(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %k0e = "tcgen05.smem_stage"(%k, %c0) : (!ring, index) -> !kt
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: the MMAs reading the loaded tiles must sit in one role other than the load role}}
      "tcgen05.mma"(%acc, %q, %k0e, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// An MMA reading a ring stage sits in a loop nested in the MMA loop.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @mma_nested(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        scf.for %h = %c0 to %c1 step %c1 {
          // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: an MMA reading a ring stage sits in the role's body or in the body of one scf.for of it}}
          "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        }
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The MMA loop counts by 2.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @mma_loop_by_two(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: the MMA loop must count from 0 by 1}}
      scf.for %j = %c0 to %last step %c2 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// In the MMA loop a stage index is remui(2 j, 2), not remui(j + b, 2).
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @mma_stage_scaled(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %j2 = arith.muli %j, %c2 : index
        %s = arith.remui %j2, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: in the MMA loop a ring stage must be remui(i + b, S) with b a constant}}
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// Before the MMA loop a stage index is remui(nb, 2), not a constant.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @prologue_stage_runtime(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %nb, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: before the MMA loop a ring stage must be remui(c, S) (c a constant), after it remui(U + c, S) with U the loop's bound}}
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The MMA loop runs to nb / 2: its uses are not the load loop's.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @mma_bound_halved(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.divui %nb, %c2 : index
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: the MMA loop's bound must be the load loop's plus or minus a constant (their iterations name the same uses)}}
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The loop reads use j + 2, past the last loaded use at the end.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @reads_past_the_loads(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c2 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: with 2 uses this MMA reads use 2, which the load loop does not fill}}
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// No MMA after the loop: the read of use 0 before the loop is its last read when the
// loop does not run (one block) only.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @last_sometimes(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: this MMA is the last reader of its use of the ring in some iterations only; the pass writes no conditional wait or commit}}
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// No MMA before the loop and none of use j in it: use 0 is read by no MMA (from two
// blocks on).
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @first_use_unread(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      %last = arith.subi %nb, %c1 : index
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: with 2 uses no MMA reads use 0: its stage would never be released to the refill}}
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// A ring of 1 stage read as use j + 1 before the last read of use j.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[1, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @too_shallow(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c1 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c1 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c1 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: the ring of 1 stages is too shallow for this order of reads: use 1 is read before the last read of use 0, whose commit its refill waits for}}
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %s = arith.remui %j, %c1 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c1 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// Uses 0 and 1 read before the loop: the loop's read of use j + 1 is its first read from j = 1 on only.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @first_sometimes(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %s01 = arith.remui %c1, %c2 : index
      %k01 = "tcgen05.smem_stage"(%k, %s01) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k01, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: this MMA is the first reader of its use of the ring in some iterations only; the pass writes no conditional wait or commit}}
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// A ring stage is loaded outside the load loop.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @stage_loaded_once(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      %kx = "tcgen05.smem_stage"(%k, %c0) : (!ring, index) -> !kt
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: a TMA load outside the load loop fills a whole tile, not a ring stage}}
      "tcgen05.tma_load"(%tmK, %kx, %c0, %c0) : (!llvm.ptr<1>, !kt, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// The loop reads use j + 100 (with the loads 100 blocks ahead too): an offset past 64.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @far_offset(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %c100 = arith.constant 100 : index
        %j1 = arith.addi %j, %c100 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: a use offset of 100 (an MMA's from its loop's counter or bound, or the loops' bounds' difference) is more than 64}}
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// Q is loaded, but the MMAs read another tile (X) as their A operand.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @once_unread(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %xq = "tcgen05.smem_buffer"() : () -> !q
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05-insert-sync{strategy=loads}: no tcgen05.mma reads the tiles the TMA loads outside the load loop fill}}
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %xq, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %xq, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %xq, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %xq, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
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

// A kernel without warp roles: strategy=loads plans the loads of roles only.
// expected-error @+1 {{tcgen05-insert-sync{strategy=loads} plans the TMA loads of a kernel with warp roles; this kernel has no tcgen05.partitions}}
func.func @no_roles(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}
