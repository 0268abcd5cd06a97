// More kernels whose synchronization the ring protocol cannot plan
// (tcgen05_lower/synchronization/rings.py: RingPlan's checks that the load, MMA and
// epilogue roles are three, each in one role and one block, the epilogue's loads in one
// tile block, one accumulator, written by the MMAs in a K-block loop): each kernel is
// examples/ws_persistent_gemm_bf16.mlir with the one change its comment names, and each is
// refused at the op that breaks the rule, by that rule.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' --split-input-file --verify-diagnostics

// The kernel has no epilogue role: no tcgen05.ld reads the accumulator, so the ring
// protocol (load, MMA and epilogue roles) has no role to hand the accumulator to.
func.func @no_epilogue(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // expected-error @+1 {{the ring protocol plans a load role, an MMA role and an epilogue role; these roles have no tcgen05.ld ops}}
          "tcgen05.tma_load"(%tmA, %as, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The B load sits in a loop of its own inside the K-block loop: the loads of one ring
// use must be in one block, one use per execution of it.
func.func @loads_two_blocks(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          "tcgen05.tma_load"(%tmA, %as, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          scf.for %z = %c0 to %c1 step %c1 {
            // expected-error @+1 {{the ring protocol needs the TMA loads in one block (one ring use per execution of it); this one is in another}}
            "tcgen05.tma_load"(%tmB, %bs, %k, %n)
                : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index, index) -> ()
          }
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The epilogue drains tiles 0-1 and 2-3 in two loops: its loads must sit in one tile
// block, matched with the MMA role's tile loop.
func.func @epilogue_two_blocks(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          "tcgen05.tma_load"(%tmA, %as, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c2 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      scf.for %t = %c2 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %col = %c0 to %c256 step %c32 {
          // expected-error @+1 {{the loads of TMEM buffer 'acc' must all sit in one tile block of role 'epilogue' (warps 4-7)}}
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A second MMA role (warp 2) issues MMAs into the same accumulator: the MMAs must be in
// one role.
func.func @mmas_two_roles(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          "tcgen05.tma_load"(%tmA, %as, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          // expected-error @+1 {{the ring protocol needs the MMAs in one role; they are in role 'mma' (warp 1), role 'mma2' (warp 2)}}
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // A second MMA role: warp 2.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma2", first_warp = 2 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The MMA role (a warpgroup) also drains the accumulator: the loads, the MMAs and the
// epilogue's loads must be in three different roles.
func.func @loads_in_mma_role(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          "tcgen05.tma_load"(%tmA, %as, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          // expected-error @+1 {{the ring protocol needs the TMA loads, the MMAs and the loads of the accumulator in three different roles}}
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 4 : i64, warps = 4 : i64} : () -> ()

    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// With N = 128 (so that two buffers fit in 512 columns), the last MMA of each K block
// writes a second accumulator %acc2: the protocol plans one accumulator (ring).
func.func @two_accumulators(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 128>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 128], f32>
  %acc2 = "tcgen05.tmem_buffer"() {name = "acc2"} : () -> !tcgen05.tmem<[128, 128], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          "tcgen05.tma_load"(%tmA, %as, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 128], f32>, index) -> !tcgen05.tmem<[128, 128], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          // expected-error @+1 {{the ring protocol plans one accumulator (ring) per kernel; these MMAs write 2}}
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%acc2, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 128], f32>, index) -> !tcgen05.tmem<[128, 128], f32>
        scf.for %col = %c0 to %c128 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// With N = 128, the epilogue loads a buffer %other that no MMA writes: nothing orders
// its loads, and the protocol does not guess.
func.func @ld_of_unwritten_buffer(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 128>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 128], f32>
  %other = "tcgen05.tmem_buffer"() {name = "other"} : () -> !tcgen05.tmem<[128, 128], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          "tcgen05.tma_load"(%tmA, %as, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 128], f32>, index) -> !tcgen05.tmem<[128, 128], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 128], f32>, index) -> !tcgen05.tmem<[128, 128], f32>
        scf.for %col = %c0 to %c128 step %c32 {
          // expected-error @+1 {{this tcgen05.ld reads a TMEM buffer no MMA of the roles writes}}
          %frag = "tcgen05.ld"(%other, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The load and MMA roles issue one stage's loads and MMAs straight in their bodies, with
// no loop: the protocol counts ring uses by the MMAs' K-block loop, which is missing.
func.func @mmas_outside_a_k_loop(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      %as = "tcgen05.smem_stage"(%a, %c0) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
      %bs = "tcgen05.smem_stage"(%b, %c0) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
      "tcgen05.tma_load"(%tmA, %as, %c0, %c0)
          : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
      "tcgen05.tma_load"(%tmB, %bs, %c0, %c0)
          : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      %d = "tcgen05.tmem_stage"(%acc, %c0) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
      %as = "tcgen05.smem_stage"(%a, %c0) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
      %bs = "tcgen05.smem_stage"(%b, %c0) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
      %false = arith.constant false
      // expected-error @+1 {{the ring protocol needs the MMAs in a K-block loop (an scf.for whose body holds them), in the role's body or in its tile loop}}
      "tcgen05.mma"(%d, %as, %bs, %false) {kind = "f16", k_offset = 0 : i64}
          : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
          : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
