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
