// A in TMEM copied in four pieces, each just before the MMA that reads it: the A operand
// (128 x 64 bf16, 32 columns, two 16-bit elements per 32-bit column, 9.7.16.10.4) is
// written by four .128x256b copies of 8 columns, and MMA k (K = 16, k_offset = 16k)
// reads only the 8 columns of its K block, [8k, 8k + 8), which copy k wrote and copy
// k + 1 does not touch. So nothing orders an MMA before the next copy: cp -> mma and
// mma -> mma on one accumulator are pipelined (9.7.16.6.2), and disjoint cells have no
// dependence. With a 128 x 224 accumulator: 224 + 32 = 256 columns exactly.
// EXPECT: lower bound 256, optimal 256 (derived above by hand)
!acc = !tcgen05.tmem<[128, 224], f32>
!atm = !tcgen05.tmem<[128, 64], bf16>
!sa = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[224, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @a_tmem_pieces_interleaved(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %sa = "tcgen05.smem_buffer"() : () -> !sa
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %a = "tcgen05.tmem_buffer"() {name = "a"} : () -> !atm
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 0 : i64} : (!atm, !sa) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 0 : i64} : (!acc, !atm, !tb, i1) -> ()
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 8 : i64} : (!atm, !sa) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 16 : i64} : (!acc, !atm, !tb, i1) -> ()
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 16 : i64} : (!atm, !sa) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 32 : i64} : (!acc, !atm, !tb, i1) -> ()
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 24 : i64} : (!atm, !sa) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 48 : i64} : (!acc, !atm, !tb, i1) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 224 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
