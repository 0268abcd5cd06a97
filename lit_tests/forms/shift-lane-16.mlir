// "The lane of the address operand taddr must be aligned to 32" (9.7.16.9.3), and the
// shift moves the 32 lanes from there: both halves of a quarter. Two M = 64 accumulators
// (Layout F, 16 lanes of each quarter) share their columns, the second at lane 16.
// Shifting either would move the other's lanes, so tcgen05-select-layouts refuses both
// (before, the one at lane 0 was accepted and the lowering refused the one at lane 16).
// RUN: not tcgen05-lower %s --arch sm_100a -o %t.ptx 2>&1 | FileCheck %s

// CHECK: shift-lane-16.mlir:[[@LINE+13]]:3: error: tcgen05.shift shifts the 32 lanes from its 32-aligned taddr (9.7.16.9.3), both halves of a quarter, but Layout F holds this buffer on 16 lanes of each quarter (9.7.16.10.5): the shift would move the other half, which the plan may give to another buffer
// CHECK: shift-lane-16.mlir:[[@LINE+13]]:3: error: tcgen05.shift shifts the 32 lanes
!acc = !tcgen05.tmem<[64, 64], f32>
!a = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
func.func @shift_lane_16() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %d0 = "tcgen05.tmem_buffer"() : () -> !acc
  %d1 = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.mma"(%d0, %a, %b, %p) {kind = "f16"} : (!acc, !a, !b, i1) -> ()
  "tcgen05.mma"(%d1, %a, %b, %p) {kind = "f16"} : (!acc, !a, !b, i1) -> ()
  "tcgen05.shift"(%d0) : (!acc) -> ()
  "tcgen05.shift"(%d1) : (!acc) -> ()
  return
}
