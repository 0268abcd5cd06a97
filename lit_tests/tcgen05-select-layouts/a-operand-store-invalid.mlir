// Diagnostics of tcgen05-select-layouts on tcgen05.st into a buffer an MMA reads as its A
// operand: A is row-major in tensor memory, 16-bit elements packed two per 32-bit column
// (9.7.16.10.4), Layout D puts row r on lane r; the store packs the K elements each
// thread holds of its row, so the fragment must be held one row per thread.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' --split-input-file --verify-diagnostics

!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.tmem<[128, 64], bf16>
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
// An odd K column: the pair (1, 2) straddles two 32-bit columns.
func.func @odd_column() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %s = "tcgen05.tmem_buffer"() : () -> !acc
  %p = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %x = "tcgen05.ld"(%s, %c0) : (!acc, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
  // expected-error @+1 {{tcgen05.st into an A operand: column 1 (a K element) must be even and the slice [1, 33) inside the buffer's 64 K elements, since A packs two per 32-bit column}}
  "tcgen05.st"(%p, %c1, %y) : (!at, index, !tcgen05.frag<[128, 32], bf16>) -> ()
  "tcgen05.mma"(%s, %p, %b, %false) {kind = "f16"} : (!acc, !at, !b, i1) -> ()
  return
}
// -----
!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.tmem<[128, 64], bf16>
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
// A column known only at run time, not known to be even.
func.func @unknown_column(%col: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %s = "tcgen05.tmem_buffer"() : () -> !acc
  %p = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %x = "tcgen05.ld"(%s, %c0) : (!acc, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
  // expected-error @+1 {{tcgen05.st into an A operand: this column (a K element) cannot be shown to be even (use a constant or a multiple of 2); A packs two elements per 32-bit column (9.7.16.10.4)}}
  "tcgen05.st"(%p, %col, %y) : (!at, index, !tcgen05.frag<[128, 32], bf16>) -> ()
  "tcgen05.mma"(%s, %p, %b, %false) {kind = "f16"} : (!acc, !at, !b, i1) -> ()
  return
}
// -----
!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.tmem<[128, 64], bf16>
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
// .unpack::16b writes one element per column: the packing of D, not of A.
func.func @unpack(%col: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %s = "tcgen05.tmem_buffer"() : () -> !acc
  %p = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %x = "tcgen05.ld"(%s, %c0) : (!acc, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
  // expected-error @+1 {{tcgen05.st into an A operand of Layout D is stored with .32x32b messages of packed registers; .unpack::16b cannot store it (.unpack::16b puts one element in each column, 9.7.16.8.2)}}
  "tcgen05.st"(%p, %c0, %y) {unpack16 = true} : (!at, index, !tcgen05.frag<[128, 32], bf16>) -> ()
  "tcgen05.mma"(%s, %p, %b, %false) {kind = "f16"} : (!acc, !at, !b, i1) -> ()
  return
}
// -----
!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.tmem<[128, 64], bf16>
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
// A 16-lane load leaves each thread parts of two rows and every fourth column pair with
// another thread: the store could not pack a row's neighbours.
func.func @sixteen_lane_load() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %s = "tcgen05.tmem_buffer"() : () -> !acc
  %p = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %x = "tcgen05.ld"(%s, %c0) {shape = "16x256b"} : (!acc, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
  // expected-error-re @+1 {{tcgen05.st into an A operand packs the K elements each thread holds of its row, so the fragment must be held one row per thread, as .32x32b of a Layout D buffer without .pack::16b leaves it; the load at {{.*}} left it as .16x256b.x4, 2 messages x 4 warps, 32 registers per thread (Layout D)}}
  "tcgen05.st"(%p, %c0, %y) : (!at, index, !tcgen05.frag<[128, 32], bf16>) -> ()
  "tcgen05.mma"(%s, %p, %b, %false) {kind = "f16"} : (!acc, !at, !b, i1) -> ()
  return
}
// -----
!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.tmem<[128, 64], bf16>
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
// A fragment read from global memory is loaded packed as A (tests/test_a_operand_store.py);
// a frag_map of it would need the elements one per register (stored beside the loaded
// fragment itself, so that the load_fragment does feed a tcgen05.st).
func.func @from_global_mapped(%P: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %false = arith.constant false
  %s = "tcgen05.tmem_buffer"() : () -> !acc
  %p = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %x = "tcgen05.load_fragment"(%P, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 32], bf16>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: bf16, %r: index, %c: index):
    %t = arith.addf %e, %e : bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], bf16>) -> !tcgen05.frag<[128, 32], bf16>
  "tcgen05.st"(%p, %c0, %x) : (!at, index, !tcgen05.frag<[128, 32], bf16>) -> ()
  // expected-error @+1 {{tcgen05.st into an A operand: a tcgen05.frag_map of a fragment loaded from global memory is not supported there yet (the loaded fragment is packed as A); store the loaded fragment itself}}
  "tcgen05.st"(%p, %c32, %y) : (!at, index, !tcgen05.frag<[128, 32], bf16>) -> ()
  "tcgen05.mma"(%s, %p, %b, %false) {kind = "f16"} : (!acc, !at, !b, i1) -> ()
  return
}
// -----
!acc = !tcgen05.tmem<[64, 64], f32>
!at = !tcgen05.tmem<[64, 64], bf16>
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
// M = 64 with .ws (Layout E): the MMA reads A's rows from lanes 0-63 for half of N and
// 64-127 for the other half; not stored from registers yet.
func.func @layout_e() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %s = "tcgen05.tmem_buffer"() : () -> !acc
  %p = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %x = "tcgen05.ld"(%s, %c0) : (!acc, index) -> !tcgen05.frag<[64, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[64, 32], f32>) -> !tcgen05.frag<[64, 32], bf16>
  // expected-error @+1 {{tcgen05.st into an A operand of Layout E is not supported yet: only Layout D (M = 128, cta_group::1), whose A rows are lanes 0-127, one per thread of a .32x32b message, and Layout F (M = 64), 16 rows per warp on its lane half with .16x32bx2}}
  "tcgen05.st"(%p, %c0, %y) : (!at, index, !tcgen05.frag<[64, 32], bf16>) -> ()
  "tcgen05.mma"(%s, %p, %b, %false) {kind = "f16", ws = true} : (!acc, !at, !b, i1) -> ()
  return
}
// -----
!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.tmem<[128, 256], f4E2M1FN>
!b = !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
// 4-bit A elements (one per 8-bit container, 9.7.16.10.4.3) are not stored yet.
func.func @fp4_a(%P: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %s = "tcgen05.tmem_buffer"() : () -> !acc
  %p = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %y = "tcgen05.load_fragment"(%P, %c0) {ld = 256 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 32], f4E2M1FN>
  // expected-error @+1 {{tcgen05.st into an A operand: f4E2M1FN elements are not supported yet (16-bit elements two per 32-bit column or 8-bit ones four per column, 9.7.16.10.4)}}
  "tcgen05.st"(%p, %c0, %y) : (!at, index, !tcgen05.frag<[128, 32], f4E2M1FN>) -> ()
  "tcgen05.mma"(%s, %p, %b, %false) {kind = "f8f6f4"} : (!acc, !at, !b, i1) -> ()
  return
}
// -----
!acc = !tcgen05.tmem<[64, 64], f32>
!at = !tcgen05.tmem<[64, 64], bf16>
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
// Layout F: .16x64b leaves register r of thread l column (l/2)%2 + 2r (tmem-facts
// section 2): thread 0 holds columns 0, 2, 4, ..., where the .16x32bx2 store of packed
// columns needs the K pair (0, 1) in registers 0 and 1.
func.func @layout_f_other_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %s = "tcgen05.tmem_buffer"() : () -> !acc
  %p = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %x = "tcgen05.ld"(%s, %c0) {shape = "16x64b"} : (!acc, index) -> !tcgen05.frag<[64, 64], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[64, 64], f32>) -> !tcgen05.frag<[64, 64], bf16>
  // expected-error-re @+1 {{tcgen05.st into an A operand packs the K elements each thread holds of its row, so the fragment must be held as the store's .16x32bx2 messages hold it, as .16x32bx2.x32 of a Layout F accumulator leaves it (thread 0 of warp 0 holds element (0, 2) in register 1, where the store needs (0, 1)); the load at {{.*}} left it as .16x64b.x32, 1 message x 4 warps, 32 registers per thread (Layout F)}}
  "tcgen05.st"(%p, %c0, %y) : (!at, index, !tcgen05.frag<[64, 64], bf16>) -> ()
  "tcgen05.mma"(%s, %p, %b, %false) {kind = "f16"} : (!acc, !at, !b, i1) -> ()
  return
}
