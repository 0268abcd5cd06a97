// tcgen05-insert-sync{ring-stages=N}: the rings the TMA loads fill are made N stages deep,
// each stage view given the stage the pass counts (use counter mod N), and the mbarrier
// rings of the protocol have N stages. Expected by hand: with N = 2 the A and B rings are
// [2, 128, 64] and [2, 256, 64], full and empty have 2 stages, the stage is it mod 2 and
// the round it / 2. A stage view the pass cannot reach (outside the block of the loads and
// of the MMAs) is refused, located. The option's older spelling ring_stages means the same.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{ring-stages=2},tcgen05-verify-sync' --split-input-file --verify-diagnostics | FileCheck %s
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{ring_stages=2},tcgen05-verify-sync' --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not tcgen05-opt %s -p 'tcgen05-insert-sync{ring-stages=0}' --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tcgen05-opt %s -p 'tcgen05-insert-sync{ring_stages=0}' --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tcgen05-opt %s -p 'tcgen05-insert-sync{ring-stage=2}' --split-input-file 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not tcgen05-opt %s -p 'tcgen05-insert-sync{ring-stages=aut}' --split-input-file 2>&1 | FileCheck %s --check-prefix=VALUE

// BAD: pass 'tcgen05-insert-sync' option 'ring-stages' expects kernel, auto or a number of stages from 1 to 256, got '0'
// NAME: pass 'tcgen05-insert-sync' has no option 'ring-stage' (options: strategy, report, ring-stages); did you mean 'ring-stages'?
// VALUE: pass 'tcgen05-insert-sync' option 'ring-stages' expects kernel, auto or a number of stages from 1 to 256, got 'aut'; did you mean 'auto'?

// CHECK-LABEL: func.func @two_stages(
// CHECK: %[[FULL:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64}
// CHECK-NEXT: %[[EMPTY:.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64}
// CHECK: %[[A:.+]] = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
// CHECK-NEXT: %[[B:.+]] = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 256, 64], bf16, "K", "128B">
// CHECK: scf.for %[[T:[^ ]+]] =
// CHECK: scf.for %[[KB:[^ ]+]] =
// CHECK: %[[T4:.+]] = arith.muli %[[T]], %c4{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[IT:.+]] = arith.addi %[[T4]], %[[KB]] : index
// CHECK-NEXT: %[[S:.+]] = arith.remui %[[IT]], %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[AS:.+]] = "tcgen05.smem_stage"(%[[A]], %[[S]])
// CHECK: %[[BS:.+]] = "tcgen05.smem_stage"(%[[B]], %[[S2:.+]])
// The protocol's own stage and round of the same use, for the waits.
// CHECK: %[[PS:.+]] = arith.remui %{{.+}}, %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[PR:.+]] = arith.divui %{{.+}}, %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: "tcgen05.mbarrier_stage"(%[[FULL]], %[[PS]])
// CHECK-NEXT: "tcgen05.mbarrier_stage"(%[[EMPTY]], %[[PS]])
func.func @two_stages(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
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

// The MMA role takes its A stage in the tile loop (one K block per tile).
func.func @stage_view_outside_the_k_block(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
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
        %base = arith.muli %t, %c1 : index
        scf.for %kb = %c0 to %c1 step %c1 {
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
        %base = arith.muli %t, %c1 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        %st = arith.remui %t, %c4 : index
        // expected-error @+1 {{tcgen05-insert-sync{ring-stages=2}: this stage of smem tile 0 is taken outside the block of its TMA loads and of its MMAs, where the pass cannot give it the stage of a ring of 2}}
        %as = "tcgen05.smem_stage"(%a, %st) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        scf.for %kb = %c0 to %c1 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
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
