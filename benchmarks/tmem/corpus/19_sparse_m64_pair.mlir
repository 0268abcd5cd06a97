// Sparse M = 64 pair: two sparse M = 64 MMAs (Layout F). D and the sparse metadata of one
// Layout F MMA must use the same lane offset (9.7.16.10.5, 9.7.16.10.8.5), so acc0 and
// meta0 take one lane half and acc1 and meta1 the other. Hand bound:
// (128 + 2 + 128 + 2) / 2 = 130 columns, allocation 256.
// The metadata is not filled: tcgen05.cp writes whole 32-lane quarters and cannot put 64
// rows on the 16 lanes per quarter that Layout F reads (9.7.16.9.2, 9.7.16.10.5;
// lit_tests/tcgen05-select-layouts/cp-footprints.mlir holds the kernel with its copies,
// rejected). The kernel exercises placement only.
// EXPECT: lower bound 130, optimal 130 (derived above by hand)
!acc = !tcgen05.tmem<[64, 128], f32>
!ta = !tcgen05.smem<[64, 64], bf16, "K", "64B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!meta = !tcgen05.tmem<[64, 2], i32>
!frag = !tcgen05.frag<[64, 32], f32>
func.func @sparse_m64_pair(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %meta0 = "tcgen05.tmem_buffer"() {name = "meta0"} : () -> !meta
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %meta1 = "tcgen05.tmem_buffer"() {name = "meta1"} : () -> !meta
  "tcgen05.mma"(%acc0, %a, %b, %f, %meta0) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f, %meta1) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
