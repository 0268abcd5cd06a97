// One CTA (one warpgroup, 128 threads) computes a GEMM with an fp8 output:
//   C (128 x 256, e4m3) = e4m3(scale[0] * (A x B)),
// A (128 x 64, bf16, row-major), B (64 x 256, bf16, row-major), scale a one-element f32
// buffer (the per-tensor scale), f32 accumulation in tensor memory. The reference is
// examples/gemm_e4m3_out_scaled.check.py.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_256x64xbf16 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>
!frag_128x32xf8E4M3FN = !tcgen05.frag<[128, 32], f8E4M3FN>

func.func @gemm_e4m3_out_scaled(%A: !gptr, %B: !gptr, %scale: !gptr,
                                %C: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true
  // The per-tensor scale, read once.
  %s = llvm.load %scale : !gptr -> f32

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

  // Epilogue: C = e4m3(s * acc), 32 columns per load. arith.truncf to f8E4M3FN becomes
  // cvt.rn.satfinite.e4m3x2.f32: round to nearest even, beyond +-448 saturate.
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
    %out = "tcgen05.frag_map"(%frag) ({
    ^bb0(%x: f32, %row: index, %c: index):
      %y = arith.mulf %x, %s : f32
      %q = arith.truncf %y : f32 to f8E4M3FN
      gpu.yield %q : f8E4M3FN
    }) : (!frag_128x32xf32) -> !frag_128x32xf8E4M3FN
    "tcgen05.store_fragment"(%out, %C, %col) {ld = 256 : i64}
        : (!frag_128x32xf8E4M3FN, !gptr, index) -> ()
  }
  return
}
