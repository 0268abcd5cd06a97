// tcgen05-plan-tmem on input it cannot plan: buffers without the footprint
// tcgen05-select-layouts writes, and kernels planned in part.
// RUN: tcgen05-opt %s -p 'tcgen05-plan-tmem' --split-input-file --verify-diagnostics

func.func @no_layout() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{TMEM buffer has no layout: run tcgen05-select-layouts first}}
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  return
}

// -----

func.func @half_planned() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  // expected-error @+1 {{this TMEM buffer is planned (it has a base address) but others in the kernel are not: plan all or none}}
  %done = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", role = "d"} : (i32) -> !tcgen05.tmem<[128, 32], f32>
  %todo = "tcgen05.tmem_buffer"() {columns = 32 : i64, half_lanes = false, layout = "D", role = "d"} : () -> !tcgen05.tmem<[128, 32], f32>
  "tcgen05.dealloc"(%base) {columns = 32 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
