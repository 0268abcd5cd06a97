// The planned kernel of lit_tests/tcgen05-verify-sync/cp-footprints.mlir before
// synchronization: metadata buffers of 2 columns at 64 and 66, each filled by a .128x128b
// copy, which writes 4 columns (9.7.16.2.3). tcgen05-insert-sync models the copies' real
// cells, so it orders the second copy after the first (cp -> cp is not pipelined,
// 9.7.16.6.2), and tcgen05-verify-sync accepts the result.
// RUN: tcgen05-opt %s -p 'tcgen05-insert-sync,tcgen05-verify-sync' | FileCheck %s

// CHECK-LABEL: func.func @two_metadata
// CHECK: "tcgen05.cp"(
// CHECK-NEXT: "tcgen05.commit"({{.*}}WAW on TMEM columns [66, 70)
// CHECK: "tcgen05.mbarrier_wait"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.cp"(
func.func @two_metadata(%arg0: !llvm.ptr<1>) attributes {tcgen05.kernel = {cta_group = 1 : i64, target = "sm_100a", threads = 128 : i64}} {
  %0 = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  "tcgen05.relinquish_alloc_permit"() {cta_group = 1 : i64} : () -> ()
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %1 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "64B">
  %2 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %3 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], i8, "K", "none">
  %4 = "tcgen05.tmem_buffer"(%0) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "acc0", role = "d"} : (i32) -> !tcgen05.tmem<[128, 32], f32>
  %5 = "tcgen05.tmem_buffer"(%0) {column_offset = 32 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "acc1", role = "d"} : (i32) -> !tcgen05.tmem<[128, 32], f32>
  %6 = "tcgen05.tmem_buffer"(%0) {column_offset = 64 : i64, columns = 2 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "meta0", role = "metadata"} : (i32) -> !tcgen05.tmem<[128, 2], i32>
  %7 = "tcgen05.tmem_buffer"(%0) {column_offset = 66 : i64, columns = 2 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "meta1", role = "metadata"} : (i32) -> !tcgen05.tmem<[128, 2], i32>
  "tcgen05.cp"(%6, %3) {shape = "128x128b"} : (!tcgen05.tmem<[128, 2], i32>, !tcgen05.smem<[128, 16], i8, "K", "none">) -> ()
  "tcgen05.cp"(%7, %3) {shape = "128x128b"} : (!tcgen05.tmem<[128, 2], i32>, !tcgen05.smem<[128, 16], i8, "K", "none">) -> ()
  "tcgen05.mma"(%4, %1, %2, %false, %6) {kind = "f16", layout = "D", sparse = true} : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "64B">, !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  "tcgen05.mma"(%5, %1, %2, %false, %7) {kind = "f16", layout = "D", sparse = true} : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "64B">, !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  %8 = "tcgen05.ld"(%4, %c0) {num = 32 : i64, shape = "32x32b"} : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%8, %arg0, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  %9 = "tcgen05.ld"(%5, %c0) {num = 32 : i64, shape = "32x32b"} : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%9, %arg0, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  "tcgen05.dealloc"(%0) {columns = 128 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
