// How a CTA pair splits a TMA-loaded tile of scale factors (tcgen05_lower/
// pair_scale_tiles.py, docs/cta-pairs.md "Scale factors in a CTA pair"): a tile that
// tcgen05.cp copies only into MMAs' scale_A buffers is the CTA's slice (its rows' A
// scales), only into scale_B buffers the whole tile in each CTA (tmem-facts section 3:
// each CTA holds the A scales of its own rows and the B scales of all N). Any other tile
// no MMA reads as A or B has no split. Expected by hand from that rule.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// The scale tiles of a pair's block-scaled MMA, one per operand: accepted.
func.func @pair_scale_tiles_accepted(%A: !llvm.ptr<1>,
    %tmSF: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "SF", box = array<i64: 16, 32>, swizzle = "none"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %sa = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 16], i8, "K", "none">
  %sb = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 16], i8, "K", "none">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %ta = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  %tb = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 2048 : i64} : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tmSF, %sa, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.tma_load"(%tmSF, %sb, %m, %c0, %c32) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.cp"(%ta, %sa) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
  "tcgen05.cp"(%tb, %sb) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
  "tcgen05.mma"(%d, %a, %b, %false, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 0 : i64} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
  return
}

// -----

// One tile copied into the buffer an MMA reads as both scale_A and scale_B: the CTA's
// rows (A) or all N (B)? No split.
func.func @pair_scale_tile_for_both_operands(%A: !llvm.ptr<1>,
    %tmSF: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "SF", box = array<i64: 16, 32>, swizzle = "none"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 16], i8, "K", "none">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 1024 : i64} : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{in a cta_group::2 kernel a shared-memory tile is loaded as this CTA's slice of an MMA operand (rows rank * R .., docs/cta-pairs.md), but no tcgen05.mma reads this tile as A or B, so how the pair splits it is not defined (only a TMA-loaded tile that tcgen05.cp.cta_group::2 copies into MMAs' scale_A buffers only, or scale_B buffers only, has a split: the CTA's rows, or the whole tile in each CTA; 9.7.16.9.2, tmem-facts section 3)}}
  "tcgen05.tma_load"(%tmSF, %s, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.cp"(%t, %s) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
  "tcgen05.mma"(%d, %a, %b, %false, %t, %t) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 0 : i64} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
  return
}

// -----

// A copied tile whose TMEM buffer no MMA reads as a scale (the copy's data is read by
// tcgen05.ld only): no split.
func.func @pair_copied_tile_not_a_scale(%A: !llvm.ptr<1>,
    %tmSF: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "SF", box = array<i64: 16, 32>, swizzle = "none"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 16], i8, "K", "none">
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 4], f32>
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 1024 : i64} : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{no tcgen05.mma reads this tile as A or B, so how the pair splits it is not defined}}
  "tcgen05.tma_load"(%tmSF, %s, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.cp"(%t, %s) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[256, 4], f32>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
  return
}

// -----

// A scale_B tile filled by smem_fill: fills split by rank like A's slices (lowering/
// smem.py), and no fill is planned for a whole tile in each CTA.
func.func @pair_scale_tile_filled(%S: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %sa = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 16], i8, "K", "none">
  %sb = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 16], i8, "K", "none">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %ta = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  %tb = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  // expected-error @+1 {{a shared-memory tile is filled as this CTA's slice of an MMA operand}}
  "tcgen05.smem_fill"(%S, %sb, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index) -> ()
  "tcgen05.cp"(%ta, %sa) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
  "tcgen05.cp"(%tb, %sb) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
  "tcgen05.mma"(%d, %a, %b, %false, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 0 : i64} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
  return
}
