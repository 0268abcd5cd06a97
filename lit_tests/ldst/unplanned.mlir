// tcgen05-lower-to-llvm refuses warpgroup accesses that tcgen05-select-layouts has not
// planned, or whose fragment is laid out for another access, instead of guessing.
// RUN: tcgen05-opt %s -p 'tcgen05-lower-to-llvm' --split-input-file --verify-diagnostics

func.func @ld_without_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", role = "d"} : (i32) -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.ld has no message shape: run tcgen05-select-layouts first}}
  %f = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

func.func @buffer_without_layout() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64} : (i32) -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.ld: the TMEM operand has no layout: run tcgen05-select-layouts first}}
  %f = "tcgen05.ld"(%buf, %c0) {num = 32 : i64, shape = "32x32b"} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// The load left thread l with columns of row 32w + l (.32x32b); .16x256b would want
// other cells in each register.
func.func @fragment_for_another_store(%src: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", role = "d"} : (i32) -> !tcgen05.tmem<[128, 64], f32>
  %f = "tcgen05.ld"(%buf, %c0) {num = 32 : i64, shape = "32x32b"} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  // expected-error @+1 {{tcgen05.st: the fragment's registers are laid out for .32x32b.x32, 2 messages x 4 warps, 64 registers per thread, not for this store's .16x256b.x8, 2 messages x 4 warps, 64 registers per thread}}
  "tcgen05.st"(%buf, %c0, %f) {num = 8 : i64, shape = "16x256b"} : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 64], f32>) -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
