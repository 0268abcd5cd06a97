// Attention forward over one KV block, plain softmax: one CTA (one warpgroup, 128 threads)
// computes a 128-row block of
//   O (128 x 64, f32) = softmax(Q K^T / sqrt(64)) V
// with Q (128 x 64), K and V (64 x 64: 64 keys of head dimension 64), bf16, row-major.
//   S = Q K^T                          f32 in tensor memory
//   m = rowmax(S)                      tcgen05.frag_reduce (max), in registers
//   p = exp((S - m) / 8)               tcgen05.frag_broadcast of m beside S, frag_map
//   l = rowsum(p)                      tcgen05.frag_reduce (sum) of the f32 p
//   P = bf16(p) -> tensor memory       tcgen05.st into the A operand of the next MMA
//   O = P V / l                        MMA with A in tensor memory; the epilogue divides
// The reference is examples/attention_fwd_bf16_one_block.check.py.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_64x64xbf16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tmem_128x64xf32 = !tcgen05.tmem<[128, 64], f32>
!tmem_128x64xbf16 = !tcgen05.tmem<[128, 64], bf16>
!frag_128x64xf32 = !tcgen05.frag<[128, 64], f32>
!frag_128x1xf32 = !tcgen05.frag<[128, 1], f32>
!frag_128x64xbf16 = !tcgen05.frag<[128, 64], bf16>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @attention_fwd_bf16_one_block(%Q: !gptr, %K: !gptr, %V: !gptr,
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

  // Softmax numerator and denominator of each row.
  %sf = "tcgen05.ld"(%s, %c0) : (!tmem_128x64xf32, index) -> !frag_128x64xf32
  %m = "tcgen05.frag_reduce"(%sf) {kind = "max"} : (!frag_128x64xf32) -> !frag_128x1xf32
  %mb = "tcgen05.frag_broadcast"(%m, %sf) : (!frag_128x1xf32, !frag_128x64xf32) -> !frag_128x64xf32
  %pf = "tcgen05.frag_map"(%sf, %mb) ({
  ^bb0(%x: f32, %mx: f32, %row: index, %c: index):
    %d = arith.subf %x, %mx : f32
    %scale = arith.constant 0.125 : f32          // 1 / sqrt(64)
    %t = arith.mulf %d, %scale : f32
    %e = math.exp %t : f32
    gpu.yield %e : f32
  }) : (!frag_128x64xf32, !frag_128x64xf32) -> !frag_128x64xf32
  %l = "tcgen05.frag_reduce"(%pf) {kind = "sum"} : (!frag_128x64xf32) -> !frag_128x1xf32
  %pb = "tcgen05.frag_map"(%pf) ({
  ^bb0(%x: f32, %row: index, %c: index):
    %y = arith.truncf %x : f32 to bf16
    gpu.yield %y : bf16
  }) : (!frag_128x64xf32) -> !frag_128x64xbf16
  "tcgen05.st"(%p, %c0, %pb) : (!tmem_128x64xbf16, index, !frag_128x64xbf16) -> ()

  // O = P V, A from tensor memory
  "tcgen05.mma"(%o, %p, %v, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
  "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()

  // O / l
  scf.for %col = %c0 to %c64 step %c32 {
    %of = "tcgen05.ld"(%o, %col) : (!tmem_128x64xf32, index) -> !frag_128x32xf32
    %lb = "tcgen05.frag_broadcast"(%l, %of)
        : (!frag_128x1xf32, !frag_128x32xf32) -> !frag_128x32xf32
    %out = "tcgen05.frag_map"(%of, %lb) ({
    ^bb0(%x: f32, %sum: f32, %row: index, %c: index):
      %y = arith.divf %x, %sum : f32
      gpu.yield %y : f32
    }) : (!frag_128x32xf32, !frag_128x32xf32) -> !frag_128x32xf32
    "tcgen05.store_fragment"(%out, %O, %col) {ld = 64 : i64}
        : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
