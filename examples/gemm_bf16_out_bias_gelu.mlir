// One CTA (one warpgroup, 128 threads) computes a GEMM with a fused epilogue:
//   C (128 x 256, bf16) = bf16(gelu(A x B + bias)),
// A (128 x 64, bf16, row-major), B (64 x 256, bf16, row-major), bias (256, f32) added to
// every row, f32 accumulation in tensor memory. GELU is the tanh approximation
// 0.5 h (1 + tanh(sqrt(2/pi) (h + 0.044715 h^3))); the conversion to bf16 rounds to
// nearest even (arith.truncf, cvt.rn.bf16.f32). The reference is
// examples/gemm_bf16_out_bias_gelu.check.py.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_256x64xbf16 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>
!frag_128x32xbf16 = !tcgen05.frag<[128, 32], bf16>

func.func @gemm_bf16_out_bias_gelu(%A: !gptr, %B: !gptr, %bias: !gptr,
                                   %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_256x64xbf16
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tmem_128x256xf32

  // A is stored with K contiguous; B with N contiguous, so its fill transposes it.
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_128x64xbf16, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!gptr, !smem_256x64xbf16, index) -> ()

  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_128x256xf32, !smem_128x64xbf16, !smem_256x64xbf16, i1) -> ()

  // Epilogue: C = bf16(gelu(acc + bias[column])), 32 columns per load. The body of
  // tcgen05.frag_map runs for every element a thread holds, with its row and its column
  // in the fragment; tcgen05-select-layouts decides which thread holds which.
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
    %out = "tcgen05.frag_map"(%frag) ({
    ^bb0(%x: f32, %row: index, %c: index):
      // bias[col + c], read from global memory
      %n = arith.addi %col, %c : index
      %n64 = arith.index_cast %n : index to i64
      %bp = llvm.getelementptr %bias[%n64] : (!gptr, i64) -> !gptr, f32
      %bv = llvm.load %bp : !gptr -> f32
      %h = arith.addf %x, %bv : f32
      // gelu(h) = 0.5 h (1 + tanh(sqrt(2/pi) (h + 0.044715 h^3))), the tanh approximation
      %h2 = arith.mulf %h, %h : f32
      %h3 = arith.mulf %h2, %h : f32
      %k1 = arith.constant 0.044715 : f32
      %t0 = arith.mulf %h3, %k1 : f32
      %t1 = arith.addf %h, %t0 : f32
      %k0 = arith.constant 0.7978845608028654 : f32
      %t2 = arith.mulf %t1, %k0 : f32
      %th = math.tanh %t2 : f32
      %one = arith.constant 1.0 : f32
      %t3 = arith.addf %th, %one : f32
      %half = arith.constant 0.5 : f32
      %hh = arith.mulf %h, %half : f32
      %g = arith.mulf %hh, %t3 : f32
      %y = arith.truncf %g : f32 to bf16
      gpu.yield %y : bf16
    }) : (!frag_128x32xf32) -> !frag_128x32xbf16
    "tcgen05.store_fragment"(%out, %C, %col) {ld = 256 : i64}
        : (!frag_128x32xbf16, !gptr, index) -> ()
  }
  return
}
