// Forward attention, warp-specialized, the TMA loads' synchronization
// inserted by tcgen05-insert-sync{strategy=loads}, the rest written by hand:
//   O (256 x D, f32) = softmax(Q K^T / sqrt(D) + mask) V
// Q (256 x D), K and V (L x D) bf16 row-major, D = 64 (the head dimension), L keys
// given at run time; the mask hides keys >= L (the last KV block may be partial: TMA fills
// the rows past L with zeros and the softmax gives them -inf) and, when %causal != 0, keys
// after the query's row (query r sees keys 0 .. r: blocks past the last such key are
// skipped). One CTA of 384 threads; the roles run at once (docs/partitions.md):
//   load      (warp 0):    Q once, then K_j and V_j of KV block j (64 keys) through a
//                          2-stage TMA ring;
//   mma       (warp 1):    per query tile t, S_t = Q_t K_j^T and O_t += P_t V_j with P_t
//                          from tensor memory (A operand);
//   softmax t (warps 4-7 and 8-11): per block, the online softmax of S_t (tcgen05.frag_reduce,
//                          frag_map, frag_broadcast), P_t = bf16(p) stored into tensor memory
//                          over S_t's first 32 columns once its load of S_t completed
//                          (tcgen05.st into an A operand that aliases S_t, alias = "S_t":
//                          tcgen05_lower/planning/aliases.py), and the correction of O_t in
//                          tensor memory (O_t *= alpha, ld/st;
//                          FlashAttention-4's conditional rescaling: only in the warps
//                          where a row's max grew past a threshold, a warp
//                          vote, tcgen05.frag_vote)
//                          once the previous P_t V has completed; after the last block
//                          O_t / l goes to global memory.
// Two query tiles in ping-pong: per block the MMA runs P_0 V_j, S_0 of block j + 1,
// then P_1 V_j, S_1 of block j + 1, so while one softmax warpgroup works on its
// scores the tensor pipe serves the other. One stage of S and P per tile.
// mbarriers (9.7.16.6.4 canonical patterns; parities from the loop counter j):
//   The TMA loads name no mbarrier: tcgen05-insert-sync{strategy=loads} writes their
//   protocol (tcgen05_lower/synchronization/pipelined_loads.py): once_full (expect_tx +
//   the Q boxes; MMA waits phase 0 before the first S), full[2] and empty[2] for the K/V
//   ring (expect_tx + the boxes of block j into stage j % 2; MMA waits before S of block
//   j, its first reader, and commits after the last P V of block j, its last; the load
//   role waits on empty before each refill and, after its loop, for the last commit to
//   each stage).
//   s_full_t     (count 1): MMA commits after S_t; softmax t waits for it and fences
//                after_thread_sync before its tcgen05.ld.
//   p_full_t     (count 128): softmax t arrives after P_t and the correction of O_t,
//                behind tcgen05.wait::ld, wait::st and fence::before_thread_sync; MMA waits
//                parity j & 1 and fences after_thread_sync before P_t V_j and before S_t
//                is written again.
//   o_done_t     (count 1): MMA commits after P_t V_j; softmax t waits parity (j + 1) & 1
//                before writing P_t or touching O_t in block j (phase j - 1; block 0 waits
//                for the phase before the first), and phase n - 1 before its epilogue.
//                In the loop it fences after_thread_sync after that wait only when the
//                MMA commits S_t of block j before P_t V_(j-1) (one tile); in ping-pong
//                the commit of S_t comes after, tracks that product too (9.7.16.12.1),
//                and the fence after the wait on s_full_t orders it (9.7.16.6.3).
//                P_t lies on S_t's cells, so the MMA waits on o_done_t too (and fences
//                after_thread_sync) before it writes S_t over the P_t that P_t V read:
//                two MMAs of different accumulators are no pipelined pair (9.7.16.6.2,
//                "same N and accumulator and shape"). Ping-pong: phase j, committed just
//                before; one tile: phase j - 1 (S of block j + 1 goes to stage (j + 1) % 2).
//                In ping-pong softmax t then waits on o_done_t after its loop only: the
//                MMA saw phase j - 1 before it wrote S_t of block j, which softmax t
//                waits for on s_full_t and fences after (9.7.16.6.3), and phase n - 2 is
//                complete when it waits for phase n - 1 (no parity alias).
// Compile with tcgen05-insert-sync{strategy=loads}: insert-sync does not plan the rest
// (tcgen05.st in a role, several accumulators, docs/partitions.md "Not planned yet");
// tcgen05-verify-sync checks the whole protocol, the run-time
// block count for every count up to the mbarriers' phase period
// (tcgen05_lower/sync_check/runtime_bounds.py). The reference is
// examples/ws_attention_fwd_bf16.check.py.
func.func @ws_attention_fwd_bf16(%Q: !llvm.ptr<1>, %K: !llvm.ptr<1>, %V: !llvm.ptr<1>,
    %O: !llvm.ptr<1>, %L: index, %causal: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}},
    %tmV: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "V", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 384 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %is_causal = arith.cmpi ne, %causal, %c0 : index
  // KV blocks: ceil(L / 64); causal: the 256 query rows see keys 0-255 at most,
  // 4 blocks.
  %l63 = arith.addi %L, %c63 : index
  %all = arith.divui %l63, %c64 : index
  %cb = arith.constant 4 : index
  %few = arith.minui %all, %cb : index
  %n = arith.select %is_causal, %few, %all : index
  %q0_0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %q1_0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %k0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
  %v0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 64, 64], bf16, "MN", "128B">
  %s0 = "tcgen05.tmem_buffer"() {name = "S0"} : () -> !tcgen05.tmem<[128, 64], f32>
  %pt0 = "tcgen05.tmem_buffer"() {name = "P0", alias = "S0"} : () -> !tcgen05.tmem<[128, 64], bf16>
  %o0_0 = "tcgen05.tmem_buffer"() {name = "O0_0"} : () -> !tcgen05.tmem<[128, 64], f32>
  %s1 = "tcgen05.tmem_buffer"() {name = "S1"} : () -> !tcgen05.tmem<[128, 64], f32>
  %pt1 = "tcgen05.tmem_buffer"() {name = "P1", alias = "S1"} : () -> !tcgen05.tmem<[128, 64], bf16>
  %o1_0 = "tcgen05.tmem_buffer"() {name = "O1_0"} : () -> !tcgen05.tmem<[128, 64], f32>
  %s_full0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %p_full0 = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !tcgen05.mbarrier
  %o_done0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %s_full1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %p_full1 = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !tcgen05.mbarrier
  %o_done1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads (their mbarriers, expect_tx
    // and waits are tcgen05-insert-sync's).
    "tcgen05.role"() ({
      %qc0_0 = arith.constant 0 : index
      %qr0_0 = arith.constant 0 : index
      "tcgen05.tma_load"(%tmQ, %q0_0, %qc0_0, %qr0_0)
          : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
      %qc1_0 = arith.constant 0 : index
      %qr1_0 = arith.constant 128 : index
      "tcgen05.tma_load"(%tmQ, %q1_0, %qc1_0, %qr1_0)
          : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %st = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %hc0 = arith.constant 0 : index
        %ks0 = "tcgen05.smem_stage"(%k0, %st) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %vs0 = "tcgen05.smem_stage"(%v0, %st) : (!tcgen05.smem<[2, 64, 64], bf16, "MN", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "MN", "128B">
        "tcgen05.tma_load"(%tmK, %ks0, %hc0, %key)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index, index) -> ()
        "tcgen05.tma_load"(%tmV, %vs0, %hc0, %key)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1 (one thread issues; the scores of block 0 first, then per block
    // j < n - 1 the products of block j and the scores of block j + 1, then the last
    // products).
    "tcgen05.role"() ({
      %ks0 = arith.remui %c0, %c2 : index
      %kb0_0_0 = "tcgen05.smem_stage"(%k0, %ks0) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
      "tcgen05.mma"(%s0, %q0_0, %kb0_0_0, %false) {kind = "f16", k_offset = 0 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%s0, %q0_0, %kb0_0_0, %true) {kind = "f16", k_offset = 16 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%s0, %q0_0, %kb0_0_0, %true) {kind = "f16", k_offset = 32 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%s0, %q0_0, %kb0_0_0, %true) {kind = "f16", k_offset = 48 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.commit"(%s_full0) : (!tcgen05.mbarrier) -> ()
      %kb0_1_0 = "tcgen05.smem_stage"(%k0, %ks0) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
      "tcgen05.mma"(%s1, %q1_0, %kb0_1_0, %false) {kind = "f16", k_offset = 0 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%s1, %q1_0, %kb0_1_0, %true) {kind = "f16", k_offset = 16 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%s1, %q1_0, %kb0_1_0, %true) {kind = "f16", k_offset = 32 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%s1, %q1_0, %kb0_1_0, %true) {kind = "f16", k_offset = 48 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.commit"(%s_full1) : (!tcgen05.mbarrier) -> ()
      %last = arith.subi %n, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %j1 = arith.addi %j, %c1 : index
        %vsl_0 = arith.remui %j, %c2 : index
        %ppl_0 = arith.andi %j, %c1 : index
        %p_parityl_0 = arith.index_cast %ppl_0 : index to i32
        %accl_0 = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mbarrier_wait"(%p_full0, %p_parityl_0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %vbl_0_0 = "tcgen05.smem_stage"(%v0, %vsl_0) : (!tcgen05.smem<[2, 64, 64], bf16, "MN", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "MN", "128B">
        "tcgen05.mma"(%o0_0, %pt0, %vbl_0_0, %accl_0) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
        "tcgen05.mma"(%o0_0, %pt0, %vbl_0_0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
        "tcgen05.mma"(%o0_0, %pt0, %vbl_0_0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
        "tcgen05.mma"(%o0_0, %pt0, %vbl_0_0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
        "tcgen05.commit"(%o_done0) : (!tcgen05.mbarrier) -> ()
        %ksn = arith.remui %j1, %c2 : index
        // S0 is written over P0: the P0 V that read it has completed.
        %pqn_0 = arith.andi %j, %c1 : index
        %prn_0 = arith.index_cast %pqn_0 : index to i32
        "tcgen05.mbarrier_wait"(%o_done0, %prn_0) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %kbn_0_0 = "tcgen05.smem_stage"(%k0, %ksn) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mma"(%s0, %q0_0, %kbn_0_0, %false) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%s0, %q0_0, %kbn_0_0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%s0, %q0_0, %kbn_0_0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%s0, %q0_0, %kbn_0_0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%s_full0) : (!tcgen05.mbarrier) -> ()
        %vsl_1 = arith.remui %j, %c2 : index
        %ppl_1 = arith.andi %j, %c1 : index
        %p_parityl_1 = arith.index_cast %ppl_1 : index to i32
        %accl_1 = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mbarrier_wait"(%p_full1, %p_parityl_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %vbl_1_0 = "tcgen05.smem_stage"(%v0, %vsl_1) : (!tcgen05.smem<[2, 64, 64], bf16, "MN", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "MN", "128B">
        "tcgen05.mma"(%o1_0, %pt1, %vbl_1_0, %accl_1) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
        "tcgen05.mma"(%o1_0, %pt1, %vbl_1_0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
        "tcgen05.mma"(%o1_0, %pt1, %vbl_1_0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
        "tcgen05.mma"(%o1_0, %pt1, %vbl_1_0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
        "tcgen05.commit"(%o_done1) : (!tcgen05.mbarrier) -> ()
        // S1 is written over P1: the P1 V that read it has completed.
        %pqn_1 = arith.andi %j, %c1 : index
        %prn_1 = arith.index_cast %pqn_1 : index to i32
        "tcgen05.mbarrier_wait"(%o_done1, %prn_1) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %kbn_1_0 = "tcgen05.smem_stage"(%k0, %ksn) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.mma"(%s1, %q1_0, %kbn_1_0, %false) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%s1, %q1_0, %kbn_1_0, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%s1, %q1_0, %kbn_1_0, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%s1, %q1_0, %kbn_1_0, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.commit"(%s_full1) : (!tcgen05.mbarrier) -> ()
      }
      %vse_0 = arith.remui %last, %c2 : index
      %ppe_0 = arith.andi %last, %c1 : index
      %p_paritye_0 = arith.index_cast %ppe_0 : index to i32
      %acce_0 = arith.cmpi ne, %last, %c0 : index
      "tcgen05.mbarrier_wait"(%p_full0, %p_paritye_0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %vbe_0_0 = "tcgen05.smem_stage"(%v0, %vse_0) : (!tcgen05.smem<[2, 64, 64], bf16, "MN", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "MN", "128B">
      "tcgen05.mma"(%o0_0, %pt0, %vbe_0_0, %acce_0) {kind = "f16", k_offset = 0 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
      "tcgen05.mma"(%o0_0, %pt0, %vbe_0_0, %true) {kind = "f16", k_offset = 16 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
      "tcgen05.mma"(%o0_0, %pt0, %vbe_0_0, %true) {kind = "f16", k_offset = 32 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
      "tcgen05.mma"(%o0_0, %pt0, %vbe_0_0, %true) {kind = "f16", k_offset = 48 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
      "tcgen05.commit"(%o_done0) : (!tcgen05.mbarrier) -> ()
      %vse_1 = arith.remui %last, %c2 : index
      %ppe_1 = arith.andi %last, %c1 : index
      %p_paritye_1 = arith.index_cast %ppe_1 : index to i32
      %acce_1 = arith.cmpi ne, %last, %c0 : index
      "tcgen05.mbarrier_wait"(%p_full1, %p_paritye_1) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %vbe_1_0 = "tcgen05.smem_stage"(%v0, %vse_1) : (!tcgen05.smem<[2, 64, 64], bf16, "MN", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "MN", "128B">
      "tcgen05.mma"(%o1_0, %pt1, %vbe_1_0, %acce_1) {kind = "f16", k_offset = 0 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
      "tcgen05.mma"(%o1_0, %pt1, %vbe_1_0, %true) {kind = "f16", k_offset = 16 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
      "tcgen05.mma"(%o1_0, %pt1, %vbe_1_0, %true) {kind = "f16", k_offset = 32 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
      "tcgen05.mma"(%o1_0, %pt1, %vbe_1_0, %true) {kind = "f16", k_offset = 48 : i64}
          : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
      "tcgen05.commit"(%o_done1) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Softmax role 0: warps 4-7, one warpgroup (warp w reads lanes
    // 32 (w % 4) ..), query rows 0-127; it also corrects O0. The running max m
    // and sum l are per-row values the loop carries.
    "tcgen05.role"() ({
      %row0 = arith.constant 0 : index
      %m_init = "tcgen05.frag_map"() ({
      ^bb0(%row: index, %c: index):
        %ninf = arith.constant 0xFF800000 : f32
        gpu.yield %ninf : f32
      }) : () -> !tcgen05.frag<[128, 1], f32>
      %l_init = "tcgen05.frag_map"() ({
      ^bb0(%row: index, %c: index):
        %zero = arith.constant 0.0 : f32
        gpu.yield %zero : f32
      }) : () -> !tcgen05.frag<[128, 1], f32>
      %stats:2 = scf.for %j = %c0 to %n step %c1
          iter_args(%m_old = %m_init, %l_old = %l_init) -> (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) {
        %sp = arith.andi %j, %c1 : index
        %s_parity = arith.index_cast %sp : index to i32
        %j1 = arith.addi %j, %c1 : index
        %op = arith.andi %j1, %c1 : index
        %o_parity = arith.index_cast %op : index to i32
        %key = arith.muli %j, %c64 : index
        %not_first = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mbarrier_wait"(%s_full0, %s_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %raw = "tcgen05.ld"(%s0, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
        // Masked keys (past L, or after the query's row when causal) get -inf.
        %sc = "tcgen05.frag_map"(%raw) ({
        ^bb0(%x: f32, %row: index, %c: index):
          %kk = arith.addi %key, %c : index
          %query = arith.addi %row0, %row : index
          %out = arith.cmpi uge, %kk, %L : index
          %later = arith.cmpi ugt, %kk, %query : index
          %hide = arith.andi %later, %is_causal : i1
          %dead = arith.ori %out, %hide : i1
          %ninf = arith.constant 0xFF800000 : f32
          %y = arith.select %dead, %ninf, %x : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], f32>
        %mj = "tcgen05.frag_reduce"(%sc) {kind = "max"} : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 1], f32>
        %m_max = "tcgen05.frag_map"(%m_old, %mj) ({
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %mx = arith.maxnumf %a, %b : f32
          gpu.yield %mx : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        // Conditional rescaling: the warp keeps its maxima unless one of its rows
        // grew by more than 8.0 / scale (p then stays below e^8.0).
        %need = "tcgen05.frag_map"(%m_old, %m_max) ({
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %dd = arith.subf %b, %a : f32
          %scale = arith.constant 0.125 : f32
          %t = arith.mulf %dd, %scale : f32
          %limit = arith.constant 8.0 : f32
          %over = arith.cmpf ogt, %t, %limit : f32
          %one = arith.constant 1.0 : f32
          %zero = arith.constant 0.0 : f32
          %y = arith.select %over, %one, %zero : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        %update = "tcgen05.frag_vote"(%need) {kind = "any"} : (!tcgen05.frag<[128, 1], f32>) -> i1
        %m_new = "tcgen05.frag_map"(%m_old, %m_max) ({
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %y = arith.select %update, %b, %a : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        %rescale = arith.andi %not_first, %update : i1
        %alpha = "tcgen05.frag_map"(%m_old, %m_new) ({
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %dd = arith.subf %a, %b : f32
          %scale = arith.constant 0.125 : f32
          %t = arith.mulf %dd, %scale : f32
          %e = math.exp %t : f32
          gpu.yield %e : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        %mb = "tcgen05.frag_broadcast"(%m_new, %sc) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], f32>
        %pf = "tcgen05.frag_map"(%sc, %mb) ({
        ^bb0(%x: f32, %mx: f32, %row: index, %c: index):
          %dd = arith.subf %x, %mx : f32
          %scale = arith.constant 0.125 : f32
          %t = arith.mulf %dd, %scale : f32
          %e = math.exp %t : f32
          gpu.yield %e : f32
        }) : (!tcgen05.frag<[128, 64], f32>, !tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], f32>
        %lj = "tcgen05.frag_reduce"(%pf) {kind = "sum"} : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 1], f32>
        %l_new = "tcgen05.frag_map"(%l_old, %alpha, %lj) ({
        ^bb0(%l: f32, %a: f32, %b: f32, %row: index, %c: index):
          %rr = arith.mulf %l, %a : f32
          %y = arith.addf %rr, %b : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        %pb = "tcgen05.frag_map"(%pf) ({
        ^bb0(%x: f32, %row: index, %c: index):
          %y = arith.truncf %x : f32 to bf16
          gpu.yield %y : bf16
        }) : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], bf16>
        // No wait on o_done0: the MMA saw the previous P0 V complete before
        // it wrote S0 of this block over P0 (o_done_t at the top).
        // P is stored over the S just loaded: that load completes first.
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.st"(%pt0, %c0, %pb) : (!tcgen05.tmem<[128, 64], bf16>, index, !tcgen05.frag<[128, 64], bf16>) -> ()
        // O = O alpha in tensor memory (block 0: O holds nothing yet, the first P V
        // overwrites it).
        scf.if %rescale {
          scf.for %col = %c0 to %c64 step %c32 {
            %of = "tcgen05.ld"(%o0_0, %col) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
            // The store below writes the cells this load reads (9.7.16.6.4.2).
            "tcgen05.wait"() {kind = "ld"} : () -> ()
            %ab = "tcgen05.frag_broadcast"(%alpha, %of) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
            %scaled = "tcgen05.frag_map"(%of, %ab) ({
            ^bb0(%x: f32, %a: f32, %row: index, %c: index):
              %y = arith.mulf %x, %a : f32
              gpu.yield %y : f32
            }) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
            "tcgen05.st"(%o0_0, %col, %scaled) : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 32], f32>) -> ()
          }
        }
        // The loads of S and O and the stores of P and O complete before the arrival
        // (9.7.16.6.4.4; the registers themselves need no wait, 9.7.16.6.4.5).
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.wait"() {kind = "st"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%p_full0) : (!tcgen05.mbarrier) -> ()
        scf.yield %m_new, %l_new : !tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>
      }
      // O / l once the last P V has completed (phase n - 1 of o_done0).
      %nl = arith.subi %n, %c1 : index
      %fp = arith.andi %nl, %c1 : index
      %final_parity = arith.index_cast %fp : index to i32
      "tcgen05.mbarrier_wait"(%o_done0, %final_parity) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c64 step %c32 {
        %of = "tcgen05.ld"(%o0_0, %col) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        %lb = "tcgen05.frag_broadcast"(%stats#1, %of) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
        %res = "tcgen05.frag_map"(%of, %lb) ({
        ^bb0(%x: f32, %sum: f32, %row: index, %c: index):
          %y = arith.divf %x, %sum : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
        %dc0 = arith.constant 0 : index
        %dest = arith.addi %dc0, %col : index
        "tcgen05.store_fragment"(%res, %O, %dest) {ld = 64 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax0", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    // Softmax role 1: warps 8-11, one warpgroup (warp w reads lanes
    // 32 (w % 4) ..), query rows 128-255; it also corrects O1. The running max m
    // and sum l are per-row values the loop carries.
    "tcgen05.role"() ({
      %row0 = arith.constant 128 : index
      %m_init = "tcgen05.frag_map"() ({
      ^bb0(%row: index, %c: index):
        %ninf = arith.constant 0xFF800000 : f32
        gpu.yield %ninf : f32
      }) : () -> !tcgen05.frag<[128, 1], f32>
      %l_init = "tcgen05.frag_map"() ({
      ^bb0(%row: index, %c: index):
        %zero = arith.constant 0.0 : f32
        gpu.yield %zero : f32
      }) : () -> !tcgen05.frag<[128, 1], f32>
      %stats:2 = scf.for %j = %c0 to %n step %c1
          iter_args(%m_old = %m_init, %l_old = %l_init) -> (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) {
        %sp = arith.andi %j, %c1 : index
        %s_parity = arith.index_cast %sp : index to i32
        %j1 = arith.addi %j, %c1 : index
        %op = arith.andi %j1, %c1 : index
        %o_parity = arith.index_cast %op : index to i32
        %key = arith.muli %j, %c64 : index
        %not_first = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mbarrier_wait"(%s_full1, %s_parity) : (!tcgen05.mbarrier, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %raw = "tcgen05.ld"(%s1, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
        // Masked keys (past L, or after the query's row when causal) get -inf.
        %sc = "tcgen05.frag_map"(%raw) ({
        ^bb0(%x: f32, %row: index, %c: index):
          %kk = arith.addi %key, %c : index
          %query = arith.addi %row0, %row : index
          %out = arith.cmpi uge, %kk, %L : index
          %later = arith.cmpi ugt, %kk, %query : index
          %hide = arith.andi %later, %is_causal : i1
          %dead = arith.ori %out, %hide : i1
          %ninf = arith.constant 0xFF800000 : f32
          %y = arith.select %dead, %ninf, %x : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], f32>
        %mj = "tcgen05.frag_reduce"(%sc) {kind = "max"} : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 1], f32>
        %m_max = "tcgen05.frag_map"(%m_old, %mj) ({
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %mx = arith.maxnumf %a, %b : f32
          gpu.yield %mx : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        // Conditional rescaling: the warp keeps its maxima unless one of its rows
        // grew by more than 8.0 / scale (p then stays below e^8.0).
        %need = "tcgen05.frag_map"(%m_old, %m_max) ({
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %dd = arith.subf %b, %a : f32
          %scale = arith.constant 0.125 : f32
          %t = arith.mulf %dd, %scale : f32
          %limit = arith.constant 8.0 : f32
          %over = arith.cmpf ogt, %t, %limit : f32
          %one = arith.constant 1.0 : f32
          %zero = arith.constant 0.0 : f32
          %y = arith.select %over, %one, %zero : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        %update = "tcgen05.frag_vote"(%need) {kind = "any"} : (!tcgen05.frag<[128, 1], f32>) -> i1
        %m_new = "tcgen05.frag_map"(%m_old, %m_max) ({
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %y = arith.select %update, %b, %a : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        %rescale = arith.andi %not_first, %update : i1
        %alpha = "tcgen05.frag_map"(%m_old, %m_new) ({
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %dd = arith.subf %a, %b : f32
          %scale = arith.constant 0.125 : f32
          %t = arith.mulf %dd, %scale : f32
          %e = math.exp %t : f32
          gpu.yield %e : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        %mb = "tcgen05.frag_broadcast"(%m_new, %sc) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], f32>
        %pf = "tcgen05.frag_map"(%sc, %mb) ({
        ^bb0(%x: f32, %mx: f32, %row: index, %c: index):
          %dd = arith.subf %x, %mx : f32
          %scale = arith.constant 0.125 : f32
          %t = arith.mulf %dd, %scale : f32
          %e = math.exp %t : f32
          gpu.yield %e : f32
        }) : (!tcgen05.frag<[128, 64], f32>, !tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], f32>
        %lj = "tcgen05.frag_reduce"(%pf) {kind = "sum"} : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 1], f32>
        %l_new = "tcgen05.frag_map"(%l_old, %alpha, %lj) ({
        ^bb0(%l: f32, %a: f32, %b: f32, %row: index, %c: index):
          %rr = arith.mulf %l, %a : f32
          %y = arith.addf %rr, %b : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
        %pb = "tcgen05.frag_map"(%pf) ({
        ^bb0(%x: f32, %row: index, %c: index):
          %y = arith.truncf %x : f32 to bf16
          gpu.yield %y : bf16
        }) : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], bf16>
        // No wait on o_done1: the MMA saw the previous P1 V complete before
        // it wrote S1 of this block over P1 (o_done_t at the top).
        // P is stored over the S just loaded: that load completes first.
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.st"(%pt1, %c0, %pb) : (!tcgen05.tmem<[128, 64], bf16>, index, !tcgen05.frag<[128, 64], bf16>) -> ()
        // O = O alpha in tensor memory (block 0: O holds nothing yet, the first P V
        // overwrites it).
        scf.if %rescale {
          scf.for %col = %c0 to %c64 step %c32 {
            %of = "tcgen05.ld"(%o1_0, %col) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
            // The store below writes the cells this load reads (9.7.16.6.4.2).
            "tcgen05.wait"() {kind = "ld"} : () -> ()
            %ab = "tcgen05.frag_broadcast"(%alpha, %of) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
            %scaled = "tcgen05.frag_map"(%of, %ab) ({
            ^bb0(%x: f32, %a: f32, %row: index, %c: index):
              %y = arith.mulf %x, %a : f32
              gpu.yield %y : f32
            }) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
            "tcgen05.st"(%o1_0, %col, %scaled) : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 32], f32>) -> ()
          }
        }
        // The loads of S and O and the stores of P and O complete before the arrival
        // (9.7.16.6.4.4; the registers themselves need no wait, 9.7.16.6.4.5).
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.wait"() {kind = "st"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%p_full1) : (!tcgen05.mbarrier) -> ()
        scf.yield %m_new, %l_new : !tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>
      }
      // O / l once the last P V has completed (phase n - 1 of o_done1).
      %nl = arith.subi %n, %c1 : index
      %fp = arith.andi %nl, %c1 : index
      %final_parity = arith.index_cast %fp : index to i32
      "tcgen05.mbarrier_wait"(%o_done1, %final_parity) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      scf.for %col = %c0 to %c64 step %c32 {
        %of = "tcgen05.ld"(%o1_0, %col) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        %lb = "tcgen05.frag_broadcast"(%stats#1, %of) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
        %res = "tcgen05.frag_map"(%of, %lb) ({
        ^bb0(%x: f32, %sum: f32, %row: index, %c: index):
          %y = arith.divf %x, %sum : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
        %dc0 = arith.constant 8192 : index
        %dest = arith.addi %dc0, %col : index
        "tcgen05.store_fragment"(%res, %O, %dest) {ld = 64 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax1", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
