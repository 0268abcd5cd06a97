// "The lane of the address operand taddr must be aligned to 32" (9.7.16.9.3). Where a
// buffer lives is decided by tcgen05-plan-tmem, so the lowering checks it: two M = 64
// accumulators (Layout F, 16 lanes of each quarter) share their columns, the second at
// lane 16, and shifting it is refused with a diagnostic instead of an unaligned address.
// RUN: not tcgen05-lower %s --arch sm_100a -o %t.ptx 2>&1 | FileCheck %s

// CHECK: shift-lane-16.mlir:[[@LINE+13]]:3: error: tcgen05.shift needs a buffer at a lane that is a multiple of 32, but this one was placed at lane 16 (9.7.16.9.3)
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
