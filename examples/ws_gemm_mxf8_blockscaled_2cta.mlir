// The MXFP8 GEMM of examples/ws_gemm_mxf8_blockscaled.mlir on CTA pairs (cta_group::2),
// written with NO synchronization:
//   C (M x N, bf16) = (A * SFA) x (B * SFB)^T, A (M x K) and B (N x K) e4m3, row-major
// (K contiguous), one ue8m0 scale factor per 32 consecutive K elements of a row
// (kind::mxf8f6f4, scale_vec::1X = block 32, PTX ISA 9.7.16.10.7, Tables 43 and 54).
// M, N and K are kernel arguments. The grid is 2 x ceildiv(M, 256) x ceildiv(N, 128) CTAs:
// x is the pair (the cluster of two, %cluster_ctarank r = 0 or 1), y the pair's 256 rows
// of C, z its 128 columns. Each pair computes a 256 x 128 tile with M = 256 MMAs (Layout A,
// 9.7.16.10.5.1): CTA r holds rows 128 r .. 128 r + 127 of A and of the tile of C, and
// rows 64 r .. 64 r + 63 of B's 128 (N/2), in its own shared and tensor memory. K walks in
// ceildiv(K, 128) blocks of 128 (a run-time trip count). K must be at least 1 and a
// multiple of 16; M and N are any (TMA writes zeros outside A or B, docs/tma.md; the
// epilogue stores only inside C).
//
// Three roles in each CTA, each written as the loop it runs:
//   load     (warp 0):    per K block kb, the TMA loads of this CTA's slices of A and B
//                         (the lowering adds rank * rows to the row coordinate), of its
//                         own rows' scale factors SFA (likewise) and of ALL 128 columns'
//                         scale factors SFB (a tile only copied into an MMA's scale_B is
//                         loaded whole by each CTA, docs/cta-pairs.md), into ring stage
//                         s = kb mod 2;
//   mma      (warp 1):    per K block, tcgen05.cp.cta_group::2.32x128b.warpx4 of the
//                         stage's SFA and SFB tiles into stage s of the TMEM scale rings
//                         (issued by the even CTA: each CTA's tile into its own tensor
//                         memory), then the four K = 32 pair MMAs of the block;
//   epilogue (warps 4-7): tcgen05.ld of the CTA's 128 lanes of the accumulator, bf16
//                         conversion (round to nearest even), stores inside C.
//
// Scale factors in tensor memory with cta_group::2 (tmem-facts section 3): each CTA holds
// the A scales of its own rows, and the B scales of all N. CUTLASS's sm100 block-scaled
// collective does the same (its SFA tile per CTA is the CTA's M/2 rows, its SFB tile the
// whole N, and the leader's 2-CTA copy fills both CTAs' tensor memory from each CTA's own
// tile at the same offset), which is how the simulator reads tcgen05.cp.cta_group::2.
//
// Global layouts of the factors (blocked, as tcgen05.cp.32x128b.warpx4 copies them into
// TMEM; entry i at lane i mod 32 of every lane quarter, column i div 32, byte j for its
// factor j): SFA is [ceildiv(M, 256) * ceildiv(K, 128) * 64, 16] bytes, the 32 rows from
// ((p * ceildiv(K, 128) + kb) * 2 + r) * 32 holding K block kb of rows 256 p + 128 r ..
// + 127 (row m: line + m % 32, byte 4 ((m % 128) div 32) + j); SFB is the one-CTA
// example's, [ceildiv(N, 128) * ceildiv(K, 128) * 32, 16].
//
// Shared memory per CTA: the rings A [2, 128, 128] and B [2, 64, 128] (e4m3, 128B
// swizzle) and SFA, SFB [2, 32, 16]. TMEM per CTA: the accumulator [256, 128] f32 (its
// 128 lanes) and the scale rings sfa, sfb [2, 128, 4].
//
// tcgen05-insert-sync writes the pair protocol of examples/ws_gemm_2cta_bf16.mlir with
// the scale-factor copies in it (synchronization/scale_copies.py): the even CTA's
// expect_tx announces both CTAs' bytes of the stage (each CTA loads A, B, SFA and SFB
// tiles); the commit to empty_s (multicast to both CTAs) also tracks the copies. The
// reference is examples/ws_gemm_mxf8_blockscaled_2cta.check.py.

!gptr = !llvm.ptr<1>
!smem_2x128x128xf8E4M3FN = !tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">
!smem_2x64x128xf8E4M3FN = !tcgen05.smem<[2, 64, 128], f8E4M3FN, "K", "128B">
!smem_2x32x16xi8_k_none = !tcgen05.smem<[2, 32, 16], i8, "K", "none">
!smem_128x128xf8E4M3FN = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!smem_64x128xf8E4M3FN = !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
!smem_32x16xi8_k_none = !tcgen05.smem<[32, 16], i8, "K", "none">
!tmem_256x128xf32 = !tcgen05.tmem<[256, 128], f32>
!tmem_2x128x4xf8E8M0FNU = !tcgen05.tmem<[2, 128, 4], f8E8M0FNU>
!tmem_128x4xf8E8M0FNU = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!frag_256x32xf32 = !tcgen05.frag<[256, 32], f32>
!frag_256x32xbf16 = !tcgen05.frag<[256, 32], bf16>

func.func @ws_gemm_mxf8_blockscaled_2cta(%A: !gptr, %B: !gptr, %SFA: !gptr,
    %SFB: !gptr, %C: !gptr, %M: i32, %N: i32, %K: i32,
    %tmA: !gptr {tcgen05.tensor_map = {tensor = "A", box = array<i64: 128, 128>,
                                              swizzle = "128B"}},
    %tmB: !gptr {tcgen05.tensor_map = {tensor = "B", box = array<i64: 128, 64>,
                                              swizzle = "128B"}},
    %tmSFA: !gptr {tcgen05.tensor_map = {tensor = "SFA", box = array<i64: 16, 32>,
                                                swizzle = "none"}},
    %tmSFB: !gptr {tcgen05.tensor_map = {tensor = "SFB", box = array<i64: 16, 32>,
                                                swizzle = "none"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64,
                                  grid = ["2", "ceildiv(M, 256)", "ceildiv(N, 128)"]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %m = arith.index_castui %M : i32 to index
  %n = arith.index_castui %N : i32 to index
  %k_size = arith.index_castui %K : i32 to index
  %tile_m = gpu.block_id y
  %tile_n = gpu.block_id z
  %m0 = arith.muli %tile_m, %c256 : index
  %n0 = arith.muli %tile_n, %c128 : index
  %kb_tmp = arith.addi %k_size, %c127 : index
  %kblocks = arith.divui %kb_tmp, %c128 : index

  %a = "tcgen05.smem_buffer"() : () -> !smem_2x128x128xf8E4M3FN
  %b = "tcgen05.smem_buffer"() : () -> !smem_2x64x128xf8E4M3FN
  %sa = "tcgen05.smem_buffer"() : () -> !smem_2x32x16xi8_k_none
  %sb = "tcgen05.smem_buffer"() : () -> !smem_2x32x16xi8_k_none
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_256x128xf32
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !tmem_2x128x4xf8E8M0FNU
  %sfb = "tcgen05.tmem_buffer"() {name = "sfb"} : () -> !tmem_2x128x4xf8E8M0FNU

  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %kb = %c0 to %kblocks step %c1 {
        %s = arith.remui %kb, %c2 : index
        %k = arith.muli %kb, %c128 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!smem_2x128x128xf8E4M3FN, index) -> !smem_128x128xf8E4M3FN
        %bs = "tcgen05.smem_stage"(%b, %s) : (!smem_2x64x128xf8E4M3FN, index) -> !smem_64x128xf8E4M3FN
        %sas = "tcgen05.smem_stage"(%sa, %s) : (!smem_2x32x16xi8_k_none, index) -> !smem_32x16xi8_k_none
        %sbs = "tcgen05.smem_stage"(%sb, %s) : (!smem_2x32x16xi8_k_none, index) -> !smem_32x16xi8_k_none
        %ra0 = arith.muli %tile_m, %kblocks : index
        %ra1 = arith.addi %ra0, %kb : index
        %ra = arith.muli %ra1, %c64 : index
        %rb0 = arith.muli %tile_n, %kblocks : index
        %rb1 = arith.addi %rb0, %kb : index
        %rb = arith.muli %rb1, %c32 : index
        "tcgen05.tma_load"(%tmA, %as, %k, %m0) : (!gptr, !smem_128x128xf8E4M3FN, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %k, %n0) : (!gptr, !smem_64x128xf8E4M3FN, index, index) -> ()
        "tcgen05.tma_load"(%tmSFA, %sas, %c0, %ra) : (!gptr, !smem_32x16xi8_k_none, index, index) -> ()
        "tcgen05.tma_load"(%tmSFB, %sbs, %c0, %rb) : (!gptr, !smem_32x16xi8_k_none, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    "tcgen05.role"() ({
      scf.for %kb = %c0 to %kblocks step %c1 {
        %s = arith.remui %kb, %c2 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!smem_2x128x128xf8E4M3FN, index) -> !smem_128x128xf8E4M3FN
        %bs = "tcgen05.smem_stage"(%b, %s) : (!smem_2x64x128xf8E4M3FN, index) -> !smem_64x128xf8E4M3FN
        %sas = "tcgen05.smem_stage"(%sa, %s) : (!smem_2x32x16xi8_k_none, index) -> !smem_32x16xi8_k_none
        %sbs = "tcgen05.smem_stage"(%sb, %s) : (!smem_2x32x16xi8_k_none, index) -> !smem_32x16xi8_k_none
        %ta = "tcgen05.tmem_stage"(%sfa, %s) : (!tmem_2x128x4xf8E8M0FNU, index) -> !tmem_128x4xf8E8M0FNU
        %tb = "tcgen05.tmem_stage"(%sfb, %s) : (!tmem_2x128x4xf8E8M0FNU, index) -> !tmem_128x4xf8E8M0FNU
        "tcgen05.cp"(%ta, %sas) {shape = "32x128b", multicast = "warpx4"} : (!tmem_128x4xf8E8M0FNU, !smem_32x16xi8_k_none) -> ()
        "tcgen05.cp"(%tb, %sbs) {shape = "32x128b", multicast = "warpx4"} : (!tmem_128x4xf8E8M0FNU, !smem_32x16xi8_k_none) -> ()
        %accumulate = arith.cmpi ne, %kb, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 0 : i64}
            : (!tmem_256x128xf32, !smem_128x128xf8E4M3FN, !smem_64x128xf8E4M3FN, i1, !tmem_128x4xf8E8M0FNU, !tmem_128x4xf8E8M0FNU) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 32 : i64}
            : (!tmem_256x128xf32, !smem_128x128xf8E4M3FN, !smem_64x128xf8E4M3FN, i1, !tmem_128x4xf8E8M0FNU, !tmem_128x4xf8E8M0FNU) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 64 : i64}
            : (!tmem_256x128xf32, !smem_128x128xf8E4M3FN, !smem_64x128xf8E4M3FN, i1, !tmem_128x4xf8E8M0FNU, !tmem_128x4xf8E8M0FNU) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 96 : i64}
            : (!tmem_256x128xf32, !smem_128x128xf8E4M3FN, !smem_64x128xf8E4M3FN, i1, !tmem_128x4xf8E8M0FNU, !tmem_128x4xf8E8M0FNU) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    "tcgen05.role"() ({
      scf.for %col = %c0 to %c128 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tmem_256x128xf32, index) -> !frag_256x32xf32
        %out = "tcgen05.frag_map"(%frag) ({
        ^bb0(%x: f32, %row: index, %c: index):
          %y = arith.truncf %x : f32 to bf16
          gpu.yield %y : bf16
        }) : (!frag_256x32xf32) -> !frag_256x32xbf16
        "tcgen05.store_fragment"(%out, %C, %col, %n, %m0, %n0, %m, %n)
            {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}
            : (!frag_256x32xbf16, !gptr, index, index, index, index, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
