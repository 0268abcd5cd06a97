// A copy that overwrites the cells an earlier copy wrote: the first two .128x256b copies
// both write columns [0, 8) of A (the second replaces the first's K block, e.g. a refill).
// cp -> cp is not a pipelined pair (9.7.16.6.2), so the second copy waits for the first
// (commit -> mbarrier wait -> fence::after_thread_sync); the other copies write disjoint
// columns ([8, 16) read by the second MMA, [16, 32) by none) and need nothing. TMEM as in 21: 224 + 32 = 256 columns exactly.
// EXPECT: lower bound 256, optimal 256 (derived above by hand)
!acc = !tcgen05.tmem<[128, 224], f32>
!atm = !tcgen05.tmem<[128, 64], bf16>
!sa = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[224, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @cp_overwrites_cp(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %sa = "tcgen05.smem_buffer"() : () -> !sa
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %a = "tcgen05.tmem_buffer"() {name = "a"} : () -> !atm
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 0 : i64} : (!atm, !sa) -> ()
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 0 : i64} : (!atm, !sa) -> ()
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 8 : i64} : (!atm, !sa) -> ()
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 16 : i64} : (!atm, !sa) -> ()
  "tcgen05.cp"(%a, %sa) {shape = "128x256b", column = 24 : i64} : (!atm, !sa) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 0 : i64} : (!acc, !atm, !tb, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 16 : i64} : (!acc, !atm, !tb, i1) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 224 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
