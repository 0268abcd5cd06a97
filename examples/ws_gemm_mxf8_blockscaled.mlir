// A block-scaled (MXFP8) warp-specialized GEMM, TMA-fed, written with NO synchronization:
//   C (M x N, bf16) = (A * SFA) x (B * SFB)^T, A (M x K) and B (N x K) e4m3, row-major
// (K contiguous), one ue8m0 scale factor per 32 consecutive K elements of a row
// (kind::mxf8f6f4, scale_vec::1X = block 32, PTX ISA 9.7.16.10.7, Tables 43 and 54).
// M, N and K are kernel arguments; the grid has one CTA per 128 x 128 tile of C
// (x = ceildiv(N, 128), y = ceildiv(M, 128)), and each CTA walks K in ceildiv(K, 128)
// blocks of 128 (a loop with a run-time trip count). K must be at least 1 and a multiple
// of 16 (the TMA row stride of A and B is K bytes, a multiple of 16); M and N are any.
// Edge tiles: TMA writes zeros for the elements of a box outside A or B (docs/tma.md),
// so the MMAs of an edge tile add zeros, and the epilogue stores only inside C.
//
// Three roles, each written as the loop it runs:
//   load     (warp 0):    per K block kb, the TMA loads of A, B, SFA and SFB into ring
//                         stage s = kb mod 2 (no mbarrier operand: the compiler picks it);
//   mma      (warp 1):    per K block, tcgen05.cp.32x128b.warpx4 of the stage's SFA and
//                         SFB tiles into stage s of the TMEM scale rings sfa and sfb, then
//                         the four K = 32 MMAs of the block, MMA j reading factor j (its
//                         scale-factor ID, from k_offset: 9.7.16.10.7.2);
//   epilogue (warps 4-7): tcgen05.ld of the accumulator, bf16 conversion (round to nearest
//                         even), stores inside C.
//
// The scale factors in global memory are in the blocked layout that tcgen05.cp's
// .32x128b.warpx4 copies into TMEM without rearranging (tmem-facts section 3: entry i of
// a scale buffer at lane i mod 32 of every lane quarter, column i div 32, byte j for its
// factor j): SFA is [ceildiv(M, 128) * ceildiv(K, 128) * 32, 16] bytes, and the 512 bytes
// of rows (t * ceildiv(K, 128) + kb) * 32 .. + 31 are tile t's K block kb: row r % 32,
// byte 4 ((r % 128) div 32) + j holds the factor of row r, elements 128 kb + 32 j ..
// + 31 (SFB likewise for B's rows). A TMA box {16, 32} without swizzle loads it: a
// K-major tile [32, 16] of i8 without swizzle is 32 rows of 16 bytes one after another
// (9.7.16.3.3), which is the box as TMA writes it.
//
// Shared memory: the rings A [2, 128, 128] and B [2, 128, 128] (e4m3, 128B swizzle:
// 16384 bytes a stage each) and SFA, SFB [2, 32, 16] (512 bytes a stage each). TMEM: the
// accumulator [128, 128] f32 and the scale rings sfa, sfb [2, 128, 4] (4 columns a
// stage: 128 entries x 4 factors, tcgen05-plan-tmem places each stage).
//
// tcgen05-insert-sync writes the protocol of examples/ws_persistent_gemm_bf16.mlir
// (tcgen05_lower/synchronization/rings.py) with the scale-factor copies in it
// (synchronization/scale_copies.py): the MMA thread's wait on full_s precedes the
// stage's first tcgen05.cp; cp -> mma needs nothing (an implicitly pipelined pair,
// 9.7.16.6.2); the commit to empty_s after the stage's MMAs also tracks the copies, so
// the stage is refilled only when they completed; and a tcgen05.fence::after_thread_sync
// after the full_s wait orders the next round's copy into the same TMEM stage after the
// MMAs that read it (mma -> cp is no pipelined pair: the commit, the refill and the wait
// order them, 9.7.16.6.4.2). The producer tail's parities come from the run-time number
// of K blocks (synchronization/runtime_trips.py). The reference is
// examples/ws_gemm_mxf8_blockscaled.check.py.
func.func @ws_gemm_mxf8_blockscaled(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %SFA: !llvm.ptr<1>,
    %SFB: !llvm.ptr<1>, %C: !llvm.ptr<1>, %M: i32, %N: i32, %K: i32,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 128, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 128, 128>,
                                              swizzle = "128B"}},
    %tmSFA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "SFA", box = array<i64: 16, 32>,
                                                swizzle = "none"}},
    %tmSFB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "SFB", box = array<i64: 16, 32>,
                                                swizzle = "none"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64,
                                  grid = ["ceildiv(N, 128)", "ceildiv(M, 128)"]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %m = arith.index_castui %M : i32 to index
  %n = arith.index_castui %N : i32 to index
  %k_size = arith.index_castui %K : i32 to index
  %tile_n = gpu.block_id x
  %tile_m = gpu.block_id y
  %m0 = arith.muli %tile_m, %c128 : index
  %n0 = arith.muli %tile_n, %c128 : index
  %kb_tmp = arith.addi %k_size, %c127 : index
  %kblocks = arith.divui %kb_tmp, %c128 : index

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">
  %sa = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 32, 16], i8, "K", "none">
  %sb = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 32, 16], i8, "K", "none">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !tcgen05.tmem<[2, 128, 4], f8E8M0FNU>
  %sfb = "tcgen05.tmem_buffer"() {name = "sfb"} : () -> !tcgen05.tmem<[2, 128, 4], f8E8M0FNU>

  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %kb = %c0 to %kblocks step %c1 {
        %s = arith.remui %kb, %c2 : index
        %k = arith.muli %kb, %c128 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">, index) -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">, index) -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
        %sas = "tcgen05.smem_stage"(%sa, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sbs = "tcgen05.smem_stage"(%sb, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %ra0 = arith.muli %tile_m, %kblocks : index
        %ra1 = arith.addi %ra0, %kb : index
        %ra = arith.muli %ra1, %c32 : index
        %rb0 = arith.muli %tile_n, %kblocks : index
        %rb1 = arith.addi %rb0, %kb : index
        %rb = arith.muli %rb1, %c32 : index
        "tcgen05.tma_load"(%tmA, %as, %k, %m0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %k, %n0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, index, index) -> ()
        "tcgen05.tma_load"(%tmSFA, %sas, %c0, %ra) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index, index) -> ()
        "tcgen05.tma_load"(%tmSFB, %sbs, %c0, %rb) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    "tcgen05.role"() ({
      scf.for %kb = %c0 to %kblocks step %c1 {
        %s = arith.remui %kb, %c2 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">, index) -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">, index) -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
        %sas = "tcgen05.smem_stage"(%sa, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sbs = "tcgen05.smem_stage"(%sb, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %ta = "tcgen05.tmem_stage"(%sfa, %s) : (!tcgen05.tmem<[2, 128, 4], f8E8M0FNU>, index) -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
        %tb = "tcgen05.tmem_stage"(%sfb, %s) : (!tcgen05.tmem<[2, 128, 4], f8E8M0FNU>, index) -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
        "tcgen05.cp"(%ta, %sas) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
        "tcgen05.cp"(%tb, %sbs) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
        %accumulate = arith.cmpi ne, %kb, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 64 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 96 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    "tcgen05.role"() ({
      scf.for %col = %c0 to %c128 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        %out = "tcgen05.frag_map"(%frag) ({
        ^bb0(%x: f32, %row: index, %c: index):
          %y = arith.truncf %x : f32 to bf16
          gpu.yield %y : bf16
        }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
        "tcgen05.store_fragment"(%out, %C, %col, %n, %m0, %n0, %m, %n)
            {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}
            : (!tcgen05.frag<[128, 32], bf16>, !llvm.ptr<1>, index, index, index, index, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
