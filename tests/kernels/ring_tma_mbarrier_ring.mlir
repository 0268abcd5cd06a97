// tests/kernels/ring_tma.mlir with its TMA loads completing on an mbarrier ring: stage
// s = k / 64 mod 2 of the shared-memory rings loads on stage s of a 2-stage mbarrier ring,
// waited on for parity (k / 128) & 1 (each stage completes once per round of two K
// blocks). One program, no roles: tcgen05-insert-sync orders the refills and the
// accumulator as for ring_tma.mlir, and the one-program tcgen05-verify-sync takes each
// evaluated stage as its own mbarrier:
//   C (128 x 256, f32) = A (128 x 512, bf16) x B^T, B (256 x 512, bf16), both row-major.
func.func @ring_tma_mbarrier_ring(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %accumulate = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  %full = "tcgen05.alloc_mbarrier"() {stages = 2 : i64} : () -> !tcgen05.mbarrier
  scf.for %k = %c0 to %c512 step %c64 {
    %i = arith.divui %k, %c64 : index
    %s = arith.remui %i, %c2 : index
    %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
    %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
    %full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier
    %r = arith.divui %i, %c2 : index
    %c1 = arith.constant 1 : index
    %rp = arith.andi %r, %c1 : index
    %p = arith.index_cast %rp : index to i32
    "tcgen05.mbarrier_expect_tx"(%full_s) : (!tcgen05.mbarrier) -> ()
    "tcgen05.tma_load"(%tmA, %as, %full_s, %k, %c0)
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.tma_load"(%tmB, %bs, %full_s, %k, %c0)
        : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full_s, %p) : (!tcgen05.mbarrier, i32) -> ()
    "tcgen05.barrier"() : () -> ()
    %not_first = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %as, %bs, %not_first) {kind = "f16", k_offset = 0 : i64}
        : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  }
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}
