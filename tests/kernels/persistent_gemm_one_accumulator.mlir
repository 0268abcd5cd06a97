// The persistent GEMM of examples/persistent_gemm_bf16.mlir with one accumulator: each of
// the four 128 x 256 tiles of
//   C (128 x 1024, f32) = A (128 x 128, bf16) x B (128 x 1024, bf16)   (all row-major)
// runs its main loop into %acc, then its epilogue reads %acc, and the next tile's MMAs
// wait for those loads. Same work, same instructions per tile; only the overlap of one
// tile's MMAs with the previous tile's epilogue is gone (tests/test_timing.py ranks the
// two).
func.func @persistent_gemm_one_accumulator(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c768 = arith.constant 768 : index
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>

  scf.for %t = %c0 to %c4 step %c1 {
    %n0 = arith.muli %t, %c256 : index
    %n0_i64 = arith.index_cast %n0 : index to i64
    %B0 = llvm.getelementptr %B[%n0_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
    scf.for %k = %c0 to %c128 step %c64 {
      "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 128 : i64}
          : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      "tcgen05.smem_fill"(%B0, %b, %k) {src_layout = "k_mn", src_ld = 1024 : i64}
          : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index) -> ()
      %not_first = arith.cmpi ne, %k, %c0 : index
      "tcgen05.mma"(%acc, %a, %b, %not_first) {kind = "f16", k_offset = 0 : i64}
          : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
             !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
          : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
             !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
          : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
             !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
      "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
          : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
             !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
    }
    scf.for %col = %c0 to %c256 step %c32 {
      %frag = "tcgen05.ld"(%acc, %col)
          : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      %dest = arith.addi %n0, %col : index
      "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    }
  }
  return
}
