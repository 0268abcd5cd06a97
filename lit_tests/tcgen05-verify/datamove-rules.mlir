// tcgen05-verify's rules for the instructions other than tcgen05.mma: tcgen05.cp (shape,
// multicast, decompression, source tile), tcgen05.commit's CTA mask, allocation (nCols,
// one .cta_group per kernel), tcgen05.ld / st / ld.red (Tables 47 and 48, the .red rules
// of 9.7.16.8.3) and the element types the shared-memory fill supports.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// 9.7.16.9.2: ".64x128b requires .warpx2::02_13 or .warpx2::01_23".
func.func @cp_64x128b_without_multicast() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 16], i8, "K", "none">
  // expected-error @+1 {{.64x128b requires .warpx2::02_13 or .warpx2::01_23, got none (9.7.16.9.2)}}
  "tcgen05.cp"(%t, %s) {shape = "64x128b"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[64, 16], i8, "K", "none">) -> ()
  return
}

// -----

// 9.7.16.9.2: ".32x128b requires .warpx4"; the other shapes take no .multicast.
func.func @cp_multicast_on_128x256b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "none">
  // expected-error @+1 {{.128x256b requires no .multicast, got .warpx4 (9.7.16.9.2)}}
  "tcgen05.cp"(%t, %s) {shape = "128x256b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], i8, "K", "none">) -> ()
  return
}

// -----

// 9.7.16.2.3: the tcgen05.cp shapes are .128x256b, .4x256b, .128x128b, .64x128b, .32x128b.
func.func @cp_bad_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "none">
  // expected-error @+1 {{tcgen05.cp shape .32x32b is not one of 128x256b, 4x256b, 128x128b, 64x128b, 32x128b (9.7.16.9.2); did you mean '32x128b'?}}
  "tcgen05.cp"(%t, %s) {shape = "32x32b"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], i8, "K", "none">) -> ()
  return
}

// -----

// 9.7.16.9.2: .src_fmt = { .b6x16_p32, .b4x16_p64 }.
func.func @cp_bad_decompress() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], i8, "K", "none">
  // expected-error @+1 {{decompress = "b4x16_p32" is not one of b6x16_p32, b4x16_p64 (9.7.16.9.1); did you mean 'b6x16_p32'?}}
  "tcgen05.cp"(%t, %s) {shape = "128x128b", decompress = "b4x16_p32"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 16], i8, "K", "none">) -> ()
  return
}

// -----

// 9.7.16.2.3: .128x128b moves 128 lanes of 128 bits; a 128 x 32 i8 tile holds 256 bits a row.
func.func @cp_source_tile_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "none">
  // expected-error @+1 {{source tile [128, 32] of s8 holds 128 rows of 256 bits; .128x128b copies 128 rows of 128 bits (9.7.16.2.3)}}
  "tcgen05.cp"(%t, %s) {shape = "128x128b"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], i8, "K", "none">) -> ()
  return
}

// -----

func.func @cp_mn_major_source() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "MN", "none">
  // expected-error @+1 {{the source tile of tcgen05.cp must be K-major: its rows are the TMEM lanes the copy writes (9.7.16.9.2)}}
  "tcgen05.cp"(%t, %s) {shape = "128x256b"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], i8, "MN", "none">) -> ()
  return
}

// -----

// 9.7.16.12.1: bit i of the 16-bit ctaMask is %cluster_ctarank i; a cta_group::1 kernel is
// a cluster of one CTA.
func.func @commit_mask_beyond_cluster() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  // expected-error @+1 {{multicast_mask = 0x2 names CTAs beyond this kernel's cluster of 1 (bit i is %cluster_ctarank i, 9.7.16.12.1)}}
  "tcgen05.commit"(%bar) {multicast_mask = 2 : i64} : (!tcgen05.mbarrier) -> ()
  return
}

// -----

func.func @commit_mask_17_bits() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  // expected-error @+1 {{multicast_mask = 0x10001 is not a non-zero 16-bit ctaMask (9.7.16.12.1)}}
  "tcgen05.commit"(%bar) {multicast_mask = 65537 : i64} : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// 9.7.16.7.1: "The number of columns must be a power of 2 ... within the range [32, 512]".
func.func @alloc_48_columns() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{nCols = 48 is not a power of two in [32, 512] (9.7.16.7.1)}}
  %t = "tcgen05.alloc"() {columns = 48 : i64, cta_group = 1 : i64} : () -> i32
  // expected-error @+1 {{nCols = 1024 is not a power of two in [32, 512] (9.7.16.7.1)}}
  "tcgen05.dealloc"(%t) {columns = 1024 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// 9.7.16.7.1: "All tcgen05 instructions within a kernel must specify the same value for
// the .cta_group qualifier."
func.func @alloc_cta_group_mismatch() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{cta_group = 2 differs from the kernel's cta_group = 1: all tcgen05 instructions of a kernel use the same .cta_group (9.7.16.7.1)}}
  %t = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 2 : i64} : () -> i32
  // expected-error @+1 {{cta_group = 2 differs from the kernel's cta_group = 1}}
  "tcgen05.relinquish_alloc_permit"() {cta_group = 2 : i64} : () -> ()
  return
}

// -----

// Table 47: .16x256b.x64 is NA.
func.func @ld_table_47() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 512], f32>
  // expected-error @+1 {{.16x256b.x64 is NA (Table 47)}}
  %f = "tcgen05.ld"(%t, %c0) {shape = "16x256b", num = 64 : i64} : (!tcgen05.tmem<[128, 512], f32>, index) -> !tcgen05.frag<[128, 512], f32>
  return
}

// -----

// Table 48: .16x128b.x128 is NA for tcgen05.st as well.
func.func @st_table_48(%G: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 512], f32>
  %f = "tcgen05.load_fragment"(%G, %c0) {ld = 512 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 512], f32>
  // expected-error @+1 {{.16x128b.x128 is NA (Table 48)}}
  "tcgen05.st"(%t, %c0, %f) {shape = "16x128b", num = 128 : i64} : (!tcgen05.tmem<[128, 512], f32>, index, !tcgen05.frag<[128, 512], f32>) -> ()
  return
}

// -----

// 9.7.16.8.3: immHalfSplitoff belongs to .16x32bx2.
func.func @ld_half_split_without_16x32bx2() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{immHalfSplitoff (half_split) is given exactly with .16x32bx2 (9.7.16.8.3)}}
  %f = "tcgen05.ld"(%t, %c0) {shape = "32x32b", num = 32 : i64, half_split = 16 : i64} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// 9.7.16.8.3: ".redOp = { .min, .max }"; ".type = { .u32, .s32 }" besides .f32; .abs and
// .NaN are in the .f32 syntax only; "When .red qualifier is specified, .num modifier must
// be at least .x2"; .shape3 = .32x32b, .shape4 = .16x32bx2.
func.func @ld_red_rules() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %u = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], i32>
  // expected-error @+1 {{op = "sum" is not "min" or "max" (.redOp, 9.7.16.8.3)}}
  %f0, %r0 = "tcgen05.ld_red"(%t, %c0) {op = "sum"} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 1], f32>)
  // expected-error @+1 {{.abs and .NaN are only for f32 reductions, not s32 (9.7.16.8.3)}}
  %f1, %r1 = "tcgen05.ld_red"(%u, %c0) {op = "min", abs = true} : (!tcgen05.tmem<[128, 64], i32>, index) -> (!tcgen05.frag<[128, 32], i32>, !tcgen05.frag<[128, 1], i32>)
  // expected-error @+1 {{with .red, .num must be at least .x2, got .x1 (9.7.16.8.3)}}
  %f2, %r2 = "tcgen05.ld_red"(%t, %c0) {op = "max", shape = "32x32b", num = 1 : i64} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>)
  // expected-error @+1 {{tcgen05.ld.red takes .32x32b or .16x32bx2, not .16x64b (9.7.16.8.3)}}
  %f3, %r3 = "tcgen05.ld_red"(%t, %c0) {op = "max", shape = "16x64b", num = 16 : i64} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 1], f32>)
  return
}

// -----

// The cooperative shared-memory fill copies whole bytes; 4-bit elements are not supported.
func.func @fill_e2m1(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  // expected-error @+1 {{filling a tile of e2m1 is not supported yet (8-, 16- and 32-bit elements only)}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 256 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, index) -> ()
  return
}

// -----

// Attributes have the types the dialect gives them (dialect/__init__.py); a wrong type is
// a diagnostic, not a crash of a later rule.
func.func @attribute_types() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{attribute sparse = "yes" must be an integer}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", sparse = "yes"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  // expected-error @+1 {{attribute disable_output_lane = array<i64: 0, 0, 0, 0> must be an array<i32: ...>}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", disable_output_lane = array<i64: 0, 0, 0, 0>} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "none">
  // expected-error @+1 {{attribute column = "8" must be an integer}}
  "tcgen05.cp"(%t, %s) {shape = "128x256b", column = "8"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], i8, "K", "none">) -> ()
  return
}

// -----

// Multi-buffered buffers: an instruction takes one stage, picked with tcgen05.tmem_stage,
// which is [rows, columns] of the buffer's element type.
func.func @stages() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c1 = arith.constant 1 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[2, 128, 64], f32>
  // expected-error @+1 {{!tcgen05.tmem<[2, 128, 64], f32> is multi-buffered: pick a stage with tcgen05.tmem_stage}}
  "tcgen05.shift"(%t) : (!tcgen05.tmem<[2, 128, 64], f32>) -> ()
  // expected-error @+1 {{a stage of !tcgen05.tmem<[2, 128, 64], f32> is !tcgen05.tmem<[128, 64], f32>, not !tcgen05.tmem<[128, 32], f32>}}
  %s = "tcgen05.tmem_stage"(%t, %c1) : (!tcgen05.tmem<[2, 128, 64], f32>, index) -> !tcgen05.tmem<[128, 32], f32>
  %v = "tcgen05.tmem_stage"(%t, %c1) : (!tcgen05.tmem<[2, 128, 64], f32>, index) -> !tcgen05.tmem<[128, 64], f32>
  "tcgen05.shift"(%v) : (!tcgen05.tmem<[128, 64], f32>) -> ()
  return
}

// -----

// 9.7.16.9.2: the copy writes from its taddr's column on; column 100 lies outside an
// 8-column buffer, so the copy would write cells the plan gives to other buffers.
func.func @cp_column_outside_buffer() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 8], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], i8, "K", "none">
  // expected-error @+1 {{tcgen05.cp column = 100 starts outside its destination buffer, which has 8 columns (9.7.16.9.2: the taddr operand is the first column written)}}
  "tcgen05.cp"(%t, %s) {shape = "128x128b", column = 100 : i64} : (!tcgen05.tmem<[128, 8], f32>, !tcgen05.smem<[128, 16], i8, "K", "none">) -> ()
  return
}
