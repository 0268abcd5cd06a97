// Two M = 64 tiles that share B, live at the same time:
//   C0 (64 x 128, f32) = A0 (64 x 64, bf16) x B (64 x 128, bf16)
//   C1 (64 x 128, f32) = A1 (64 x 64, bf16) x B
// An M = 64 MMA with cta_group::1 (not .ws) uses Layout F: 16 lanes of every 32-lane
// quarter, at lane offset 0 or 16 (PTX ISA 9.7.16.10.5). The two accumulators can
// therefore share the same 128 columns, one in each lane half, and the kernel allocates
// 128 columns instead of 256. All matrices are row-major in global memory.

!gptr = !llvm.ptr<1>
!smem_64x64xbf16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tmem_64x128xf32 = !tcgen05.tmem<[64, 128], f32>
!frag_64x32xf32 = !tcgen05.frag<[64, 32], f32>

func.func @gemm_m64_pair(%A0: !gptr, %A1: !gptr, %B: !gptr,
                         %C0: !gptr, %C1: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %a0 = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %a1 = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %b = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !tmem_64x128xf32
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !tmem_64x128xf32

  "tcgen05.smem_fill"(%A0, %a0, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_64x64xbf16, index) -> ()
  "tcgen05.smem_fill"(%A1, %a1, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_64x64xbf16, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 128 : i64}
      : (!gptr, !smem_128x64xbf16, index) -> ()

  "tcgen05.mma"(%acc0, %a0, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_64x128xf32, !smem_64x64xbf16, !smem_128x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc1, %a1, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tmem_64x128xf32, !smem_64x64xbf16, !smem_128x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc0, %a0, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_64x128xf32, !smem_64x64xbf16, !smem_128x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc1, %a1, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tmem_64x128xf32, !smem_64x64xbf16, !smem_128x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc0, %a0, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_64x128xf32, !smem_64x64xbf16, !smem_128x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc1, %a1, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tmem_64x128xf32, !smem_64x64xbf16, !smem_128x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc0, %a0, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_64x128xf32, !smem_64x64xbf16, !smem_128x64xbf16, i1) -> ()
  "tcgen05.mma"(%acc1, %a1, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tmem_64x128xf32, !smem_64x64xbf16, !smem_128x64xbf16, i1) -> ()

  // Each warp reads the 16 rows it owns; .16x32bx2 reads 2 x 16 columns per message.
  scf.for %col = %c0 to %c128 step %c32 {
    %f0 = "tcgen05.ld"(%acc0, %col) : (!tmem_64x128xf32, index) -> !frag_64x32xf32
    "tcgen05.store_fragment"(%f0, %C0, %col) {ld = 128 : i64}
        : (!frag_64x32xf32, !gptr, index) -> ()
    %f1 = "tcgen05.ld"(%acc1, %col) : (!tmem_64x128xf32, index) -> !frag_64x32xf32
    "tcgen05.store_fragment"(%f1, %C1, %col) {ld = 128 : i64}
        : (!frag_64x32xf32, !gptr, index) -> ()
  }
  return
}
