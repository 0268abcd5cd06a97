// The persistent warp-specialized GEMM of examples/ws_persistent_gemm_bf16.mlir with all
// its synchronization written by hand, in loops over mbarrier rings (docs/partitions.md):
//   C (128 x 1024, f32) = A (128 x 256, bf16) x B^T, B (1024 x 256, bf16), all row-major
// One CTA computes the four 128 x 256 tiles of C (tile t: columns 256 t ..), K = 256 in
// four K blocks of 64. Three roles run at once:
//   load     (warp 0):    for each tile and K block, waits until the ring stage is empty,
//                         announces its bytes on the stage's full mbarrier and issues the
//                         TMA loads of the A and B blocks into that stage;
//   mma      (warp 1):    for each tile, waits until its accumulator stage is drained, then
//                         for each K block waits until the ring stage is full, issues the
//                         four K = 16 MMAs and releases the stage (commit to its empty
//                         mbarrier); after the tile's last K block, commits to the
//                         accumulator stage's full mbarrier;
//   epilogue (warps 4-7): for each tile, waits until its accumulator stage is full, loads
//                         it (tcgen05.ld) and stores C, then releases the stage.
//
// The counters: K block kb of tile t is the ring's it = 4 t + kb-th use, of stage
// s = it mod 4 and round r = it / 4; tile t uses accumulator stage j = t mod 2 in round
// u = t / 2. Each ring of mbarriers (alloc_mbarrier {stages = S}) has one mbarrier per
// stage, picked with tcgen05.mbarrier_stage at the stage's index, so the loops are
// written once (no unrolling by the ring depth):
//   full   [4] (count 1):   the load thread's expect_tx (49152 bytes: the A and B blocks)
//                           and the TMA loads' complete_tx; the MMA warp waits for
//                           parity r & 1 (9.7.13.15; TMA writes and MMA reads are both in
//                           the async proxy: no proxy fence, 9.7.16.6.5).
//   empty  [4] (count 1):   the MMA warp's tcgen05.commit after the stage's MMAs; the load
//                           warp waits for parity (r + 1) & 1 (in round 0 the phase before
//                           the first, which a fresh mbarrier reports complete).
//   acc_full  [2] (count 1):   commit after the tile's last MMA; the epilogue waits for
//                           parity u & 1 and fences after_thread_sync (9.7.16.6.4.3).
//   acc_empty [2] (count 128): every epilogue thread arrives after tcgen05.wait::ld and
//                           fence::before_thread_sync; the MMA warp waits for parity
//                           (u + 1) & 1 and fences after_thread_sync (9.7.16.6.4.4).
// The producer tail: after its loops the load warp waits once more on each empty_s for
// the phase of the last commit to it (16 uses of 4 stages: 4 commits each, the last in
// phase 3, parity 1), so that no commit's arrival is in flight to the CTA's shared
// memory at exit (two commits' arrivals are not ordered, 9.7.16.12.1).
// After the partitions' joining barrier, fence::after_thread_sync orders the epilogue's
// last loads before the dealloc tcgen05-plan-tmem adds.
//
// Compiled with tcgen05-insert-sync{strategy=none}; tests/test_ws_persistent_gemm.py.
func.func @ws_persistent_gemm_bf16(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
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
