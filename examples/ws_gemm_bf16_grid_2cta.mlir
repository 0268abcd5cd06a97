// The flagship: a persistent, warp-specialized bf16 GEMM on CTA pairs (cta_group::2) in
// clusters, TMA-fed through a 4-stage shared-memory ring with multicast across the cluster,
// a double-buffered accumulator, a tile scheduler, and run-time M, N, K with edge tiles,
// written with NO synchronization (tcgen05-insert-sync writes it all):
//   C (M x N, f32) = A (M x K, bf16) x B^T, B (N x K, bf16), all row-major (K contiguous,
//   so K must be a multiple of 8: TMA's 16-byte strides).
//
// Tiles. A CTA pair computes 256 x 256 tiles of C with M = 256, N = 256 MMAs (Layout A,
// 9.7.16.10.5.1): the CTA of rank r (%cluster_ctarank & 1) holds rows 128 r .. of the
// tile's A rows and of C, and rows 128 r .. of its 256 B rows (N / 2), in its own shared
// and tensor memory. A cluster of cx x cy CTAs is cx / 2 pairs along x (M) by cy along y
// (N): it computes a cluster tile of (cx / 2) x cy pair tiles, whose pairs along y share
// A rows and whose pairs along x share B rows. The kernel attribute's cluster is 2 x 1
// (one pair, no multicast); benchmarks/strategies/grid_2cta.py and tests/test_flagship.py
// make the 2 x 2 variant (two pairs along y: A multicast along y, multicast = "y") and the
// 4 x 1 one (two pairs along x: B multicast along x, multicast = "x") by substituting the
// cluster, the grid's y and the loads' multicast attributes.
//
// Tile scheduler. Persistent: the grid is ctas x cy CTAs (ctas a multiple of cx, e.g. 148
// for one CTA per SM), ncl = ctas / cx clusters; cluster cid takes cluster tiles cid,
// cid + ncl, .. of the ctm x ctn cluster tiles (ctm = ceil(ceil(M / 256) / (cx / 2)),
// ctn = ceil(ceil(N / 256) / cy)), in the order the raster argument chooses: 0 walks M
// first (cluster tile c is (c mod ctm, c / ctm)), 1 walks N first ((c / ctn, c mod ctn)).
// Every pair of a cluster walks the same cluster tiles, so the multicast loads of a
// stage always have every receiver waiting for them; a pair whose tile lies past M or N
// loads zeros (TMA fills the box outside the tensor with zeros) and stores nothing.
//
// Roles, each written as the loops it runs (tile loop i, K-block loop kb):
//   load     (warp 0):    the TMA loads of the CTA's slices of the A and B blocks into
//                         ring stage s (no mbarrier operand: the compiler picks it);
//   mma      (warp 1):    into accumulator stage j = i mod 2, per K block four K = 16
//                         MMAs for the pair out of stage s (the even CTA issues them);
//   epilogue (warps 4-7): per tile, the CTA's 128 TMEM lanes of stage j, 32 columns at a
//                         time (tcgen05.ld), stored to C inside M x N only.
// K block kb of tile i is the ring's use it = i kblocks + kb (stage it mod 4); the trip
// counts (tiles, K blocks) are run-time values, so tcgen05-insert-sync writes the stage
// indices from its own counters and the producer tail from the run-time number of uses.
//
// Shared memory per CTA: the A and B rings [4, 128, 64] bf16 (128B swizzle, K-major: the
// boxes {64, 128}), 32768 bytes a stage, 131072 in all. TMEM per CTA: the accumulator
// [2, 256, 256] f32 (its 128 lanes of each stage), 512 columns.
func.func @ws_gemm_bf16_grid_2cta(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %M: i32, %N: i32, %K: i32, %raster: i32, %ctas: i32,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 128>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64,
                                  cluster = array<i32: 2, 1>, grid = ["ctas", "1"]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c255 = arith.constant 255 : index
  %c256 = arith.constant 256 : index
  %c0_i32 = arith.constant 0 : i32
  %true = arith.constant true
  %m = arith.index_castui %M : i32 to index
  %n = arith.index_castui %N : i32 to index
  %k_size = arith.index_castui %K : i32 to index
  %along_n = arith.cmpi ne, %raster, %c0_i32 : i32

  // The cluster's shape and this CTA's place: pairs along x (cx / 2) and y (cy), this
  // pair's position in the cluster, the cluster's id and the number of clusters.
  %cx = gpu.cluster_dim_blocks x
  %pairs_y = gpu.cluster_dim_blocks y
  %pairs_x = arith.divui %cx, %c2 : index
  %px = gpu.cluster_block_id x
  %pair_x = arith.divui %px, %c2 : index
  %pair_y = gpu.cluster_block_id y
  %cid = gpu.cluster_id x
  %nclusters = gpu.cluster_dim x

  // The tile scheduler's counts: pair tiles along M and N, cluster tiles, and this
  // cluster's share of them (cluster tiles cid, cid + ncl, ..).
  %m_tiles = arith.ceildivui %m, %c256 : index
  %n_tiles = arith.ceildivui %n, %c256 : index
  %ctm = arith.ceildivui %m_tiles, %pairs_x : index
  %ctn = arith.ceildivui %n_tiles, %pairs_y : index
  %cluster_tiles = arith.muli %ctm, %ctn : index
  %has_tiles = arith.cmpi ult, %cid, %cluster_tiles : index
  %rest = arith.subi %cluster_tiles, %cid : index
  %share = arith.ceildivui %rest, %nclusters : index
  %count = arith.select %has_tiles, %share, %c0 : index
  %kblocks = arith.ceildivui %k_size, %c64 : index

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 256, 256], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0 of each CTA; one thread issues the TMA loads of its slices.
    "tcgen05.role"() ({
      scf.for %i = %c0 to %count step %c1 {
        // Cluster tile c of this cluster's sequence, in the rasterization order, and
        // this pair's 256 x 256 tile of C in it (rows m0 .., columns n0 ..).
        %c_step = arith.muli %i, %nclusters : index
        %c = arith.addi %cid, %c_step : index
        %c_mod_m = arith.remui %c, %ctm : index
        %c_div_m = arith.divui %c, %ctm : index
        %c_mod_n = arith.remui %c, %ctn : index
        %c_div_n = arith.divui %c, %ctn : index
        %cm = arith.select %along_n, %c_div_n, %c_mod_m : index
        %cn = arith.select %along_n, %c_mod_n, %c_div_m : index
        %tm_base = arith.muli %cm, %pairs_x : index
        %tile_m = arith.addi %tm_base, %pair_x : index
        %tn_base = arith.muli %cn, %pairs_y : index
        %tile_n = arith.addi %tn_base, %pair_y : index
        %m0 = arith.muli %tile_m, %c256 : index
        %n0 = arith.muli %tile_n, %c256 : index
        %base = arith.muli %i, %kblocks : index
        scf.for %kb = %c0 to %kblocks step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          "tcgen05.tma_load"(%tmA, %as, %k, %m0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1; its elected thread in the even CTA issues the pair's MMAs.
    "tcgen05.role"() ({
      scf.for %i = %c0 to %count step %c1 {
        %j = arith.remui %i, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 256, 256], f32>, index) -> !tcgen05.tmem<[256, 256], f32>
        %base = arith.muli %i, %kblocks : index
        scf.for %kb = %c0 to %kblocks step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[256, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[256, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[256, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[256, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7 of each CTA (warp w reads lanes 32 (w % 4) .. of its own
    // CTA's TMEM: its 128 rows of the tile), storing inside M x N only.
    "tcgen05.role"() ({
      scf.for %i = %c0 to %count step %c1 {
        // Cluster tile c of this cluster's sequence, in the rasterization order, and
        // this pair's 256 x 256 tile of C in it (rows m0 .., columns n0 ..).
        %c_step = arith.muli %i, %nclusters : index
        %c = arith.addi %cid, %c_step : index
        %c_mod_m = arith.remui %c, %ctm : index
        %c_div_m = arith.divui %c, %ctm : index
        %c_mod_n = arith.remui %c, %ctn : index
        %c_div_n = arith.divui %c, %ctn : index
        %cm = arith.select %along_n, %c_div_n, %c_mod_m : index
        %cn = arith.select %along_n, %c_mod_n, %c_div_m : index
        %tm_base = arith.muli %cm, %pairs_x : index
        %tile_m = arith.addi %tm_base, %pair_x : index
        %tn_base = arith.muli %cn, %pairs_y : index
        %tile_n = arith.addi %tn_base, %pair_y : index
        %m0 = arith.muli %tile_m, %c256 : index
        %n0 = arith.muli %tile_n, %c256 : index
        %j = arith.remui %i, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 256, 256], f32>, index) -> !tcgen05.tmem<[256, 256], f32>
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[256, 256], f32>, index) -> !tcgen05.frag<[256, 32], f32>
          "tcgen05.store_fragment"(%frag, %C, %col, %n, %m0, %n0, %m, %n)
              {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}
              : (!tcgen05.frag<[256, 32], f32>, !llvm.ptr<1>, index, index, index, index,
                 index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
