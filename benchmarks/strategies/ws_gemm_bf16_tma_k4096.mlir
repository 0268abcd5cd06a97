// A warp-specialized K-loop GEMM fed by TMA through a 4-stage shared-memory ring, all
// synchronization written by hand:
//   C (128 x 256, f32) = A x B^T, A (128 x 4096, bf16) and B (256 x 4096, bf16) row-major
// (both K-contiguous, as in examples/gemm_bf16_tma.mlir).
// Roles (docs/partitions.md): a load warp (0) issues the TMA loads of K block 4i + s into
// stage s (explicit tiles a_s, b_s; the loop steps 4 K blocks), an MMA warp (1) multiplies
// each stage as soon as it is full and releases it, an epilogue warpgroup (4-7) drains the
// accumulator once every MMA has completed. Warps 2 and 3 have no role.
//
// Per stage s, two mbarriers:
//   full_s  (count 1): the load warp's leader arrives with expect_tx of the stage's bytes
//           (16384 + 32768; 9.7.13.15.13), then issues both loads, whose complete_tx
//           completes the phase when both tiles have landed; the MMA warp waits for phase
//           i of iteration i (parity i & 1). Data written by TMA (async proxy) and read by
//           the MMAs (async proxy) is ordered by the phase's completion alone.
//   empty_s (count 1): tcgen05.commit of the MMA warp after the stage's MMAs; the load
//           warp waits, before refilling the stage in iteration i, for the phase of
//           iteration i - 1 (parity (i + 1) & 1; in iteration 0 the phase before the
//           first, which a fresh mbarrier reports complete).
// The producer tail: after its loop the load warp waits once more on each empty_s for
// the phase of the last commit to it (iteration 15: parity 1), so that no commit's
// arrival is in flight to the CTA's shared memory at exit (two commits' arrivals are not
// ordered, 9.7.16.12.1).
// acc_ready (count 1): the MMA warp's last commit; the epilogue waits for phase 0, fences
// after_thread_sync, loads and stores, then wait::ld and fence::before_thread_sync before
// the joining barrier and the dealloc (9.7.16.6.4.4).
//
// Compile with tcgen05-insert-sync{strategy=none} (tests/conftest.py, HAND_SYNCHRONIZED);
// tcgen05-verify-sync checks the roles.
func.func @ws_gemm_bf16_tma_k4096(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %cK = arith.constant 4096 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %true = arith.constant true

  %a0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %a1 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %a2 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %a3 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %b1 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %b2 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %b3 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  %full0 = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %full1 = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %full2 = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %full3 = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %empty0 = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %empty1 = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %empty2 = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %empty3 = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  %acc_ready = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier

  "tcgen05.partitions"() ({
    // Load role: warp 0.
    "tcgen05.role"() ({
      scf.for %k = %c0 to %cK step %c256 {
        %i = arith.divui %k, %c256 : index
        %i1 = arith.addi %i, %c1 : index
        %prev = arith.andi %i1, %c1 : index
        %empty_parity = arith.index_cast %prev : index to i32
        %k1 = arith.addi %k, %c64 : index
        %k2 = arith.addi %k, %c128 : index
        %k3 = arith.addi %k, %c192 : index
        "tcgen05.mbarrier_wait"(%empty0, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full0) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %a0, %full0, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %b0, %full0, %k, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.mbarrier_wait"(%empty1, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full1) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %a1, %full1, %k1, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %b1, %full1, %k1, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.mbarrier_wait"(%empty2, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full2) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %a2, %full2, %k2, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %b2, %full2, %k2, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.mbarrier_wait"(%empty3, %empty_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full3) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %a3, %full3, %k3, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %b3, %full3, %k3, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      // The producer tail: the last commits to empty_0 .. empty_3 (the last iteration
      // is odd: parity 1).
      "tcgen05.mbarrier_wait"(%empty0, %p1) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.mbarrier_wait"(%empty1, %p1) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.mbarrier_wait"(%empty2, %p1) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.mbarrier_wait"(%empty3, %p1) : (!tcgen05.mbarrier, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %k = %c0 to %cK step %c256 {
        %i = arith.divui %k, %c256 : index
        %cur = arith.andi %i, %c1 : index
        %full_parity = arith.index_cast %cur : index to i32
        // The first MMA of the first K block overwrites the accumulator.
        %not_first = arith.cmpi ne, %k, %c0 : index
        "tcgen05.mbarrier_wait"(%full0, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %not_first) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty0) : (!tcgen05.mbarrier) -> ()
        "tcgen05.mbarrier_wait"(%full1, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty1) : (!tcgen05.mbarrier) -> ()
        "tcgen05.mbarrier_wait"(%full2, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%acc, %a2, %b2, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a2, %b2, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a2, %b2, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a2, %b2, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty2) : (!tcgen05.mbarrier) -> ()
        "tcgen05.mbarrier_wait"(%full3, %full_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%acc, %a3, %b3, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a3, %b3, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a3, %b3, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a3, %b3, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty3) : (!tcgen05.mbarrier) -> ()
      }
      "tcgen05.commit"(%acc_ready) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%acc_ready, %p0) : (!tcgen05.mbarrier, i32) -> ()
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
