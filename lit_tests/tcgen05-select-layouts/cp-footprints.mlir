// tcgen05.cp footprints in tcgen05-select-layouts: the destination owns every cell the
// copy writes (9.7.16.2.3: 4 columns per lane for the 128-bit shapes, 8 for the 256-bit
// ones; 9.7.16.9.2: every shape but .4x256b writes all four 32-lane quarters).
// RUN: tcgen05-opt %s -p tcgen05-select-layouts --split-input-file --verify-diagnostics

// benchmarks/tmem/corpus/22_a_tmem_m64_tied.mlir as it was, with the copies that fill its
// M = 64 A operands: .64x128b.warpx2 writes 32 lanes of each quarter, Layout F reads A on
// 16 (9.7.16.10.5), so the copy would write the lanes the plan gives the other A, and
// its 64 rows land twice (in two quarters each) where the MMA needs 64 distinct rows.
!acc = !tcgen05.tmem<[64, 128], f32>
!atm = !tcgen05.tmem<[64, 32], bf16>
!sa = !tcgen05.smem<[64, 8], bf16, "K", "none">
!tb = !tcgen05.smem<[128, 32], bf16, "K", "64B">
!frag = !tcgen05.frag<[64, 32], f32>
func.func @a_tmem_m64_tied(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %sa = "tcgen05.smem_buffer"() : () -> !sa
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %a0 = "tcgen05.tmem_buffer"() {name = "a0"} : () -> !atm
  %a1 = "tcgen05.tmem_buffer"() {name = "a1"} : () -> !atm
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this A operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%a0, %sa) {shape = "64x128b", multicast = "warpx2::02_13", column = 0 : i64} : (!atm, !sa) -> ()
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this A operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%a0, %sa) {shape = "64x128b", multicast = "warpx2::02_13", column = 4 : i64} : (!atm, !sa) -> ()
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this A operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%a0, %sa) {shape = "64x128b", multicast = "warpx2::02_13", column = 8 : i64} : (!atm, !sa) -> ()
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this A operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%a0, %sa) {shape = "64x128b", multicast = "warpx2::02_13", column = 12 : i64} : (!atm, !sa) -> ()
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this A operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%a1, %sa) {shape = "64x128b", multicast = "warpx2::02_13", column = 0 : i64} : (!atm, !sa) -> ()
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this A operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%a1, %sa) {shape = "64x128b", multicast = "warpx2::02_13", column = 4 : i64} : (!atm, !sa) -> ()
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this A operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%a1, %sa) {shape = "64x128b", multicast = "warpx2::02_13", column = 8 : i64} : (!atm, !sa) -> ()
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this A operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%a1, %sa) {shape = "64x128b", multicast = "warpx2::02_13", column = 12 : i64} : (!atm, !sa) -> ()
  "tcgen05.mma"(%acc0, %a0, %b, %f) {kind = "f16"} : (!acc, !atm, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a1, %b, %f) {kind = "f16"} : (!acc, !atm, !tb, i1) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// benchmarks/tmem/corpus/19_sparse_m64_pair.mlir as it was: the sparse metadata of a
// Layout F MMA sits on the same 16 lanes per quarter as its D.
!acc = !tcgen05.tmem<[64, 128], f32>
!ta = !tcgen05.smem<[64, 64], bf16, "K", "64B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!meta = !tcgen05.tmem<[64, 2], i32>
!smeta = !tcgen05.smem<[64, 16], i8, "K", "none">
!frag = !tcgen05.frag<[64, 32], f32>
func.func @sparse_m64_pair(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %sm = "tcgen05.smem_buffer"() : () -> !smeta
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %meta0 = "tcgen05.tmem_buffer"() {name = "meta0"} : () -> !meta
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %meta1 = "tcgen05.tmem_buffer"() {name = "meta1"} : () -> !meta
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this sparse-metadata operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%meta0, %sm) {shape = "64x128b", multicast = "warpx2::02_13"} : (!meta, !smeta) -> ()
  // expected-error @+1 {{tcgen05.cp.64x128b.warpx2::02_13 writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are multicast to the warps' quarters, or go to all 128 lanes), but Layout F holds this sparse-metadata operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%meta1, %sm) {shape = "64x128b", multicast = "warpx2::02_13"} : (!meta, !smeta) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f, %meta0) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f, %meta1) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// A buffer whose shape is its cells (here an accumulator, 64 columns) must hold the copy:
// .128x256b at column 60 writes columns 60-67.
func.func @cp_past_the_buffer() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "none">
  "tcgen05.cp"(%t, %s) {shape = "128x256b", column = 56 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], i8, "K", "none">) -> ()
  // expected-error @+1 {{tcgen05.cp.128x256b at column 60 writes columns [60, 68) of its destination (9.7.16.2.3: 8 columns per lane), which has only 64: the copy would write cells the plan gives to other buffers}}
  "tcgen05.cp"(%t, %s) {shape = "128x256b", column = 60 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], i8, "K", "none">) -> ()
  return
}

// -----

// .4x256b writes 4 lanes from its taddr: it cannot place a Layout F accumulator's rows in
// every quarter either.
func.func @cp_4x256b_into_layout_f(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 32], i8, "K", "none">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{tcgen05.cp.4x256b writes 4 lanes from its taddr, one quarter only, but Layout F holds this accumulator operand (64 rows) on 16 lanes of each quarter (9.7.16.10.5)}}
  "tcgen05.cp"(%d, %s) {shape = "4x256b"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[4, 32], i8, "K", "none">) -> ()
  "tcgen05.mma"(%d, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[64, 64], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}
