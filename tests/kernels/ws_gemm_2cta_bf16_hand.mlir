// A warp-specialized, TMA-fed GEMM on a CTA pair (cta_group::2), all synchronization
// written by hand (docs/cta-pairs.md, "Warp roles and TMA in a CTA pair"):
//   C (256 x 512, f32) = A (256 x 256, bf16) x B^T, B (512 x 256, bf16), all row-major
// The pair computes the four 256 x 128 tiles of C (tile t: columns 128 t ..) with
// M = 256 MMAs (Layout A, 9.7.16.10.5.1): the CTA of rank r (%cluster_ctarank & 1) holds
// rows 128 r .. 128 r + 127 of A and of each tile of C, and rows 64 r .. 64 r + 63 of the
// tile's 128 rows of B (N/2), in its own shared and tensor memory at the same offsets.
// K = 256 in four K blocks of 64 through a 2-stage shared-memory ring. Each CTA runs
// three roles at once:
//   load     (warp 0):    for each tile and K block, waits until the ring stage is empty
//                         (in its own CTA), then the even CTA's thread announces the bytes
//                         of both CTAs' loads on the stage's full mbarrier, and each CTA's
//                         thread issues the TMA loads of its own slices of the A and B
//                         blocks into its own stage; both complete on the even CTA's full
//                         mbarrier (cp.async.bulk.tensor ... .cta_group::2);
//   mma      (warp 1):    in the even CTA, for each tile, waits until both CTAs drained
//                         its accumulator stage, then for each K block waits until the
//                         stage is full in both CTAs, issues the four K = 16 MMAs for the
//                         pair (tcgen05.mma.cta_group::2) and releases the stage in both
//                         CTAs (tcgen05.commit multicast 0b11 to the stage's empty
//                         mbarriers); after the tile's last K block it commits to the
//                         accumulator stage's full mbarrier of both CTAs. (In the odd CTA
//                         the role's waits, MMAs and commits do nothing: the lowering
//                         issues them in the even CTA only.)
//   epilogue (warps 4-7): in each CTA, for each tile, waits until its accumulator stage is
//                         full, loads its own 128 TMEM lanes and stores its 128 rows of C,
//                         then arrives on the even CTA's accumulator empty mbarrier.
//
// Shared memory, per CTA: the A ring [2, 128, 64] and the B ring [2, 64, 64] (128B
// swizzle, K-major: what TMA writes for the boxes {64, 128} and {64, 64}); a stage of A is
// 16384 bytes, of B 8192. TMEM, per CTA: the accumulator [2, 256, 128] f32 (its 128 rows
// of each stage), stage t mod 2 for tile t, 256 columns.
//
// The counters: K block kb of tile t is the ring's it = 4 t + kb-th use, of stage
// s = it mod 2 = kb mod 2 and round r = it / 2; tile t uses accumulator stage t mod 2 in
// round u = t / 2. The tile loop runs over pairs of tiles, one per accumulator stage.
//
// mbarriers (the same offsets in both CTAs; 9.7.16.6.4 canonical patterns, 9.7.13.15):
//   full_s  (count 1), used in the even CTA only: the even CTA's mbarrier_expect_tx (its
//           one arrival, and 2 x 24576 bytes: both CTAs' A and B blocks) and the four TMA
//           loads' complete_tx (each CTA's two, .cta_group::2 with the even CTA's
//           mbarrier); the MMA warp waits for round r (parity r & 1).
//   empty_s (count 1), in both CTAs: tcgen05.commit multicast 0b11 of the MMA warp after
//           the stage's MMAs (9.7.16.12.1) arrives in both; each CTA's load warp waits for
//           round r - 1 (parity (r + 1) & 1) before refilling its half of the stage.
//   acc_full_j  (count 1), in both CTAs: tcgen05.commit multicast 0b11 after the tile's
//           last MMA; each CTA's epilogue waits for round u (parity u & 1) and fences
//           after_thread_sync before its loads (9.7.16.6.4.3).
//   acc_empty_j (count 256), used in the even CTA only: every epilogue thread of both
//           CTAs arrives after tcgen05.wait::ld and fence::before_thread_sync
//           (mbarrier_arrive with cta = "even": mapa + mbarrier.arrive.release.cluster);
//           the MMA warp waits for round u - 1 (parity (u + 1) & 1) and fences
//           after_thread_sync before its first MMA overwrites the stage (9.7.16.6.4.4).
// The producer tail, in both CTAs: after its loop each CTA's load warp waits once more on
// its own empty_0 and empty_1 for the phase of the last commit to it (16 uses of 2
// stages: 8 commits each, the last in phase 7, parity 1). The multicast commits' arrivals
// are not ordered with the others (9.7.16.12.1): without these waits the odd CTA could
// pass the final cluster barrier and exit while the last ones to its copies are in flight.
// After the partitions' joining barrier (a cluster barrier in a pair), the kernel's
// fence::after_thread_sync orders the epilogue's last loads before the dealloc that
// tcgen05-plan-tmem adds (one warp per CTA).
//
// Compile with tcgen05-insert-sync{strategy=none}: tcgen05-verify-sync (partitions=check)
// runs each role once per CTA of the pair and checks the protocol above; the simulator
// runs the cluster of 2 (docs/cta-pairs.md).
func.func @ws_gemm_2cta_bf16(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %false = arith.constant false
  %p1 = arith.constant 1 : i32

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 256, 128], f32>
  %full0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %full1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %acc_full0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %acc_full1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %acc_empty0 = "tcgen05.alloc_mbarrier"() {count = 256 : i64} : () -> !tcgen05.mbarrier
  %acc_empty1 = "tcgen05.alloc_mbarrier"() {count = 256 : i64} : () -> !tcgen05.mbarrier

  "tcgen05.partitions"() ({
    // Load role: warp 0 of each CTA; one thread issues the expect_tx (the even CTA's) and
    // the TMA loads (each CTA's own slices).
    "tcgen05.role"() ({
      scf.for %p = %c0 to %c4 step %c2 {
        // Tile %t0 = %p + 0: columns %n0 .. of C, rows %n0 .. of B.
        %t0 = arith.addi %p, %c0 : index
        %n0 = arith.muli %t0, %c128 : index
        %base0 = arith.muli %t0, %c4 : index
        %it0_0 = arith.addi %base0, %c0 : index
        %r0_0 = arith.divui %it0_0, %c2 : index
        %er0_0 = arith.addi %r0_0, %c1 : index
        %ep0_0 = arith.andi %er0_0, %c1 : index
        %empty_parity0_0 = arith.index_cast %ep0_0 : index to i32
        %s0_0 = arith.constant 0 : index
        %as0_0 = "tcgen05.smem_stage"(%a, %s0_0) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_0 = "tcgen05.smem_stage"(%b, %s0_0) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %k0_0 = arith.constant 0 : index
        "tcgen05.mbarrier_wait"(%empty0, %empty_parity0_0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full0) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as0_0, %full0, %k0_0, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs0_0, %full0, %k0_0, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it0_1 = arith.addi %base0, %c1 : index
        %r0_1 = arith.divui %it0_1, %c2 : index
        %er0_1 = arith.addi %r0_1, %c1 : index
        %ep0_1 = arith.andi %er0_1, %c1 : index
        %empty_parity0_1 = arith.index_cast %ep0_1 : index to i32
        %s0_1 = arith.constant 1 : index
        %as0_1 = "tcgen05.smem_stage"(%a, %s0_1) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_1 = "tcgen05.smem_stage"(%b, %s0_1) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %k0_1 = arith.constant 64 : index
        "tcgen05.mbarrier_wait"(%empty1, %empty_parity0_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full1) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as0_1, %full1, %k0_1, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs0_1, %full1, %k0_1, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it0_2 = arith.addi %base0, %c2 : index
        %r0_2 = arith.divui %it0_2, %c2 : index
        %er0_2 = arith.addi %r0_2, %c1 : index
        %ep0_2 = arith.andi %er0_2, %c1 : index
        %empty_parity0_2 = arith.index_cast %ep0_2 : index to i32
        %s0_2 = arith.constant 0 : index
        %as0_2 = "tcgen05.smem_stage"(%a, %s0_2) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_2 = "tcgen05.smem_stage"(%b, %s0_2) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %k0_2 = arith.constant 128 : index
        "tcgen05.mbarrier_wait"(%empty0, %empty_parity0_2) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full0) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as0_2, %full0, %k0_2, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs0_2, %full0, %k0_2, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %c3_0 = arith.constant 3 : index
        %it0_3 = arith.addi %base0, %c3_0 : index
        %r0_3 = arith.divui %it0_3, %c2 : index
        %er0_3 = arith.addi %r0_3, %c1 : index
        %ep0_3 = arith.andi %er0_3, %c1 : index
        %empty_parity0_3 = arith.index_cast %ep0_3 : index to i32
        %s0_3 = arith.constant 1 : index
        %as0_3 = "tcgen05.smem_stage"(%a, %s0_3) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_3 = "tcgen05.smem_stage"(%b, %s0_3) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %k0_3 = arith.constant 192 : index
        "tcgen05.mbarrier_wait"(%empty1, %empty_parity0_3) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full1) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as0_3, %full1, %k0_3, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs0_3, %full1, %k0_3, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        // Tile %t1 = %p + 1: columns %n1 .. of C, rows %n1 .. of B.
        %t1 = arith.addi %p, %c1 : index
        %n1 = arith.muli %t1, %c128 : index
        %base1 = arith.muli %t1, %c4 : index
        %it1_0 = arith.addi %base1, %c0 : index
        %r1_0 = arith.divui %it1_0, %c2 : index
        %er1_0 = arith.addi %r1_0, %c1 : index
        %ep1_0 = arith.andi %er1_0, %c1 : index
        %empty_parity1_0 = arith.index_cast %ep1_0 : index to i32
        %s1_0 = arith.constant 0 : index
        %as1_0 = "tcgen05.smem_stage"(%a, %s1_0) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_0 = "tcgen05.smem_stage"(%b, %s1_0) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %k1_0 = arith.constant 0 : index
        "tcgen05.mbarrier_wait"(%empty0, %empty_parity1_0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full0) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as1_0, %full0, %k1_0, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs1_0, %full0, %k1_0, %n1)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it1_1 = arith.addi %base1, %c1 : index
        %r1_1 = arith.divui %it1_1, %c2 : index
        %er1_1 = arith.addi %r1_1, %c1 : index
        %ep1_1 = arith.andi %er1_1, %c1 : index
        %empty_parity1_1 = arith.index_cast %ep1_1 : index to i32
        %s1_1 = arith.constant 1 : index
        %as1_1 = "tcgen05.smem_stage"(%a, %s1_1) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_1 = "tcgen05.smem_stage"(%b, %s1_1) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %k1_1 = arith.constant 64 : index
        "tcgen05.mbarrier_wait"(%empty1, %empty_parity1_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full1) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as1_1, %full1, %k1_1, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs1_1, %full1, %k1_1, %n1)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %it1_2 = arith.addi %base1, %c2 : index
        %r1_2 = arith.divui %it1_2, %c2 : index
        %er1_2 = arith.addi %r1_2, %c1 : index
        %ep1_2 = arith.andi %er1_2, %c1 : index
        %empty_parity1_2 = arith.index_cast %ep1_2 : index to i32
        %s1_2 = arith.constant 0 : index
        %as1_2 = "tcgen05.smem_stage"(%a, %s1_2) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_2 = "tcgen05.smem_stage"(%b, %s1_2) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %k1_2 = arith.constant 128 : index
        "tcgen05.mbarrier_wait"(%empty0, %empty_parity1_2) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full0) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as1_2, %full0, %k1_2, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs1_2, %full0, %k1_2, %n1)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        %c3_1 = arith.constant 3 : index
        %it1_3 = arith.addi %base1, %c3_1 : index
        %r1_3 = arith.divui %it1_3, %c2 : index
        %er1_3 = arith.addi %r1_3, %c1 : index
        %ep1_3 = arith.andi %er1_3, %c1 : index
        %empty_parity1_3 = arith.index_cast %ep1_3 : index to i32
        %s1_3 = arith.constant 1 : index
        %as1_3 = "tcgen05.smem_stage"(%a, %s1_3) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_3 = "tcgen05.smem_stage"(%b, %s1_3) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %k1_3 = arith.constant 192 : index
        "tcgen05.mbarrier_wait"(%empty1, %empty_parity1_3) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full1) : (!tcgen05.mbarrier) -> ()
        "tcgen05.tma_load"(%tmA, %as1_3, %full1, %k1_3, %c0)
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs1_3, %full1, %k1_3, %n1)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      }
      // The producer tail: the last commit to each CTA's own empty_s (round 7, parity 1).
      "tcgen05.mbarrier_wait"(%empty0, %p1) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.mbarrier_wait"(%empty1, %p1) : (!tcgen05.mbarrier, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1; its first thread in the even CTA issues the pair's MMAs and commits.
    "tcgen05.role"() ({
      scf.for %p = %c0 to %c4 step %c2 {
        // Tile %t0 = %p + 0: columns %n0 .. of C, rows %n0 .. of B.
        %t0 = arith.addi %p, %c0 : index
        %n0 = arith.muli %t0, %c128 : index
        %base0 = arith.muli %t0, %c4 : index
        %acs0 = arith.constant 0 : index
        %u0 = arith.divui %t0, %c2 : index
        %au0 = arith.addi %u0, %c1 : index
        %aep0 = arith.andi %au0, %c1 : index
        %acc_empty_parity0 = arith.index_cast %aep0 : index to i32
        %d0 = "tcgen05.tmem_stage"(%acc, %acs0) : (!tcgen05.tmem<[2, 256, 128], f32>, index) -> !tcgen05.tmem<[256, 128], f32>
        "tcgen05.mbarrier_wait"(%acc_empty0, %acc_empty_parity0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %it0_0 = arith.addi %base0, %c0 : index
        %r0_0 = arith.divui %it0_0, %c2 : index
        %fp0_0 = arith.andi %r0_0, %c1 : index
        %full_parity0_0 = arith.index_cast %fp0_0 : index to i32
        %s0_0 = arith.constant 0 : index
        %as0_0 = "tcgen05.smem_stage"(%a, %s0_0) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_0 = "tcgen05.smem_stage"(%b, %s0_0) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full0, %full_parity0_0) : (!tcgen05.mbarrier, i32) -> ()
        // The first MMA of a tile overwrites its accumulator stage.
        "tcgen05.mma"(%d0, %as0_0, %bs0_0, %false) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_0, %bs0_0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_0, %bs0_0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_0, %bs0_0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty0) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        %it0_1 = arith.addi %base0, %c1 : index
        %r0_1 = arith.divui %it0_1, %c2 : index
        %fp0_1 = arith.andi %r0_1, %c1 : index
        %full_parity0_1 = arith.index_cast %fp0_1 : index to i32
        %s0_1 = arith.constant 1 : index
        %as0_1 = "tcgen05.smem_stage"(%a, %s0_1) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_1 = "tcgen05.smem_stage"(%b, %s0_1) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full1, %full_parity0_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d0, %as0_1, %bs0_1, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_1, %bs0_1, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_1, %bs0_1, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_1, %bs0_1, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty1) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        %it0_2 = arith.addi %base0, %c2 : index
        %r0_2 = arith.divui %it0_2, %c2 : index
        %fp0_2 = arith.andi %r0_2, %c1 : index
        %full_parity0_2 = arith.index_cast %fp0_2 : index to i32
        %s0_2 = arith.constant 0 : index
        %as0_2 = "tcgen05.smem_stage"(%a, %s0_2) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_2 = "tcgen05.smem_stage"(%b, %s0_2) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full0, %full_parity0_2) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d0, %as0_2, %bs0_2, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_2, %bs0_2, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_2, %bs0_2, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_2, %bs0_2, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty0) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        %c3_0 = arith.constant 3 : index
        %it0_3 = arith.addi %base0, %c3_0 : index
        %r0_3 = arith.divui %it0_3, %c2 : index
        %fp0_3 = arith.andi %r0_3, %c1 : index
        %full_parity0_3 = arith.index_cast %fp0_3 : index to i32
        %s0_3 = arith.constant 1 : index
        %as0_3 = "tcgen05.smem_stage"(%a, %s0_3) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs0_3 = "tcgen05.smem_stage"(%b, %s0_3) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full1, %full_parity0_3) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d0, %as0_3, %bs0_3, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_3, %bs0_3, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_3, %bs0_3, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d0, %as0_3, %bs0_3, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty1) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        "tcgen05.commit"(%acc_full0) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        // Tile %t1 = %p + 1: columns %n1 .. of C, rows %n1 .. of B.
        %t1 = arith.addi %p, %c1 : index
        %n1 = arith.muli %t1, %c128 : index
        %base1 = arith.muli %t1, %c4 : index
        %acs1 = arith.constant 1 : index
        %u1 = arith.divui %t1, %c2 : index
        %au1 = arith.addi %u1, %c1 : index
        %aep1 = arith.andi %au1, %c1 : index
        %acc_empty_parity1 = arith.index_cast %aep1 : index to i32
        %d1 = "tcgen05.tmem_stage"(%acc, %acs1) : (!tcgen05.tmem<[2, 256, 128], f32>, index) -> !tcgen05.tmem<[256, 128], f32>
        "tcgen05.mbarrier_wait"(%acc_empty1, %acc_empty_parity1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %it1_0 = arith.addi %base1, %c0 : index
        %r1_0 = arith.divui %it1_0, %c2 : index
        %fp1_0 = arith.andi %r1_0, %c1 : index
        %full_parity1_0 = arith.index_cast %fp1_0 : index to i32
        %s1_0 = arith.constant 0 : index
        %as1_0 = "tcgen05.smem_stage"(%a, %s1_0) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_0 = "tcgen05.smem_stage"(%b, %s1_0) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full0, %full_parity1_0) : (!tcgen05.mbarrier, i32) -> ()
        // The first MMA of a tile overwrites its accumulator stage.
        "tcgen05.mma"(%d1, %as1_0, %bs1_0, %false) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_0, %bs1_0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_0, %bs1_0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_0, %bs1_0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty0) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        %it1_1 = arith.addi %base1, %c1 : index
        %r1_1 = arith.divui %it1_1, %c2 : index
        %fp1_1 = arith.andi %r1_1, %c1 : index
        %full_parity1_1 = arith.index_cast %fp1_1 : index to i32
        %s1_1 = arith.constant 1 : index
        %as1_1 = "tcgen05.smem_stage"(%a, %s1_1) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_1 = "tcgen05.smem_stage"(%b, %s1_1) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full1, %full_parity1_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d1, %as1_1, %bs1_1, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_1, %bs1_1, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_1, %bs1_1, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_1, %bs1_1, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty1) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        %it1_2 = arith.addi %base1, %c2 : index
        %r1_2 = arith.divui %it1_2, %c2 : index
        %fp1_2 = arith.andi %r1_2, %c1 : index
        %full_parity1_2 = arith.index_cast %fp1_2 : index to i32
        %s1_2 = arith.constant 0 : index
        %as1_2 = "tcgen05.smem_stage"(%a, %s1_2) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_2 = "tcgen05.smem_stage"(%b, %s1_2) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full0, %full_parity1_2) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d1, %as1_2, %bs1_2, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_2, %bs1_2, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_2, %bs1_2, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_2, %bs1_2, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty0) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        %c3_1 = arith.constant 3 : index
        %it1_3 = arith.addi %base1, %c3_1 : index
        %r1_3 = arith.divui %it1_3, %c2 : index
        %fp1_3 = arith.andi %r1_3, %c1 : index
        %full_parity1_3 = arith.index_cast %fp1_3 : index to i32
        %s1_3 = arith.constant 1 : index
        %as1_3 = "tcgen05.smem_stage"(%a, %s1_3) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs1_3 = "tcgen05.smem_stage"(%b, %s1_3) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mbarrier_wait"(%full1, %full_parity1_3) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.mma"(%d1, %as1_3, %bs1_3, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_3, %bs1_3, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_3, %bs1_3, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%d1, %as1_3, %bs1_3, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%empty1) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
        "tcgen05.commit"(%acc_full1) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7 of each CTA, one warpgroup (warp w reads lanes 32 (w % 4) ..
    // of its own CTA's tensor memory: the CTA's 128 rows of the tile).
    "tcgen05.role"() ({
      scf.for %p = %c0 to %c4 step %c2 {
        // Tile %t0 = %p + 0 from accumulator stage 0, round %t0 / 2.
        %t0 = arith.addi %p, %c0 : index
        %n0 = arith.muli %t0, %c128 : index
        %acs0 = arith.constant 0 : index
        %u0 = arith.divui %t0, %c2 : index
        %afp0 = arith.andi %u0, %c1 : index
        %acc_full_parity0 = arith.index_cast %afp0 : index to i32
        %d0 = "tcgen05.tmem_stage"(%acc, %acs0) : (!tcgen05.tmem<[2, 256, 128], f32>, index) -> !tcgen05.tmem<[256, 128], f32>
        "tcgen05.mbarrier_wait"(%acc_full0, %acc_full_parity0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        scf.for %col = %c0 to %c128 step %c32 {
          %frag = "tcgen05.ld"(%d0, %col) : (!tcgen05.tmem<[256, 128], f32>, index) -> !tcgen05.frag<[256, 32], f32>
          %dest = arith.addi %n0, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 512 : i64}
              : (!tcgen05.frag<[256, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%acc_empty0) {cta = "even"} : (!tcgen05.mbarrier) -> ()
        // Tile %t1 = %p + 1 from accumulator stage 1, round %t1 / 2.
        %t1 = arith.addi %p, %c1 : index
        %n1 = arith.muli %t1, %c128 : index
        %acs1 = arith.constant 1 : index
        %u1 = arith.divui %t1, %c2 : index
        %afp1 = arith.andi %u1, %c1 : index
        %acc_full_parity1 = arith.index_cast %afp1 : index to i32
        %d1 = "tcgen05.tmem_stage"(%acc, %acs1) : (!tcgen05.tmem<[2, 256, 128], f32>, index) -> !tcgen05.tmem<[256, 128], f32>
        "tcgen05.mbarrier_wait"(%acc_full1, %acc_full_parity1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        scf.for %col = %c0 to %c128 step %c32 {
          %frag = "tcgen05.ld"(%d1, %col) : (!tcgen05.tmem<[256, 128], f32>, index) -> !tcgen05.frag<[256, 32], f32>
          %dest = arith.addi %n1, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 512 : i64}
              : (!tcgen05.frag<[256, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%acc_empty1) {cta = "even"} : (!tcgen05.mbarrier) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
