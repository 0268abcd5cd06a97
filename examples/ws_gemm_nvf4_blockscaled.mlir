// A block-scaled (NVFP4) warp-specialized GEMM, TMA-fed, written with NO synchronization:
//   C (M x N, bf16) = (A * SFA) x (B * SFB)^T, A (M x K) and B (N x K) e2m1, row-major
// (K contiguous) and packed two per byte (element 2j of a row in the low nibble of byte
// j, 9.7.16.10.4.6), one ue4m3 scale factor per 16 consecutive K elements of a row
// (kind::mxf4nvf4, scale_vec::4X = block 16: Tables 44, 54 and 55).
// M, N and K are kernel arguments; the grid has one CTA per 128 x 128 tile of C, and each
// CTA walks K in ceildiv(K, 128) blocks of 128 elements (64 bytes of a packed row). K must
// be at least 1 and a multiple of 32 (the TMA row stride of A and B is K / 2 bytes, a
// multiple of 16); M and N are any. TMA writes zeros outside A and B, so an edge tile's
// MMAs add zeros; the epilogue stores only inside C.
//
// The same three roles as examples/ws_gemm_mxf8_blockscaled.mlir. A K block is two
// K = 64 MMAs (Table 39); with .block16 each reads 4 factors per row, all four bytes of a
// TMEM cell (only scale-factor ID 0 selects them, 9.7.16.10.7.2), so each MMA j has its
// own scale buffers sfa<j> and sfb<j>, [2, 128, 4] rings of ue4m3 (f8E4M3), each filled
// per stage by tcgen05.cp.32x128b.warpx4 from a [32, 16] byte tile of its own ring.
//
// A and B are loaded as the arrays of their bytes (tensor maps of 8-bit elements): the
// box {64, 128} and the innermost coordinate count bytes, the 64 bytes of a K block's
// packed rows, one 64B swizzle span (docs/tma.md). The scale factors are in the blocked
// layout tcgen05.cp copies without rearranging (tmem-facts section 3): SFA is
// [ceildiv(M, 128) * ceildiv(K, 128) * 64, 16] bytes, and the 512 bytes of rows
// ((t * ceildiv(K, 128) + kb) * 2 + h) * 32 .. + 31 are half h (MMA h) of tile t's K block
// kb: row r % 32, byte 4 ((r % 128) div 32) + j holds the factor of row r, elements
// 128 kb + 64 h + 16 j .. + 15 (SFB likewise for B's rows).
//
// tcgen05-insert-sync writes the protocol (the mxf8 example's, with four copies per
// stage before the stage's MMAs). The reference is
// examples/ws_gemm_nvf4_blockscaled.check.py.
func.func @ws_gemm_nvf4_blockscaled(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %SFA: !llvm.ptr<1>,
    %SFB: !llvm.ptr<1>, %C: !llvm.ptr<1>, %M: i32, %N: i32, %K: i32,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "64B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 128>,
                                              swizzle = "64B"}},
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
  %c64 = arith.constant 64 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %m = arith.index_castui %M : i32 to index
  %n = arith.index_castui %N : i32 to index
  %k_size = arith.index_castui %K : i32 to index
  %tile_n = gpu.block_id x
  %tile_m = gpu.block_id y
  %m0 = arith.muli %tile_m, %c128 : index
  %n0 = arith.muli %tile_n, %c128 : index
  // K blocks of 128 elements (64 bytes of packed e2m1 per row).
  %kb_tmp = arith.addi %k_size, %c127 : index
  %kblocks = arith.divui %kb_tmp, %c128 : index

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 128], f4E2M1FN, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 128], f4E2M1FN, "K", "64B">
  %sa0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 32, 16], i8, "K", "none">
  %sa1 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 32, 16], i8, "K", "none">
  %sb0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 32, 16], i8, "K", "none">
  %sb1 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 32, 16], i8, "K", "none">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  %sfa0 = "tcgen05.tmem_buffer"() {name = "sfa0"} : () -> !tcgen05.tmem<[2, 128, 4], f8E4M3>
  %sfa1 = "tcgen05.tmem_buffer"() {name = "sfa1"} : () -> !tcgen05.tmem<[2, 128, 4], f8E4M3>
  %sfb0 = "tcgen05.tmem_buffer"() {name = "sfb0"} : () -> !tcgen05.tmem<[2, 128, 4], f8E4M3>
  %sfb1 = "tcgen05.tmem_buffer"() {name = "sfb1"} : () -> !tcgen05.tmem<[2, 128, 4], f8E4M3>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads of a K block into stage s.
    "tcgen05.role"() ({
      scf.for %kb = %c0 to %kblocks step %c1 {
        %s = arith.remui %kb, %c2 : index
        // The K block's first byte of a packed row: 64 kb (the maps count bytes).
        %kbyte = arith.muli %kb, %c64 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 128], f4E2M1FN, "K", "64B">, index) -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 128], f4E2M1FN, "K", "64B">, index) -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
        %sa0s = "tcgen05.smem_stage"(%sa0, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sa1s = "tcgen05.smem_stage"(%sa1, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sb0s = "tcgen05.smem_stage"(%sb0, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sb1s = "tcgen05.smem_stage"(%sb1, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        // Scale-factor rows: half h of K block kb of tile t is the 32 rows from
        // ((t * kblocks + kb) * 2 + h) * 32 (the blocked layout above).
        %fa0 = arith.muli %tile_m, %kblocks : index
        %fa1 = arith.addi %fa0, %kb : index
        %fa2 = arith.muli %fa1, %c64 : index
        %fa3 = arith.addi %fa2, %c32 : index
        %fb0 = arith.muli %tile_n, %kblocks : index
        %fb1 = arith.addi %fb0, %kb : index
        %fb2 = arith.muli %fb1, %c64 : index
        %fb3 = arith.addi %fb2, %c32 : index
        "tcgen05.tma_load"(%tmA, %as, %kbyte, %m0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %kbyte, %n0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, index, index) -> ()
        "tcgen05.tma_load"(%tmSFA, %sa0s, %c0, %fa2) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index, index) -> ()
        "tcgen05.tma_load"(%tmSFA, %sa1s, %c0, %fa3) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index, index) -> ()
        "tcgen05.tma_load"(%tmSFB, %sb0s, %c0, %fb2) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index, index) -> ()
        "tcgen05.tma_load"(%tmSFB, %sb1s, %c0, %fb3) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1. Per K block: the four scale-factor copies, then the two K = 64
    // MMAs (.block16: four factors each, all of a cell: scale-factor ID 0 of their own
    // buffers, 9.7.16.10.7.2).
    "tcgen05.role"() ({
      scf.for %kb = %c0 to %kblocks step %c1 {
        %s = arith.remui %kb, %c2 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 128], f4E2M1FN, "K", "64B">, index) -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 128], f4E2M1FN, "K", "64B">, index) -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
        %sa0s = "tcgen05.smem_stage"(%sa0, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sa1s = "tcgen05.smem_stage"(%sa1, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sb0s = "tcgen05.smem_stage"(%sb0, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sb1s = "tcgen05.smem_stage"(%sb1, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sfa0s = "tcgen05.tmem_stage"(%sfa0, %s) : (!tcgen05.tmem<[2, 128, 4], f8E4M3>, index) -> !tcgen05.tmem<[128, 4], f8E4M3>
        %sfa1s = "tcgen05.tmem_stage"(%sfa1, %s) : (!tcgen05.tmem<[2, 128, 4], f8E4M3>, index) -> !tcgen05.tmem<[128, 4], f8E4M3>
        %sfb0s = "tcgen05.tmem_stage"(%sfb0, %s) : (!tcgen05.tmem<[2, 128, 4], f8E4M3>, index) -> !tcgen05.tmem<[128, 4], f8E4M3>
        %sfb1s = "tcgen05.tmem_stage"(%sfb1, %s) : (!tcgen05.tmem<[2, 128, 4], f8E4M3>, index) -> !tcgen05.tmem<[128, 4], f8E4M3>
        "tcgen05.cp"(%sfa0s, %sa0s) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
        "tcgen05.cp"(%sfa1s, %sa1s) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
        "tcgen05.cp"(%sfb0s, %sb0s) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
        "tcgen05.cp"(%sfb1s, %sb1s) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
        // The first MMA of the first K block overwrites the accumulator.
        %accumulate = arith.cmpi ne, %kb, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate, %sfa0s, %sfb0s) {kind = "mxf4nvf4", scale_vec = "4X", k_offset = 0 : i64, scale_a_id = 0 : i64, scale_b_id = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, i1, !tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.tmem<[128, 4], f8E4M3>) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %sfa1s, %sfb1s) {kind = "mxf4nvf4", scale_vec = "4X", k_offset = 64 : i64, scale_a_id = 0 : i64, scale_b_id = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, i1, !tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.tmem<[128, 4], f8E4M3>) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup; bf16 (round to nearest even), stored only
    // inside C.
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
