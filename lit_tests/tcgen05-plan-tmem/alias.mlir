// A TMEM alias (tcgen05_lower/planning/aliases.py): P, [128, 64] bf16 read as A (two
// elements per 32-bit column: 32 columns, tmem-facts section 1), written over the first
// 32 of S's 64 columns. The planner places S only (the report says P takes no columns
// of its own) and gives P S's lane and column offsets plus alias_column; S stays live
// while P is: to the return (op 18), where P's MMA (op 16, asynchronous) is known
// complete; S's own last access, the load at op 11, would end it at op 12 (its
// registers' use), as the same kernel without the alias shows (hand-checked). The
// diagnostics: alias-errors.mlir.
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem{report=true}' 2>&1 | FileCheck %s

!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!q = !tcgen05.smem<[128, 16], bf16, "K", "none">
!k = !tcgen05.smem<[64, 16], bf16, "K", "none">
!v = !tcgen05.smem<[64, 64], bf16, "K", "none">
!fs = !tcgen05.frag<[128, 64], f32>
!fp = !tcgen05.frag<[128, 64], bf16>

// CHECK-LABEL: kernel @p_over_s
// CHECK: %S {{ *}}128x64xf32 {{ *}}D {{ *}}0-127 {{ *}}[0, 64) {{ *}}[7, 18]
// CHECK-NOT: %P {{ *}}128x64
// CHECK: %O {{ *}}128x64xf32 {{ *}}D {{ *}}0-127 {{ *}}[64, 128)
// CHECK: note: %P (!tcgen05.tmem<[128, 64], bf16>, role a) takes no columns of its own: it is columns 32-63 of %S
// CHECK: "tcgen05.tmem_buffer"(%0) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "S", role = "d"}
// CHECK: "tcgen05.tmem_buffer"(%0) {alias = "S", alias_column = 32 : i64, column_offset = 32 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "P", role = "a"}
func.func @p_over_s() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = arith.constant true
  %f = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S", alias_column = 32 : i64} : () -> !p
  %o = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  "tcgen05.mma"(%s, %q, %k, %f) {kind = "f16"} : (!s, !q, !k, i1) -> ()
  %x = "tcgen05.ld"(%s, %c0) : (!s, index) -> !fs
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %row: index, %col: index):
    %b = arith.truncf %e : f32 to bf16
    gpu.yield %b : bf16
  }) : (!fs) -> !fp
  "tcgen05.st"(%p, %c0, %y) : (!p, index, !fp) -> ()
  "tcgen05.mma"(%o, %p, %v, %f) {kind = "f16"} : (!s, !p, !v, i1) -> ()
  %r = "tcgen05.ld"(%o, %c0) : (!s, index) -> !fs
  return
}
