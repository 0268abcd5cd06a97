// Sparse with metadata: tcgen05.mma.sp, kind::f16, M = 128. Each K-block's sparsity
// metadata is copied into its own buffer (tmem-facts section 3: metadata is addressed in
// 2-column granules, so it starts at an even column); the loop is unrolled by two with two
// metadata buffers. Each is filled by a .128x128b copy, which writes 4 columns
// (9.7.16.2.3), so each buffer owns 4. Hand bound: 128 + 4 + 4 = 136 columns, allocation
// 256.
// EXPECT: lower bound 136, optimal 136 (derived above by hand)
!acc = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "64B">
!tb = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!meta = !tcgen05.tmem<[128, 2], i32>
!smeta = !tcgen05.smem<[128, 16], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @sparse_m128_kloop(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %sm = "tcgen05.smem_buffer"() : () -> !smeta
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %m0 = "tcgen05.tmem_buffer"() {name = "meta0"} : () -> !meta
  %m1 = "tcgen05.tmem_buffer"() {name = "meta1"} : () -> !meta
  scf.for %k = %c0 to %c16 step %c2 {
    %acc_in = arith.cmpi ne, %k, %c0 : index
    "tcgen05.cp"(%m0, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
    "tcgen05.mma"(%acc, %a, %b, %acc_in, %m0) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
    "tcgen05.cp"(%m1, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t, %m1) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  }
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
