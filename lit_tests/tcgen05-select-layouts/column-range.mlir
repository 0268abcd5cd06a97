// A tcgen05.ld / tcgen05.st at a column that is not a constant but whose values the
// constant bounds of its loop give (an induction variable, and sums and products of it with
// constants) keeps every slice inside the buffer: a loop that runs past the buffer is
// refused, located, naming the column's range and the buffer's columns (a slice past the
// end reads or writes the TMEM columns of whatever lies behind it). Ranges by hand: scf.for
// from L to U step S takes L, L + S, .., the last below U.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' --split-input-file --verify-diagnostics

// 0, 32, .., 480: the last 32-column slice ends at 512 in a 256-column buffer.
func.func @ld_loop_past_end() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  scf.for %col = %c0 to %c512 step %c32 {
    // expected-error @+1 {{tcgen05.ld: the column takes values from 0 to 480 (from the constant bounds of its loop), so the 32-column slices cover columns [0, 512), outside the buffer's 256 columns [0, 256)}}
    %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  }
  return
}

// -----

// The bound is not a multiple of the step: 0, 48, 96, 144, 192, 240; the slice at 240 ends
// at 272 > 256 (an upper bound of 256 alone would not show it).
func.func @ld_loop_step_past_end() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %c256 = arith.constant 256 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  scf.for %col = %c0 to %c256 step %c48 {
    // expected-error @+1 {{tcgen05.ld: the column takes values from 0 to 240 (from the constant bounds of its loop), so the 32-column slices cover columns [0, 272), outside the buffer's 256 columns [0, 256)}}
    %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  }
  return
}

// -----

// A store at the induction variable plus a constant: 32 + (0 .. 224) = 32 .. 256.
func.func @st_loop_offset_past_end(%v: f32) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  scf.for %i = %c0 to %c256 step %c32 {
    %col = arith.addi %i, %c32 : index
    // expected-error @+1 {{tcgen05.st: the column takes values from 32 to 256 (from the constant bounds of its loop), so the 32-column slices cover columns [32, 288), outside the buffer's 256 columns [0, 256)}}
    "tcgen05.st"(%acc, %col, %x) : (!tcgen05.tmem<[128, 256], f32>, index, !tcgen05.frag<[128, 32], f32>) -> ()
  }
  return
}

// -----

// The induction variable times a constant: 64 * (0 .. 3) = 0 .. 192; the 64-column slice
// at 192 ends at 256 in a 128-column buffer.
func.func @ld_loop_scaled_past_end() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  scf.for %i = %c0 to %c4 step %c1 {
    %col = arith.muli %i, %c64 : index
    // expected-error @+1 {{tcgen05.ld: the column takes values from 0 to 192 (from the constant bounds of its loop), so the 64-column slices cover columns [0, 256), outside the buffer's 128 columns [0, 128)}}
    %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  }
  return
}

// -----

// A loop that starts below the buffer: -32 .. 96.
func.func @ld_loop_negative() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %cm32 = arith.constant -32 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  scf.for %col = %cm32 to %c128 step %c32 {
    // expected-error @+1 {{tcgen05.ld: the column takes values from -32 to 96 (from the constant bounds of its loop), so the 32-column slices cover columns [-32, 128), outside the buffer's 128 columns [0, 128)}}
    %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  }
  return
}

// -----

// Loops that stay inside are accepted: 0 .. 224 step 32 and 64 * (0 .. 1), and a loop
// that never runs (its body reads nothing).
func.func @loops_inside() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  scf.for %col = %c0 to %c256 step %c32 {
    %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  }
  scf.for %i = %c0 to %c2 step %c1 {
    %col = arith.muli %i, %c64 : index
    %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  }
  scf.for %col = %c256 to %c0 step %c32 {
    %f = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  }
  return
}
