// Many small buffers in a loop: an accumulator (128 x 128) lives across the loop; every
// iteration makes two short-lived 128 x 32 temporaries (a bias tile stored with
// tcgen05.st, read back and stored) one after the other. A temporary defined in the body
// is a new buffer each iteration, so the two can share columns. Hand bound:
// 128 + 32 = 160 columns, allocation 256.
// EXPECT: lower bound 160, optimal 160 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!tmp = !tcgen05.tmem<[128, 32], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @loop_temporaries(%C: !llvm.ptr<1>, %Bias: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  scf.for %k = %c0 to %c8 step %c1 {
    %acc_in = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %a, %b, %acc_in) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %t0 = "tcgen05.tmem_buffer"() {name = "tmp0"} : () -> !tmp
    %v0 = "tcgen05.load_fragment"(%Bias, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !frag
    "tcgen05.st"(%t0, %c0, %v0) : (!tmp, index, !frag) -> ()
    %r0 = "tcgen05.ld"(%t0, %c0) : (!tmp, index) -> !frag
    "tcgen05.store_fragment"(%r0, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    %t1 = "tcgen05.tmem_buffer"() {name = "tmp1"} : () -> !tmp
    %v1 = "tcgen05.load_fragment"(%Bias, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !frag
    "tcgen05.st"(%t1, %c0, %v1) : (!tmp, index, !frag) -> ()
    %r1 = "tcgen05.ld"(%t1, %c0) : (!tmp, index) -> !frag
    "tcgen05.store_fragment"(%r1, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
