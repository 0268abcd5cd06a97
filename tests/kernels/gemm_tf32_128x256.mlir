// C (128 x 256, f32) = A (128 x 32, tf32) x B (32 x 256, tf32), all row-major: examples/
// gemm_bf16_128x256.mlir with tf32 tiles of 128-byte rows (32 elements) and .kind::tf32
// MMAs of K = 8 (Table 39). For tcgen05-sim --check gemm's tf32 bound (tests/test_cli_sim.py).
func.func @gemm_tf32_128x256(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], tf32, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 32], tf32, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>

  // A is stored with K contiguous; B with N contiguous, so its fill transposes it.
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 32 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 32], tf32, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[256, 32], tf32, "K", "128B">, index) -> ()

  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "tf32", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 32], tf32, "K", "128B">,
         !tcgen05.smem<[256, 32], tf32, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "tf32", k_offset = 8 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 32], tf32, "K", "128B">,
         !tcgen05.smem<[256, 32], tf32, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "tf32", k_offset = 16 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 32], tf32, "K", "128B">,
         !tcgen05.smem<[256, 32], tf32, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "tf32", k_offset = 24 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 32], tf32, "K", "128B">,
         !tcgen05.smem<[256, 32], tf32, "K", "128B">, i1) -> ()

  // Epilogue: 32 columns per load keeps 32 registers per thread live.
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col)
        : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}
