// A kernel planned and synchronized with the footprints issue 24 found: metadata buffers
// of 2 columns at 64 and 66, each filled by a .128x128b copy, which writes 4 columns
// (9.7.16.2.3). Both copies write columns 66-67; tcgen05-verify-sync models a copy's real
// cells (from its buffer's column, 4 or 8 columns, on all 128 lanes but for .4x256b) and
// finds the unordered write.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --verify-diagnostics
func.func @two_metadata(%arg0: !llvm.ptr<1>) attributes {tcgen05.kernel = {cta_group = 1 : i64, target = "sm_100a", threads = 128 : i64}} {
  %0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %2 = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  "tcgen05.relinquish_alloc_permit"() {cta_group = 1 : i64} : () -> ()
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %3 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "64B">
  %4 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 64], bf16, "K", "128B">
  %5 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], i8, "K", "none">
  %6 = "tcgen05.tmem_buffer"(%2) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "acc0", role = "d"} : (i32) -> !tcgen05.tmem<[128, 32], f32>
  %7 = "tcgen05.tmem_buffer"(%2) {column_offset = 32 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "acc1", role = "d"} : (i32) -> !tcgen05.tmem<[128, 32], f32>
  %8 = "tcgen05.tmem_buffer"(%2) {column_offset = 64 : i64, columns = 2 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "meta0", role = "metadata"} : (i32) -> !tcgen05.tmem<[128, 2], i32>
  %9 = "tcgen05.tmem_buffer"(%2) {column_offset = 66 : i64, columns = 2 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", name = "meta1", role = "metadata"} : (i32) -> !tcgen05.tmem<[128, 2], i32>
  "tcgen05.cp"(%8, %5) {shape = "128x128b"} : (!tcgen05.tmem<[128, 2], i32>, !tcgen05.smem<[128, 16], i8, "K", "none">) -> ()
  // expected-error @+1 {{tcgen05.cp writes TMEM columns [66, 70) that tcgen05.cp at line 21:3 also writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.2)}}
  "tcgen05.cp"(%9, %5) {shape = "128x128b"} : (!tcgen05.tmem<[128, 2], i32>, !tcgen05.smem<[128, 16], i8, "K", "none">) -> ()
  "tcgen05.mma"(%6, %3, %4, %false, %8) {kind = "f16", layout = "D", sparse = true} : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "64B">, !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  "tcgen05.commit"(%0) {reason = "completion of tcgen05.mma at line 19 before tcgen05.ld at line 21: RAW on TMEM columns [0, 32)"} : (!tcgen05.mbarrier) -> ()
  "tcgen05.mma"(%7, %3, %4, %false, %9) {kind = "f16", layout = "D", sparse = true} : (!tcgen05.tmem<[128, 32], f32>, !tcgen05.smem<[128, 64], bf16, "K", "64B">, !tcgen05.smem<[32, 64], bf16, "K", "128B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  "tcgen05.commit"(%1) {reason = "completion of tcgen05.mma at line 20 before tcgen05.ld at line 23: RAW on TMEM columns [32, 64)"} : (!tcgen05.mbarrier) -> ()
  %c0_i32 = arith.constant 0 : i32
  "tcgen05.mbarrier_wait"(%0, %c0_i32) {reason = "completion of tcgen05.mma at line 19 before tcgen05.ld at line 21: RAW on TMEM columns [0, 32)"} : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync", reason = "completion of tcgen05.mma at line 19 before tcgen05.ld at line 21: RAW on TMEM columns [0, 32)"} : () -> ()
  %10 = "tcgen05.ld"(%6, %c0) {num = 32 : i64, shape = "32x32b"} : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%10, %arg0, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  %c0_i32_0 = arith.constant 0 : i32
  "tcgen05.mbarrier_wait"(%1, %c0_i32_0) {reason = "completion of tcgen05.mma at line 20 before tcgen05.ld at line 23: RAW on TMEM columns [32, 64)"} : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync", reason = "completion of tcgen05.mma at line 20 before tcgen05.ld at line 23: RAW on TMEM columns [32, 64)"} : () -> ()
  %11 = "tcgen05.ld"(%7, %c0) {num = 32 : i64, shape = "32x32b"} : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%11, %arg0, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line 21, tcgen05.ld at line 23 before tcgen05.dealloc at line 25: TMEM accesses before the columns are freed"} : () -> ()
  "tcgen05.fence"() {kind = "before_thread_sync", reason = "completion of tcgen05.ld at line 21, tcgen05.ld at line 23 before tcgen05.dealloc at line 25: TMEM accesses before the columns are freed"} : () -> ()
  "tcgen05.barrier"() {reason = "completion of tcgen05.ld at line 21, tcgen05.ld at line 23 before tcgen05.dealloc at line 25: TMEM accesses before the columns are freed"} : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync", reason = "completion of tcgen05.ld at line 21, tcgen05.ld at line 23 before tcgen05.dealloc at line 25: TMEM accesses before the columns are freed"} : () -> ()
  "tcgen05.dealloc"(%2) {columns = 128 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
