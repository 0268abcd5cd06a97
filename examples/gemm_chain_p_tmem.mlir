// Two chained GEMMs with the intermediate in tensor memory, the shape of attention's
// P V step: one CTA (one warpgroup, 128 threads) computes
//   S (128 x 64, f32)  = Q (128 x 64, bf16) x K^T     (K: 64 x 64, bf16, row-major)
//   P (128 x 64, bf16) = bf16(S)                      (tcgen05.frag_map, cvt.rn.bf16.f32)
//   O (128 x 64, f32)  = P x V                         (V: 64 x 64, bf16, row-major)
// P never leaves the SM: tcgen05.st writes it into the buffer %p that the second MMA reads
// as its A operand in tensor memory (two bf16 elements per 32-bit column, 9.7.16.10.4).
// The reference is examples/gemm_chain_p_tmem.check.py.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_64x64xbf16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tmem_128x64xf32 = !tcgen05.tmem<[128, 64], f32>
!tmem_128x64xbf16 = !tcgen05.tmem<[128, 64], bf16>
!frag_128x64xf32 = !tcgen05.frag<[128, 64], f32>
!frag_128x64xbf16 = !tcgen05.frag<[128, 64], bf16>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @gemm_chain_p_tmem(%Q: !gptr, %K: !gptr, %V: !gptr,
                             %O: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %q = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %k = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %v = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !tmem_128x64xf32
  %p = "tcgen05.tmem_buffer"() {name = "P"} : () -> !tmem_128x64xbf16
  %o = "tcgen05.tmem_buffer"() {name = "O"} : () -> !tmem_128x64xf32

  // Q and K have the head dimension contiguous (K-major tiles as they are); V has it
  // contiguous too, which for P x V is N, so its fill transposes it.
  "tcgen05.smem_fill"(%Q, %q, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_128x64xbf16, index) -> ()
  "tcgen05.smem_fill"(%K, %k, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_64x64xbf16, index) -> ()
  "tcgen05.smem_fill"(%V, %v, %c0) {src_layout = "k_mn", src_ld = 64 : i64}
      : (!gptr, !smem_64x64xbf16, index) -> ()

  // S = Q K^T
  "tcgen05.mma"(%s, %q, %k, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_128x64xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_128x64xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_128x64xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_128x64xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()

  // P = bf16(S): all 64 columns of S in one load, stored as K elements [0, 64) of P.
  %sf = "tcgen05.ld"(%s, %c0) : (!tmem_128x64xf32, index) -> !frag_128x64xf32
  %pf = "tcgen05.frag_map"(%sf) ({
  ^bb0(%x: f32, %row: index, %c: index):
    %y = arith.truncf %x : f32 to bf16
    gpu.yield %y : bf16
  }) : (!frag_128x64xf32) -> !frag_128x64xbf16
  "tcgen05.st"(%p, %c0, %pf) : (!tmem_128x64xbf16, index, !frag_128x64xbf16) -> ()

  // O = P V, A from tensor memory
  "tcgen05.mma"(%o, %p, %v, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()

  scf.for %col = %c0 to %c64 step %c32 {
    %of = "tcgen05.ld"(%o, %col) : (!tmem_128x64xf32, index) -> !frag_128x32xf32
    "tcgen05.store_fragment"(%of, %O, %col) {ld = 64 : i64} : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
