// tcgen05-select-layouts: bad layout requests and warpgroup accesses it cannot plan, each
// a located diagnostic naming the rule. Run without tcgen05-verify so that the pass's own
// checks are the ones exercised.
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts' --split-input-file --verify-diagnostics


// A request for another layout than the MMA's (M = 128, cta_group::1: Layout D).
func.func @request_against_mma() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %sa = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %sb = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  // expected-error @+1 {{this buffer asks for Layout G but the MMA at line 14 uses it with Layout D}}
  %acc = "tcgen05.tmem_buffer"() {layout = "G"} : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.mma"(%acc, %sa, %sb, %f) {kind = "f16"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// Layouts A-C belong to cta_group::2 MMAs (9.7.16.10.5).
func.func @pair_layout_in_single_cta() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{layout = "B": Layout B is a layout of cta_group::2 MMAs; this kernel is cta_group::1 (9.7.16.10.5)}}
  %buf = "tcgen05.tmem_buffer"() {layout = "B"} : () -> !tcgen05.tmem<[128, 64], f32>
  return
}

// -----

// Layout F is the layout of M = 64.
func.func @request_wrong_m() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{layout = "F": Layout F is the layout of M=64, not M=128 (9.7.16.10.5)}}
  %buf = "tcgen05.tmem_buffer"() {layout = "F"} : () -> !tcgen05.tmem<[128, 64], f32>
  return
}

// -----

func.func @request_unknown() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{unknown data-path layout 'Z'; the layouts are A-G}}
  %buf = "tcgen05.tmem_buffer"() {layout = "Z"} : () -> !tcgen05.tmem<[128, 64], f32>
  return
}

// -----

// Layout G folds N into four column blocks.
func.func @request_unfoldable_n() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{Layout G folds N into N/4 columns, so N=18 must be a multiple of 4}}
  %buf = "tcgen05.tmem_buffer"() {layout = "G"} : () -> !tcgen05.tmem<[32, 18], f32>
  return
}

// -----

// In a cta_group::2 kernel 128 rows are Layout B or C: the program must say which.
func.func @pair_128_rows_ambiguous() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  // expected-error @+1 {{no MMA uses this 128-row buffer, so its layout cannot be chosen: give the tcgen05.tmem_buffer a layout = "A".."G" attribute}}
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  return
}

// -----

// A load of a TMEM value that is not a buffer of this kernel.
func.func @ld_of_argument(%buf: !tcgen05.tmem<[128, 64], f32>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tcgen05.ld of a TMEM value that is not a tcgen05.tmem_buffer result, a tcgen05.tmem_stage of one, or a select, branch or loop value that only such values reach}}
  %f = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  return
}

// -----

// A buffer the MMA reads as A holds packed bf16 pairs, not one element per column.
func.func @ld_of_a_operand() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %at = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], bf16>
  %sb = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "MN", "64B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.mma"(%acc, %at, %sb, %f) {kind = "f16"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "MN", "64B">, i1) -> ()
  // expected-error @+1 {{tcgen05.ld of a buffer the MMA uses as its a operand is not supported yet}}
  %x = "tcgen05.ld"(%at, %c0) : (!tcgen05.tmem<[128, 64], bf16>, index) -> !tcgen05.frag<[128, 64], bf16>
  return
}

// -----

func.func @fragment_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.ld: the fragment has 64 rows but the buffer has 128: a warpgroup access moves whole columns}}
  %f = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[64, 64], f32>
  return
}

// -----

// A constant column that puts the slice past the buffer's end.
func.func @column_out_of_range() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c48 = arith.constant 48 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.ld: columns [48, 80) are outside the buffer's 64 columns}}
  %f = "tcgen05.ld"(%buf, %c48) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// Layout E, N = 64: columns [0, 32) on lanes 0-63 and [32, 64) on lanes 64-127. A
// 16-column slice at column 24 crosses into the second block.
func.func @slice_across_blocks() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c24 = arith.constant 24 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "E"} : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{tcgen05.ld: Layout E keeps columns [j*32, (j+1)*32) of D on separate lanes, so a 16-column slice must lie inside one of them; column 24 cannot be shown to do so (use a constant or a multiple of 16) (9.7.16.10.5)}}
  %f = "tcgen05.ld"(%buf, %c24) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 16], f32>
  return
}

// -----

// A column known only to be a multiple of 8 (an induction variable with step 8) does not
// keep a 16-column slice inside one block.
func.func @slice_unknown_block(%dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c48 = arith.constant 48 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "E"} : () -> !tcgen05.tmem<[64, 64], f32>
  scf.for %col = %c0 to %c48 step %c8 {
    // expected-error @+1 {{this column cannot be shown to do so (use a constant or a multiple of 16)}}
    %f = "tcgen05.ld"(%buf, %col) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 16], f32>
    "tcgen05.store_fragment"(%f, %dst, %col) {ld = 64 : i64} : (!tcgen05.frag<[64, 16], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}

// -----

// A 32-lane message on a half-datapath layout would also move the other lane half.
func.func @shape_for_layout_f() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "F"} : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{Layout F cannot be loaded with .32x32b: a 32-lane message would also move the other 16 lanes of each quarter (9.7.16.8.1)}}
  %f = "tcgen05.ld"(%buf, %c0) {shape = "32x32b"} : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 64], f32>
  return
}

// -----

// Layout F: 16-lane messages move 2 x 2^k columns of each lane.
func.func @odd_width_layout_f() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "F"} : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{.16x32bx2 messages move 2 x 2^k columns (.x1 to .x128), which cannot tile the 15 columns each warp moves (Table 47)}}
  %f = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 15], f32>
  return
}

// -----

// tcgen05.ld.red: one reduced value per row.
func.func @reduced_shape() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.ld_red: the per-row result must be a !tcgen05.frag<[128, 1], f32>}}
  %f, %r = "tcgen05.ld_red"(%buf, %c0) {op = "max"} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 64], f32>, !tcgen05.frag<[128, 2], f32>)
  return
}

// -----

func.func @reduction_op() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.ld_red: op = "add" is not "min" or "max" (9.7.16.8.3 .redOp)}}
  %f, %r = "tcgen05.ld_red"(%buf, %c0) {op = "add"} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 64], f32>, !tcgen05.frag<[128, 1], f32>)
  return
}

// -----

func.func @reduction_abs_of_s32() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], i32>
  // expected-error @+1 {{tcgen05.ld_red: abs = true is only for .f32 data, not .s32 (9.7.16.8.3)}}
  %f, %r = "tcgen05.ld_red"(%buf, %c0) {op = "max", abs = true} : (!tcgen05.tmem<[128, 64], i32>, index) -> (!tcgen05.frag<[128, 64], i32>, !tcgen05.frag<[128, 1], i32>)
  return
}

// -----

func.func @reduction_of_f16() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f16>
  // expected-error @+1 {{tcgen05.ld_red reduces .f32, .u32 or .s32 data, not f16 (9.7.16.8.3)}}
  %f, %r = "tcgen05.ld_red"(%buf, %c0) {op = "max"} : (!tcgen05.tmem<[128, 64], f16>, index) -> (!tcgen05.frag<[128, 64], f16>, !tcgen05.frag<[128, 1], f16>)
  return
}

// -----

// Layout E: a row's columns beyond N/2 are in another warp, which ld.red cannot reach.
func.func @reduction_across_blocks() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "E"} : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{tcgen05.ld.red reduces the columns of each lane; Layout E puts the columns of a row beyond the first 32 on other lanes (another warp's), so a reduced slice must lie inside one block of 32 columns, not span 64 (9.7.16.8.3)}}
  %f, %r = "tcgen05.ld_red"(%buf, %c0) {op = "max"} : (!tcgen05.tmem<[64, 64], f32>, index) -> (!tcgen05.frag<[64, 64], f32>, !tcgen05.frag<[64, 1], f32>)
  return
}

// -----

// A fragment read from global memory has no register layout until a tcgen05.st gives it
// one.
func.func @load_fragment_without_st(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a fragment loaded from global memory must be stored to tensor memory with tcgen05.st: the store decides its register layout}}
  %f = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.store_fragment"(%f, %dst, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Loaded from a Layout D buffer (thread l of warp w holds row 32w + l), stored to a
// Layout F one (warp w holds rows 16w .. 16w+15): the rows would have to change threads.
func.func @copy_between_layouts() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %e = "tcgen05.tmem_buffer"() {layout = "E"} : () -> !tcgen05.tmem<[64, 64], f32>
  %f = "tcgen05.ld"(%e, %c0) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 32], f32>
  %g = "tcgen05.tmem_buffer"() {layout = "F"} : () -> !tcgen05.tmem<[64, 32], f32>
  // expected-error @+1 {{registers cannot move between threads here}}
  "tcgen05.st"(%g, %c0, %f) : (!tcgen05.tmem<[64, 32], f32>, index, !tcgen05.frag<[64, 32], f32>) -> ()
  return
}

// -----

// Loaded from block 0 of a Layout E buffer (warps 0-1), stored to block 1 (warps 2-3).
func.func @copy_between_blocks() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %e = "tcgen05.tmem_buffer"() {layout = "E"} : () -> !tcgen05.tmem<[64, 64], f32>
  %f = "tcgen05.ld"(%e, %c0) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 16], f32>
  // expected-error @+1 {{Layout E: the load and this store must address the same column block}}
  "tcgen05.st"(%e, %c32, %f) : (!tcgen05.tmem<[64, 64], f32>, index, !tcgen05.frag<[64, 16], f32>) -> ()
  return
}

// -----

// The per-row result of ld.red has one value per row, not a register per cell.
func.func @store_reduction_to_tmem() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %one = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 1], f32>
  %f, %r = "tcgen05.ld_red"(%buf, %c0) {op = "max"} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 64], f32>, !tcgen05.frag<[128, 1], f32>)
  // expected-error @+1 {{the per-row result of tcgen05.ld_red cannot be stored to tensor memory}}
  "tcgen05.st"(%one, %c0, %r) : (!tcgen05.tmem<[128, 1], f32>, index, !tcgen05.frag<[128, 1], f32>) -> ()
  return
}

// -----

// Which warps hold a fragment for a folded layout depends on the block it is stored to,
// which must be known where the fragment is loaded.
func.func @prologue_unknown_block(%src: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %e = "tcgen05.tmem_buffer"() {layout = "E"} : () -> !tcgen05.tmem<[64, 64], f32>
  scf.for %col = %c0 to %c64 step %c32 {
    %f = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[64, 32], f32>
    // expected-error @+1 {{Layout E: which warps hold a fragment loaded from global memory depends on the column block it is stored to, so the store's column must be a constant or the load_fragment's own column}}
    "tcgen05.st"(%e, %col, %f) : (!tcgen05.tmem<[64, 64], f32>, index, !tcgen05.frag<[64, 32], f32>) -> ()
  }
  return
}

// -----

// A buffer only tcgen05.ld/st touch may be as wide as Tensor Memory, 512 columns
// (9.7.16.1), not wider.
func.func @wider_than_tmem(%dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{layout = "D": N=520 takes 520 columns, outside the 1..512 columns of Tensor Memory (9.7.16.1)}}
  %t = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 520], f32>
  return
}

// -----

// An MMA's accumulator keeps Table 39's bound N <= 256, although the same buffer without
// the MMA could have 512 columns.
func.func @mma_accumulator_n512() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[512, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 512], f32>
  // expected-error @+1 {{d operand: N=512 is outside 1..256 (Table 39)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!tcgen05.tmem<[128, 512], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[512, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A misspelled .redOp gets the closest one (tcgen05_lower/text.py did_you_mean).
func.func @reduction_op_misspelled() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.ld_red: op = "mni" is not "min" or "max" (9.7.16.8.3 .redOp); did you mean 'min'?}}
  %f, %r = "tcgen05.ld_red"(%buf, %c0) {op = "mni"} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 64], f32>, !tcgen05.frag<[128, 1], f32>)
  return
}
