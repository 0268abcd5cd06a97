// A persistent warp-specialized GEMM, TMA-fed through a 4-stage shared-memory ring, with a
// double-buffered accumulator; all synchronization written by hand (docs/partitions.md):
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
// So the load warp runs up to four K blocks ahead of the MMAs, and the MMAs of tile t + 1
// run while the epilogue drains tile t (warps 2 and 3 have no role).
//
// Shared memory: the A ring [4, 128, 64] and the B ring [4, 256, 64] (128B swizzle,
// K-major: each 64-element K block of a row is one 128-byte row of a stage, what TMA
// writes for the boxes {64, 128} and {64, 256}); a stage of A is 16384 bytes, of B 32768,
// 196608 bytes in all. TMEM: the accumulator [2, 128, 256] f32, stage t mod 2 for tile t
// (tcgen05.tmem_stage), 512 columns.
//
// The counters: K block kb of tile t is the ring's it = 4 t + kb-th use, of stage
// s = it mod 4 and round r = it / 4; tile t uses accumulator stage t mod 2 in round
// u = t / 2. The stage and the parities are computed from them with arith. mbarriers are
// single values, so the program names the stage's mbarriers at each K-block position: a
// tile has as many K blocks as the ring has stages (s = kb), and the tile loop runs over
// pairs of tiles, one per accumulator stage.
//
// mbarriers, per ring stage s (9.7.16.6.4 canonical patterns, 9.7.13.15):
//   full_s  (count 1): mbarrier.arrive.expect_tx of the load thread (49152 bytes: the A
//           and B blocks) and the TMA loads' complete_tx; the MMA warp waits for the
//           phase of round r (parity r & 1). TMA writes and MMA reads are both in the
//           async proxy, ordered by the mbarrier's completion.
//   empty_s (count 1): tcgen05.commit of the MMA warp after the stage's MMAs; the load
//           warp waits before refilling the stage in round r for the phase of round
//           r - 1 (parity (r + 1) & 1; in round 0 the phase before the first, which a
//           fresh mbarrier reports complete).
// per accumulator stage j:
//   acc_full_j  (count 1):   tcgen05.commit of the MMA warp after the tile's last MMA
//           (it tracks every MMA the thread issued); the epilogue waits for round u
//           (parity u & 1) and fences after_thread_sync before its loads (9.7.16.6.4.3).
//   acc_empty_j (count 128): every epilogue thread arrives after tcgen05.wait::ld and
//           fence::before_thread_sync; the MMA warp waits for round u - 1 (parity
//           (u + 1) & 1) and fences after_thread_sync before its first MMA overwrites the
//           stage (9.7.16.6.4.4).
// After the partitions' joining barrier, the kernel's fence::after_thread_sync orders the
// epilogue's last loads before the dealloc tcgen05-plan-tmem adds.
//
// Compile with tcgen05-insert-sync{strategy=none} (keeps this synchronization, adds
// nothing); tcgen05-verify-sync checks it, the roles running concurrently (README,
// "Warp-specialized kernels").
func.func @ws_persistent_gemm_bf16(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %false = arith.constant false

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>
  %full0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %full1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %full2 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %full3 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty2 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty3 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %acc_full0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %acc_full1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %acc_empty0 = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !tcgen05.mbarrier
  %acc_empty1 = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !tcgen05.mbarrier

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the expect_tx and the TMA loads.
    "tcgen05.role"() ({
      scf.for %p = %c0 to %c4 step %c2 {
        // Tile %t0 = %p + 0: columns %n0 .. of C, rows %n0 .. of B.
        %t0 = arith.addi %p, %c0 : index
        %n0 = arith.muli %t0, %c256 : index
        %base0 = arith.muli %t0, %c4 : index
        %it0_0 = arith.addi %base0, %c0 : index
        %s0_0 = arith.remui %it0_0, %c4 : index
        %r0_0 = arith.divui %it0_0, %c4 : index
        %k0_0 = arith.constant 0 : index
        %er0_0 = arith.addi %r0_0, %c1 : index
        %ep0_0 = arith.andi %er0_0, %c1 : index
        %empty_parity0_0 = arith.index_cast %ep0_0 : index to i32
        %as0_0 = "tcgen05.smem_stage"(%a, %s0_0) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_0 = "tcgen05.smem_stage"(%b, %s0_0) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%empty0, %empty_parity0_0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full0) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as0_0, %full0, %k0_0, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs0_0, %full0, %k0_0, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it0_1 = arith.addi %base0, %c1 : index
        %s0_1 = arith.remui %it0_1, %c4 : index
        %r0_1 = arith.divui %it0_1, %c4 : index
        %k0_1 = arith.constant 64 : index
        %er0_1 = arith.addi %r0_1, %c1 : index
        %ep0_1 = arith.andi %er0_1, %c1 : index
        %empty_parity0_1 = arith.index_cast %ep0_1 : index to i32
        %as0_1 = "tcgen05.smem_stage"(%a, %s0_1) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_1 = "tcgen05.smem_stage"(%b, %s0_1) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%empty1, %empty_parity0_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full1) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as0_1, %full1, %k0_1, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs0_1, %full1, %k0_1, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it0_2 = arith.addi %base0, %c2 : index
        %s0_2 = arith.remui %it0_2, %c4 : index
        %r0_2 = arith.divui %it0_2, %c4 : index
        %k0_2 = arith.constant 128 : index
        %er0_2 = arith.addi %r0_2, %c1 : index
        %ep0_2 = arith.andi %er0_2, %c1 : index
        %empty_parity0_2 = arith.index_cast %ep0_2 : index to i32
        %as0_2 = "tcgen05.smem_stage"(%a, %s0_2) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_2 = "tcgen05.smem_stage"(%b, %s0_2) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%empty2, %empty_parity0_2) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full2) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as0_2, %full2, %k0_2, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs0_2, %full2, %k0_2, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it0_3 = arith.addi %base0, %c3 : index
        %s0_3 = arith.remui %it0_3, %c4 : index
        %r0_3 = arith.divui %it0_3, %c4 : index
        %k0_3 = arith.constant 192 : index
        %er0_3 = arith.addi %r0_3, %c1 : index
        %ep0_3 = arith.andi %er0_3, %c1 : index
        %empty_parity0_3 = arith.index_cast %ep0_3 : index to i32
        %as0_3 = "tcgen05.smem_stage"(%a, %s0_3) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_3 = "tcgen05.smem_stage"(%b, %s0_3) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%empty3, %empty_parity0_3) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full3) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as0_3, %full3, %k0_3, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs0_3, %full3, %k0_3, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        // Tile %t1 = %p + 1: columns %n1 .. of C, rows %n1 .. of B.
        %t1 = arith.addi %p, %c1 : index
        %n1 = arith.muli %t1, %c256 : index
        %base1 = arith.muli %t1, %c4 : index
        %it1_0 = arith.addi %base1, %c0 : index
        %s1_0 = arith.remui %it1_0, %c4 : index
        %r1_0 = arith.divui %it1_0, %c4 : index
        %k1_0 = arith.constant 0 : index
        %er1_0 = arith.addi %r1_0, %c1 : index
        %ep1_0 = arith.andi %er1_0, %c1 : index
        %empty_parity1_0 = arith.index_cast %ep1_0 : index to i32
        %as1_0 = "tcgen05.smem_stage"(%a, %s1_0) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_0 = "tcgen05.smem_stage"(%b, %s1_0) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%empty0, %empty_parity1_0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full0) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as1_0, %full0, %k1_0, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs1_0, %full0, %k1_0, %n1)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it1_1 = arith.addi %base1, %c1 : index
        %s1_1 = arith.remui %it1_1, %c4 : index
        %r1_1 = arith.divui %it1_1, %c4 : index
        %k1_1 = arith.constant 64 : index
        %er1_1 = arith.addi %r1_1, %c1 : index
        %ep1_1 = arith.andi %er1_1, %c1 : index
        %empty_parity1_1 = arith.index_cast %ep1_1 : index to i32
        %as1_1 = "tcgen05.smem_stage"(%a, %s1_1) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_1 = "tcgen05.smem_stage"(%b, %s1_1) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%empty1, %empty_parity1_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full1) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as1_1, %full1, %k1_1, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs1_1, %full1, %k1_1, %n1)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it1_2 = arith.addi %base1, %c2 : index
        %s1_2 = arith.remui %it1_2, %c4 : index
        %r1_2 = arith.divui %it1_2, %c4 : index
        %k1_2 = arith.constant 128 : index
        %er1_2 = arith.addi %r1_2, %c1 : index
        %ep1_2 = arith.andi %er1_2, %c1 : index
        %empty_parity1_2 = arith.index_cast %ep1_2 : index to i32
        %as1_2 = "tcgen05.smem_stage"(%a, %s1_2) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_2 = "tcgen05.smem_stage"(%b, %s1_2) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%empty2, %empty_parity1_2) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full2) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as1_2, %full2, %k1_2, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs1_2, %full2, %k1_2, %n1)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it1_3 = arith.addi %base1, %c3 : index
        %s1_3 = arith.remui %it1_3, %c4 : index
        %r1_3 = arith.divui %it1_3, %c4 : index
        %k1_3 = arith.constant 192 : index
        %er1_3 = arith.addi %r1_3, %c1 : index
        %ep1_3 = arith.andi %er1_3, %c1 : index
        %empty_parity1_3 = arith.index_cast %ep1_3 : index to i32
        %as1_3 = "tcgen05.smem_stage"(%a, %s1_3) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_3 = "tcgen05.smem_stage"(%b, %s1_3) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%empty3, %empty_parity1_3) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full3) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as1_3, %full3, %k1_3, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs1_3, %full3, %k1_3, %n1)
            : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1; one thread issues the MMAs and commits.
    "tcgen05.role"() ({
      scf.for %p = %c0 to %c4 step %c2 {
        // Tile %t0 = %p + 0 into accumulator stage %t0 mod 2 = 0, round %t0 / 2.
        %t0 = arith.addi %p, %c0 : index
        %base0 = arith.muli %t0, %c4 : index
        %acs0 = arith.remui %t0, %c2 : index
        %u0 = arith.divui %t0, %c2 : index
        %au0 = arith.addi %u0, %c1 : index
        %aep0 = arith.andi %au0, %c1 : index
        %acc_empty_parity0 = arith.index_cast %aep0 : index to i32
        %d0 = "tcgen05.tmem_stage"(%acc, %acs0) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        "tcgen05.mbarrier_wait"(%acc_empty0, %acc_empty_parity0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %it0_0 = arith.addi %base0, %c0 : index
        %s0_0 = arith.remui %it0_0, %c4 : index
        %r0_0 = arith.divui %it0_0, %c4 : index
        %fp0_0 = arith.andi %r0_0, %c1 : index
        %full_parity0_0 = arith.index_cast %fp0_0 : index to i32
        %as0_0 = "tcgen05.smem_stage"(%a, %s0_0) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_0 = "tcgen05.smem_stage"(%b, %s0_0) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full0, %full_parity0_0) : (!tcgen05.mbarrier, i32) -> ()
        // The first MMA of a tile overwrites its accumulator stage.
        "tcgen05.mma"(%d0, %as0_0, %bs0_0, %false) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_0, %bs0_0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_0, %bs0_0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_0, %bs0_0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty0) : (!tcgen05.mbarrier) -> ()
        %it0_1 = arith.addi %base0, %c1 : index
        %s0_1 = arith.remui %it0_1, %c4 : index
        %r0_1 = arith.divui %it0_1, %c4 : index
        %fp0_1 = arith.andi %r0_1, %c1 : index
        %full_parity0_1 = arith.index_cast %fp0_1 : index to i32
        %as0_1 = "tcgen05.smem_stage"(%a, %s0_1) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_1 = "tcgen05.smem_stage"(%b, %s0_1) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full1, %full_parity0_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d0, %as0_1, %bs0_1, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_1, %bs0_1, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_1, %bs0_1, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_1, %bs0_1, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty1) : (!tcgen05.mbarrier) -> ()
        %it0_2 = arith.addi %base0, %c2 : index
        %s0_2 = arith.remui %it0_2, %c4 : index
        %r0_2 = arith.divui %it0_2, %c4 : index
        %fp0_2 = arith.andi %r0_2, %c1 : index
        %full_parity0_2 = arith.index_cast %fp0_2 : index to i32
        %as0_2 = "tcgen05.smem_stage"(%a, %s0_2) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_2 = "tcgen05.smem_stage"(%b, %s0_2) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full2, %full_parity0_2) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d0, %as0_2, %bs0_2, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_2, %bs0_2, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_2, %bs0_2, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_2, %bs0_2, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty2) : (!tcgen05.mbarrier) -> ()
        %it0_3 = arith.addi %base0, %c3 : index
        %s0_3 = arith.remui %it0_3, %c4 : index
        %r0_3 = arith.divui %it0_3, %c4 : index
        %fp0_3 = arith.andi %r0_3, %c1 : index
        %full_parity0_3 = arith.index_cast %fp0_3 : index to i32
        %as0_3 = "tcgen05.smem_stage"(%a, %s0_3) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_3 = "tcgen05.smem_stage"(%b, %s0_3) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full3, %full_parity0_3) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d0, %as0_3, %bs0_3, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_3, %bs0_3, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_3, %bs0_3, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_3, %bs0_3, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty3) : (!tcgen05.mbarrier) -> ()
        "tcgen05.commit"(%acc_full0) : (!tcgen05.mbarrier) -> ()
        // Tile %t1 = %p + 1 into accumulator stage %t1 mod 2 = 1, round %t1 / 2.
        %t1 = arith.addi %p, %c1 : index
        %base1 = arith.muli %t1, %c4 : index
        %acs1 = arith.remui %t1, %c2 : index
        %u1 = arith.divui %t1, %c2 : index
        %au1 = arith.addi %u1, %c1 : index
        %aep1 = arith.andi %au1, %c1 : index
        %acc_empty_parity1 = arith.index_cast %aep1 : index to i32
        %d1 = "tcgen05.tmem_stage"(%acc, %acs1) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        "tcgen05.mbarrier_wait"(%acc_empty1, %acc_empty_parity1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %it1_0 = arith.addi %base1, %c0 : index
        %s1_0 = arith.remui %it1_0, %c4 : index
        %r1_0 = arith.divui %it1_0, %c4 : index
        %fp1_0 = arith.andi %r1_0, %c1 : index
        %full_parity1_0 = arith.index_cast %fp1_0 : index to i32
        %as1_0 = "tcgen05.smem_stage"(%a, %s1_0) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_0 = "tcgen05.smem_stage"(%b, %s1_0) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full0, %full_parity1_0) : (!tcgen05.mbarrier, i32) -> ()
        // The first MMA of a tile overwrites its accumulator stage.
        "tcgen05.mma"(%d1, %as1_0, %bs1_0, %false) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_0, %bs1_0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_0, %bs1_0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_0, %bs1_0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty0) : (!tcgen05.mbarrier) -> ()
        %it1_1 = arith.addi %base1, %c1 : index
        %s1_1 = arith.remui %it1_1, %c4 : index
        %r1_1 = arith.divui %it1_1, %c4 : index
        %fp1_1 = arith.andi %r1_1, %c1 : index
        %full_parity1_1 = arith.index_cast %fp1_1 : index to i32
        %as1_1 = "tcgen05.smem_stage"(%a, %s1_1) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_1 = "tcgen05.smem_stage"(%b, %s1_1) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full1, %full_parity1_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d1, %as1_1, %bs1_1, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_1, %bs1_1, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_1, %bs1_1, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_1, %bs1_1, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty1) : (!tcgen05.mbarrier) -> ()
        %it1_2 = arith.addi %base1, %c2 : index
        %s1_2 = arith.remui %it1_2, %c4 : index
        %r1_2 = arith.divui %it1_2, %c4 : index
        %fp1_2 = arith.andi %r1_2, %c1 : index
        %full_parity1_2 = arith.index_cast %fp1_2 : index to i32
        %as1_2 = "tcgen05.smem_stage"(%a, %s1_2) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_2 = "tcgen05.smem_stage"(%b, %s1_2) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full2, %full_parity1_2) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d1, %as1_2, %bs1_2, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_2, %bs1_2, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_2, %bs1_2, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_2, %bs1_2, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty2) : (!tcgen05.mbarrier) -> ()
        %it1_3 = arith.addi %base1, %c3 : index
        %s1_3 = arith.remui %it1_3, %c4 : index
        %r1_3 = arith.divui %it1_3, %c4 : index
        %fp1_3 = arith.andi %r1_3, %c1 : index
        %full_parity1_3 = arith.index_cast %fp1_3 : index to i32
        %as1_3 = "tcgen05.smem_stage"(%a, %s1_3) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_3 = "tcgen05.smem_stage"(%b, %s1_3) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full3, %full_parity1_3) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d1, %as1_3, %bs1_3, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_3, %bs1_3, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_3, %bs1_3, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_3, %bs1_3, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty3) : (!tcgen05.mbarrier) -> ()
        "tcgen05.commit"(%acc_full1) : (!tcgen05.mbarrier) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %p = %c0 to %c4 step %c2 {
        // Tile %t0 = %p + 0 from accumulator stage %t0 mod 2 = 0, round %t0 / 2.
        %t0 = arith.addi %p, %c0 : index
        %n0 = arith.muli %t0, %c256 : index
        %acs0 = arith.remui %t0, %c2 : index
        %u0 = arith.divui %t0, %c2 : index
        %afp0 = arith.andi %u0, %c1 : index
        %acc_full_parity0 = arith.index_cast %afp0 : index to i32
        %d0 = "tcgen05.tmem_stage"(%acc, %acs0) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        "tcgen05.mbarrier_wait"(%acc_full0, %acc_full_parity0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d0, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n0, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%acc_empty0) : (!tcgen05.mbarrier) -> ()
        // Tile %t1 = %p + 1 from accumulator stage %t1 mod 2 = 1, round %t1 / 2.
        %t1 = arith.addi %p, %c1 : index
        %n1 = arith.muli %t1, %c256 : index
        %acs1 = arith.remui %t1, %c2 : index
        %u1 = arith.divui %t1, %c2 : index
        %afp1 = arith.andi %u1, %c1 : index
        %acc_full_parity1 = arith.index_cast %afp1 : index to i32
        %d1 = "tcgen05.tmem_stage"(%acc, %acs1) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        "tcgen05.mbarrier_wait"(%acc_full1, %acc_full_parity1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d1, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n1, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%acc_empty1) : (!tcgen05.mbarrier) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
