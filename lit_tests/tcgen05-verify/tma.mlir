// Diagnostics of tcgen05-verify on TMA loads (tcgen05.tma_load, tcgen05.mbarrier_expect_tx;
// tcgen05_lower/tma.py, docs/tma.md). Expected by hand from the rules: the tensor map's box
// is the tile ({K, rows} K-major, {rows, K} MN-major, innermost first) and its swizzle
// the tile's (PTX ISA 5.5.6, Table 41); one box writes a tile whose contiguous extent (K,
// or M / N of an MN-major tile) is one 32/64/128-byte swizzle span; a box dimension is 1..256 elements; an expect_tx expects exactly the bytes of the
// loads that follow it on its mbarrier (9.7.13.15): 128 x 64 x 2 = 16384 here.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics | FileCheck %s

// A well-formed load is accepted (bytes computed or written right).
// CHECK-LABEL: func.func @valid
// CHECK: "tcgen05.tma_load"
func.func @valid(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 16384 : i64} : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @box_mismatch(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{the tensor map's box [64, 64] is not the tile's [64, 128] (innermost first: K = 64, rows = 128)}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @swizzle_mismatch(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "64B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{the tensor map's swizzle "64B" is not the tile's "128B" (PTX ISA 5.5.6, Table 41)}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @mn_major(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 128, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "MN", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{a K row of the MN-major tile is 256 bytes (MN = 128 of bf16); one TMA box writes the 128B-swizzled MN-major layout only when that is one 128-byte swizzle span}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "MN", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @no_swizzle(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "none"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "none">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{the tile's swizzle is "none"; a TMA box writes the tile's layout only for "128B", "64B" or "32B", or without swizzle for a K-major tile of 16-byte rows (docs/tma.md)}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "none">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

// Without swizzle, a K-major tile of 16-byte rows (one column of core matrices) is its
// rows one after another (9.7.16.3.3: row r at 16 r, SBO = 128 between 8-row groups):
// the box {16, 32} as TMA writes it without swizzle. Block-scale factors come in such
// tiles (examples/ws_gemm_mxf8_blockscaled.mlir); this load is accepted.
func.func @no_swizzle_16_byte_rows(%SF: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "SF", box = array<i64: 16, 32>, swizzle = "none"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 16], i8, "K", "none">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

func.func @row_wider_than_span(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 128, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{a row of the tile is 256 bytes (K = 128 of bf16); one TMA box writes the 128B-swizzled K-major layout only when that is one 128-byte swizzle span}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 128], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @box_too_large(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 512>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[512, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{box [64, 512]: every box dimension must be 1 to 256 elements (cuTensorMapEncodeTiled)}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[512, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @coordinates(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{1 coordinate(s) for a 2-dimensional tensor map: one per dimension, innermost first}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index) -> ()
  return
}

// -----

func.func @bad_attribute(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{tensor-map parameter: tcgen05.tensor_map.box must be an array<i64: inner, outer>}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @generic_pointer(%A: !llvm.ptr<1>,
    %g: !llvm.ptr {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{the tensor-map parameter is !llvm.ptr; it must be !llvm.ptr<1>, the global address of the CUtensorMap (docs/tma.md)}}
  "tcgen05.tma_load"(%g, %t, %m, %c0, %c0) : (!llvm.ptr, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @not_a_parameter(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{the tensor map of tcgen05.tma_load must be a kernel parameter with the argument attribute tcgen05.tensor_map = {tensor = "<array parameter>", box = array<i64: ...>, swizzle = ...} (docs/tma.md)}}
  "tcgen05.tma_load"(%A, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @no_expect_tx(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  // expected-error @+1 {{no tcgen05.mbarrier_expect_tx on this mbarrier precedes the tma_load in its block (after the last wait or commit on it): the phase would complete before the copy lands, or never (PTX ISA 9.7.13.15)}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @expect_tx_before_wait(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{no tcgen05.mbarrier_expect_tx on this mbarrier precedes the tma_load in its block (after the last wait or commit on it): the phase would complete before the copy lands, or never (PTX ISA 9.7.13.15)}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @wrong_bytes(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  // expected-error @+1 {{bytes = 32768 is not the 16384 bytes of the 1 tcgen05.tma_load op(s) that follow it on this mbarrier in its block: a phase completes when its transaction count reaches zero (PTX ISA 9.7.13.15)}}
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 32768 : i64} : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @nothing_to_expect(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  // expected-error @+1 {{no tcgen05.tma_load follows this mbarrier_expect_tx on its mbarrier in its block, so its byte count cannot be computed: write bytes = N}}
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

func.func @too_many_bytes(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  // expected-error @+1 {{bytes = 1048576 exceeds the transaction count range of an mbarrier (2^20 - 1, PTX ISA 9.7.13.15.2)}}
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 1048576 : i64} : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// In a CTA pair, each CTA loads its slice of an MMA operand (docs/cta-pairs.md): a tile no
// MMA reads as A or B has no such split.
func.func @pair_tile_no_mma_reads(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{in a cta_group::2 kernel a shared-memory tile is loaded as this CTA's slice of an MMA operand (rows rank * R .., docs/cta-pairs.md), but no tcgen05.mma reads this tile as A or B}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

// Both CTAs' loads complete on the even CTA's mbarrier, so a written byte count is both
// CTAs' bytes: 2 x (16384 + 8192) = 49152 here, not one CTA's 24576.
func.func @pair_expect_tx_one_ctas_bytes(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  // expected-error @+1 {{bytes = 24576 is not the 49152 bytes of the 2 tcgen05.tma_load op(s) that follow it on this mbarrier in its block in each CTA of the pair (both complete on the even CTA's mbarrier, docs/cta-pairs.md)}}
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 24576 : i64} : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tmA, %a, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.tma_load"(%tmB, %b, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mma"(%d, %a, %b, %false) {kind = "f16"} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// The same with both CTAs' bytes: accepted.
// CHECK-LABEL: func.func @pair_expect_tx_both_ctas_bytes
// CHECK: "tcgen05.mbarrier_expect_tx"(%{{.*}}) {bytes = 49152 : i64}
func.func @pair_expect_tx_both_ctas_bytes(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 49152 : i64} : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tmA, %a, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.tma_load"(%tmB, %b, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mma"(%d, %a, %b, %false) {kind = "f16"} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// An MN-major tile whose MN extent is one swizzle span (64 bf16 = 128 bytes): the box is
// {MN, K} = {64, 32}.
// CHECK-LABEL: func.func @mn_major_valid
// CHECK: "tcgen05.tma_load"
func.func @mn_major_valid(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 32>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], bf16, "MN", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) {bytes = 4096 : i64} : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[64, 32], bf16, "MN", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

// The same tile with the K-major order of the box.
func.func @mn_major_box(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 32, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], bf16, "MN", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{the tensor map's box [32, 64] is not the tile's [64, 32] (innermost first: rows = 64, K = 32: the tile is MN-major)}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[64, 32], bf16, "MN", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

// A tile of f64 (no element type of any MMA kind): refused where it is declared, and the
// TMA rules, which need its box bytes, are not checked (before, an internal error; found
// by the fuzz campaign of tests/test_fuzz.py).
func.func @f64_tile(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 16, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{shared-memory tile element type f64 is not a tcgen05 operand type}}
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 16], f64, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[64, 16], f64, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

// A stage of a ring in a pair: the split is defined when an MMA reads some stage of the
// ring as A or B (through any smem_stage view); here nothing reads the ring.
func.func @pair_ring_no_mma_reads(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %ring = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %t = "tcgen05.smem_stage"(%ring, %c0) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{in a cta_group::2 kernel a shared-memory tile is loaded as this CTA's slice of an MMA operand}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

// A pair's TMA loads and expect_tx signal the even CTA's mbarrier only; a commit that
// also signals the odd CTA's would leave the CTAs waiting on it ambiguous.
func.func @pair_tma_and_multicast_commit(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tmA, %a, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mma"(%d, %a, %b, %false) {kind = "f16"} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  // expected-error-re @+1 {{this tcgen05.commit signals multicast_mask = 0b11, but the tcgen05.{{(mbarrier_expect_tx|tma_load)}} at line {{[0-9]+}} signals the same mbarrier in the even CTA only (a CTA pair's TMA loads complete there, docs/cta-pairs.md): the CTAs waiting on one mbarrier must be those every signal reaches (9.7.16.12.1)}}
  "tcgen05.commit"(%m) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// A TMA load writes 4-bit elements packed two per byte (the bytes of the array its map
// describes), as kind::mxf4 / mxf4nvf4 read them (9.7.16.10.4.6); kind::f8f6f4 reads E2M1
// in 8-bit containers (9.7.16.10.4.4), a layout one box does not write.
func.func @packed_tile_read_unpacked(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{a TMA load writes f4E2M1FN packed two per byte, as kind::mxf4 and kind::mxf4nvf4 read it (9.7.16.10.4.6); kind::f8f6f4 reads this tile's elements in 8-bit containers (9.7.16.10.4.4)}}
  "tcgen05.tma_load"(%tm, %a, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mma"(%d, %a, %b, %f) {kind = "f8f6f4"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 128], f4E2M1FN, "K", "128B">, i1) -> ()
  return
}
