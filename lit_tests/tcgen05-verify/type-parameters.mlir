// tcgen05 types whose parameters are not of the dialect's form are located errors of
// tcgen05-verify, reported before any rule reads them (they were internal errors).
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

func.func @nested_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{type !tcgen05.tmem<[[128]], f32>: shape [[128]]: dimension [128] is not an integer}}
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[[128]], f32>
  return
}

// -----

func.func @boolean_dimension() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{type !tcgen05.smem<[true, 64], bf16, "K", "128B">: shape [true, 64]: dimension true is not an integer}}
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[true, 64], bf16, "K", "128B">
  return
}

// -----

func.func @float_dimension() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{shape [1.280000e+02, 4]: dimension 1.280000e+02 is not an integer}}
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128.0, 4], f32>
  return
}

// -----

// The rank, major-ness and swizzle of a type are part of its form too (9.7.16.3, Table 40):
// a bad type is reported once, where it is first used (the buffer), not again at the MMA
// and fill that use it.
func.func @unknown_swizzle(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  // expected-error @+1 {{type !tcgen05.smem<[128, 64], bf16, "K", "8X">: swizzle "8X" is not one of none, 32B, 64B, 128B, 128B_base32B (Table 40)}}
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "8X">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "8X">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "8X">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

func.func @smem_rank_1() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{type !tcgen05.smem<[128], bf16, "K", "128B">: shared-memory tile shape [128] must be [rows, K]}}
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128], bf16, "K", "128B">
  return
}

// -----

func.func @fragment_rank_1() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  // expected-error @+1 {{type !tcgen05.frag<[128], f32>: fragment shape [128] must be [rows, columns]}}
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128], f32>
  return
}

// -----

func.func @zero_columns() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{type !tcgen05.tmem<[128, 0], f32>: TMEM buffer shape [128, 0] must be positive}}
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 0], f32>
  return
}

// -----

// f64 is no tcgen05 operand type: a tile of it, even unused, has no layout to lower.
func.func @f64_tile() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{shared-memory tile element type f64 is not a tcgen05 operand type (Tables 39, 42-44: bf16, e2m1, e2m3, e3m2, e4m3, e5m2, f16, f32, s32, s8, tf32, u8, ue4m3, ue8m0)}}
  %z = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], f64, "K", "128B">
  return
}
