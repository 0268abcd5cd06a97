// A in TMEM, M = 64: two Layout F MMAs, each with its A (64 x 32 bf16: 16 columns on 16
// lanes of each quarter) in tensor memory. A and D of one Layout F MMA take the same lane
// offset (9.7.16.10.5), so (acc0, a0) go on one lane half and (acc1, a1) on the other.
// Hand bound: (128 + 16) x 2 / 2 = 144 columns, allocation 256.
// The A operands are not filled: tcgen05.cp writes whole 32-lane quarters and cannot put
// 64 rows on the 16 lanes per quarter that Layout F reads (9.7.16.9.2, 9.7.16.10.5;
// lit_tests/tcgen05-select-layouts/cp-footprints.mlir holds the kernel with its copies,
// rejected); tcgen05.st fills it from registers (.16x32bx2 on the lane half,
// tests/test_a_operand_store_forms.py), not written here: the kernel exercises placement
// only.
// EXPECT: lower bound 144, optimal 144 (derived above by hand)
!acc = !tcgen05.tmem<[64, 128], f32>
!atm = !tcgen05.tmem<[64, 32], bf16>
!tb = !tcgen05.smem<[128, 32], bf16, "K", "64B">
!frag = !tcgen05.frag<[64, 32], f32>
func.func @a_tmem_m64_tied(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %a0 = "tcgen05.tmem_buffer"() {name = "a0"} : () -> !atm
  %a1 = "tcgen05.tmem_buffer"() {name = "a1"} : () -> !atm
  "tcgen05.mma"(%acc0, %a0, %b, %f) {kind = "f16"} : (!acc, !atm, !tb, i1) -> ()
  "tcgen05.mma"(%acc1, %a1, %b, %f) {kind = "f16"} : (!acc, !atm, !tb, i1) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
