// C (128 x 64, f32) = A (128 x 128, bf16, row-major) x B (128 x 64, bf16, row-major): B is
// N-contiguous, so its tile is MN-major ([64 N, 64 K], 128B swizzle: a K row of 64 bf16 is
// one 128-byte span) and the TMA box is {N, K} = {64, 64} at coordinates {0, k}; A's tile
// is K-major with the box {K, M} = {64, 128} at {k, 0} (docs/tma.md).
func.func @gemm_tma_mn_major_b(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %accumulate = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "MN", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  scf.for %k = %c0 to %c128 step %c64 {
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.tma_load"(%tmA, %a, %full, %k, %c0)
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier,
           index, index) -> ()
    "tcgen05.tma_load"(%tmB, %b, %full, %c0, %k)
        : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "MN", "128B">, !tcgen05.mbarrier,
           index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.barrier"() : () -> ()
    %not_first = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %a, %b, %not_first) {kind = "f16", k_offset = 0 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[64, 64], bf16, "MN", "128B">, i1) -> ()
  }
  scf.for %col = %c0 to %c64 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col)
        : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 64 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}
