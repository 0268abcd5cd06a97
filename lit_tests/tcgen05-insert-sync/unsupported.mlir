// What tcgen05-insert-sync does not handle is a located error, not a wrong program.
// RUN: tcgen05-opt %s -p tcgen05-insert-sync --split-input-file --verify-diagnostics

// cf branches: the pass follows scf control flow; lift-cf-to-scf (the first pass of the
// default pipeline) turns this kernel into it.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
// expected-error @below {{a kernel with several blocks (cf branches) needs lift-cf-to-scf before tcgen05-insert-sync (the default pipeline runs it first)}}
func.func @branches(%flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  cf.cond_br %flag, ^bb1, ^bb2
^bb1:
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  cf.br ^bb2
^bb2:
  return
}

// -----

// A region op whose regions the pass cannot model (scf.execute_region runs its region
// once, but nothing in the pass says so).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @execute_region()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  // expected-error @below {{'scf.execute_region' around tcgen05 operations is not supported by tcgen05-insert-sync (it follows scf.for, scf.while, scf.if and scf.index_switch)}}
  scf.execute_region {
    "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    scf.yield
  }
  return
}
