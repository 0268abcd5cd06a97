// A in TMEM in a loop (an attention-like step): per KV block, S = Q K^T goes to a
// 128 x 128 f32 accumulator, the epilogue warps read S, P (128 x 128 bf16, 64 columns)
// is copied into tensor memory and used as the A operand of O += P V, with O (128 x 128)
// accumulated across the loop. P cannot take S's columns: the MMA reading P is still in
// flight when the next iteration's S is written, and it is known complete only when
// the next copy into P must wait for it. Hand bound: 128 (O) + 128 (S) + 64 (P) = 320
// columns, allocation 512.
// EXPECT: lower bound 320, optimal 320 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!ptm = !tcgen05.tmem<[128, 128], bf16>
!tq = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tk = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!sp = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tv = !tcgen05.smem<[128, 128], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @attention_s_p_o(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !tq
  %k = "tcgen05.smem_buffer"() : () -> !tk
  %psm = "tcgen05.smem_buffer"() : () -> !sp
  %v = "tcgen05.smem_buffer"() : () -> !tv
  %o = "tcgen05.tmem_buffer"() {name = "o"} : () -> !acc
  scf.for %j = %c0 to %c8 step %c1 {
    %acc_in = arith.cmpi ne, %j, %c0 : index
    %s = "tcgen05.tmem_buffer"() {name = "s"} : () -> !acc
    "tcgen05.mma"(%s, %q, %k, %f) {kind = "f16"} : (!acc, !tq, !tk, i1) -> ()
    %x = "tcgen05.ld"(%s, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    %p = "tcgen05.tmem_buffer"() {name = "p"} : () -> !ptm
    "tcgen05.cp"(%p, %psm) {shape = "128x256b", column = 0 : i64} : (!ptm, !sp) -> ()
    "tcgen05.cp"(%p, %psm) {shape = "128x256b", column = 8 : i64} : (!ptm, !sp) -> ()
    "tcgen05.cp"(%p, %psm) {shape = "128x256b", column = 16 : i64} : (!ptm, !sp) -> ()
    "tcgen05.cp"(%p, %psm) {shape = "128x256b", column = 24 : i64} : (!ptm, !sp) -> ()
    "tcgen05.cp"(%p, %psm) {shape = "128x256b", column = 32 : i64} : (!ptm, !sp) -> ()
    "tcgen05.cp"(%p, %psm) {shape = "128x256b", column = 40 : i64} : (!ptm, !sp) -> ()
    "tcgen05.cp"(%p, %psm) {shape = "128x256b", column = 48 : i64} : (!ptm, !sp) -> ()
    "tcgen05.cp"(%p, %psm) {shape = "128x256b", column = 56 : i64} : (!ptm, !sp) -> ()
    "tcgen05.mma"(%o, %p, %v, %acc_in) {kind = "f16"} : (!acc, !ptm, !tv, i1) -> ()
  }
  %y = "tcgen05.ld"(%o, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
