// Planned IR written by hand (or edited after tcgen05-lower --emit=mlir) re-enters the
// pipeline; tcgen05-verify checks what the later passes read from it: a planned buffer's
// base and offsets (9.7.16.7.1: 128 lanes x 512 columns), mbarrier counts, and copies the
// lowering cannot address. Each was an internal error or a crash (issue 25).
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

!acc = !tcgen05.tmem<[128, 64], f32>
func.func @missing_offsets() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  // expected-error @+1 {{a planned tcgen05.tmem_buffer needs lane_offset and column_offset (written by tcgen05-plan-tmem)}}
  %acc = "tcgen05.tmem_buffer"(%base) {columns = 64 : i64, layout = "D"} : (i32) -> !acc
  return
}

// -----

!acc = !tcgen05.tmem<[128, 64], f32>
func.func @lane_offset_past_tensor_memory() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  // expected-error @+1 {{lane_offset = 2305843009213693952 is not a lane offset of tensor memory (0 to 112 in steps of 16: a buffer starts at a lane quarter or half, 9.7.16.10.5)}}
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, lane_offset = 2305843009213693952 : i64} : (i32) -> !acc
  return
}

// -----

!acc = !tcgen05.tmem<[128, 64], f32>
func.func @column_offset_past_tensor_memory() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  // expected-error @+1 {{column_offset = 512 is outside tensor memory's 512 columns (9.7.16.7.1)}}
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 512 : i64, lane_offset = 0 : i64} : (i32) -> !acc
  return
}

// -----

!acc = !tcgen05.tmem<[128, 64], f32>
func.func @base_not_an_allocation() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %zero = arith.constant 0 : i32
  // expected-error @+1 {{a planned tcgen05.tmem_buffer takes the result of a tcgen05.alloc as its base (tcgen05-plan-tmem writes both)}}
  %acc = "tcgen05.tmem_buffer"(%zero) {column_offset = 0 : i64, lane_offset = 0 : i64} : (i32) -> !acc
  return
}

// -----

func.func @mbarrier_counts() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{alloc_mbarrier count = 0 is outside [1, 1048575], the arrival counts mbarrier.init takes (PTX ISA, mbarrier.init)}}
  %b0 = "tcgen05.alloc_mbarrier"() {count = 0 : i64} : () -> !tcgen05.mbarrier
  // expected-error @+1 {{alloc_mbarrier count = 1048576 is outside [1, 1048575]}}
  %b1 = "tcgen05.alloc_mbarrier"() {count = 1048576 : i64} : () -> !tcgen05.mbarrier
  return
}

// -----

func.func @cp_from_128b_base32b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], bf16, "K", "128B_base32B">
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 8], f32>
  // expected-error @+1 {{tcgen05.cp from a tile with 128-byte swizzling of 32-byte atomicity is not supported yet (its address pattern is given only as a figure, 9.7.16.10.6; Table 53)}}
  "tcgen05.cp"(%t, %s) {shape = "128x256b"} : (!tcgen05.tmem<[128, 8], f32>, !tcgen05.smem<[128, 16], bf16, "K", "128B_base32B">) -> ()
  return
}

// -----

func.func @dealloc_of_a_constant() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p1 = arith.constant 1 : i32
  // expected-error @+1 {{tcgen05.dealloc frees the address a tcgen05.alloc returned (9.7.16.7.1); its operand is not a tcgen05.alloc result}}
  "tcgen05.dealloc"(%p1) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
