// tcgen05-verify-sync on mbarrier rings (alloc_mbarrier {stages}, mbarrier_stage): a stage
// whose index evaluates is an mbarrier of its own. The hand-synchronized persistent GEMM in
// ring form (tests/kernels/ws_persistent_gemm_bf16_hand.mlir) is ordered; the same kernel
// whose MMA role waits on a stage named by a kernel argument cannot be followed.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-verify-sync' --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @ring_protocol_ordered
func.func @ring_protocol_ordered(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
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
  %p1 = arith.constant 1 : i32
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
  %acc_full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %acc_empty = "tcgen05.alloc_mbarrier"() {count = 128 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the expect_tx and the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %r = arith.divui %it, %c4 : index
          %er = arith.addi %r, %c1 : index
          %ep = arith.andi %er, %c1 : index
          %empty_parity = arith.index_cast %ep : index to i32
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
          %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
          "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
          "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
          "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        }
      }
      // The producer tail: the last commit to each empty_s (round 3, parity 1).
      scf.for %s = %c0 to %c4 step %c1 {
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%empty_s, %p1) : (!tcgen05.mbarrier, i32) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %u = arith.divui %t, %c2 : index
        %au = arith.addi %u, %c1 : index
        %aep = arith.andi %au, %c1 : index
        %acc_empty_parity = arith.index_cast %aep : index to i32
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        %acc_empty_j = "tcgen05.mbarrier_stage"(%acc_empty, %j) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %acc_full_j = "tcgen05.mbarrier_stage"(%acc_full, %j) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%acc_empty_j, %acc_empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %r = arith.divui %it, %c4 : index
          %fp = arith.andi %r, %c1 : index
          %full_parity = arith.index_cast %fp : index to i32
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
          %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
          "tcgen05.mbarrier_wait"(%full_s, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
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
          "tcgen05.commit"(%empty_s) : (!tcgen05.mbarrier) -> ()
        }
        "tcgen05.commit"(%acc_full_j) : (!tcgen05.mbarrier) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %u = arith.divui %t, %c2 : index
        %afp = arith.andi %u, %c1 : index
        %acc_full_parity = arith.index_cast %afp : index to i32
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        %acc_full_j = "tcgen05.mbarrier_stage"(%acc_full, %j) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %acc_empty_j = "tcgen05.mbarrier_stage"(%acc_empty, %j) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%acc_full_j, %acc_full_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%acc_empty_j) : (!tcgen05.mbarrier) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}

// -----

func.func @ring_stage_unknown(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>, %x: index,
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
  %p1 = arith.constant 1 : i32
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 4 : i64} : () -> !tcgen05.mbarrier
  %acc_full = "tcgen05.alloc_mbarrier"() {count = 1 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier
  %acc_empty = "tcgen05.alloc_mbarrier"() {count = 128 : i64, stages = 2 : i64} : () -> !tcgen05.mbarrier

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the expect_tx and the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %r = arith.divui %it, %c4 : index
          %er = arith.addi %r, %c1 : index
          %ep = arith.andi %er, %c1 : index
          %empty_parity = arith.index_cast %ep : index to i32
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
          %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
          "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
          "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
          "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        }
      }
      // The producer tail: the last commit to each empty_s (round 3, parity 1).
      scf.for %s = %c0 to %c4 step %c1 {
        %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%empty_s, %p1) : (!tcgen05.mbarrier, i32) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %u = arith.divui %t, %c2 : index
        %au = arith.addi %u, %c1 : index
        %aep = arith.andi %au, %c1 : index
        %acc_empty_parity = arith.index_cast %aep : index to i32
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        %acc_empty_j = "tcgen05.mbarrier_stage"(%acc_empty, %j) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %acc_full_j = "tcgen05.mbarrier_stage"(%acc_full, %j) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%acc_empty_j, %acc_empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %r = arith.divui %it, %c4 : index
          %fp = arith.andi %r, %c1 : index
          %full_parity = arith.index_cast %fp : index to i32
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          %full_s = "tcgen05.mbarrier_stage"(%full, %x) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
          %empty_s = "tcgen05.mbarrier_stage"(%empty, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
          // expected-error @+1 {{tcgen05-verify-sync cannot tell which stage of an mbarrier ring this op's mbarrier is: its tcgen05.mbarrier_stage index does not evaluate here}}
          "tcgen05.mbarrier_wait"(%full_s, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
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
          "tcgen05.commit"(%empty_s) : (!tcgen05.mbarrier) -> ()
        }
        "tcgen05.commit"(%acc_full_j) : (!tcgen05.mbarrier) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %u = arith.divui %t, %c2 : index
        %afp = arith.andi %u, %c1 : index
        %acc_full_parity = arith.index_cast %afp : index to i32
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        %acc_full_j = "tcgen05.mbarrier_stage"(%acc_full, %j) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        %acc_empty_j = "tcgen05.mbarrier_stage"(%acc_empty, %j) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
        "tcgen05.mbarrier_wait"(%acc_full_j, %acc_full_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%acc_empty_j) : (!tcgen05.mbarrier) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
