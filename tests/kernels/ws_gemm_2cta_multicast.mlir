// CTA pairs in a cluster of 2 x 2 CTAs (two pairs along y) sharing their A tiles by TMA
// multicast, written with NO synchronization (tcgen05-insert-sync writes the protocol,
// tcgen05_lower/multicast.py, docs/tma.md "Multicast across a cluster"):
//   C (M x N, f32) = A (M x K, bf16) x B^T, B (N x K, bf16), all row-major, K = 256.
// Each pair (ctaid.x = 2 p + r, ctaid.y = q) computes the 256 x 128 tile of C at rows
// 256 p, columns 128 q (the M = 256 MMA of 9.7.16.10.5.1: the CTA of rank r holds rows
// 128 r .. of A and C and rows 64 r .. of the tile's B rows). The two pairs of a 2 x 2
// cluster have the same p (the same A rows) and different q: A is multicast along y
// (multicast = "y": the pair at y = 0 loads it into both pairs), B is each pair's own.
// tests/test_multicast.py also runs it with cluster 4 x 1 (two pairs along x, same q,
// B multicast along x) by substituting the cluster, grid and multicast attributes.
func.func @ws_gemm_2cta_multicast(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64,
                                  cluster = array<i32: 2, 2>, grid = ["2", "2"]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %pair = arith.divui %bx, %c2 : index
  %m0 = arith.muli %pair, %c256 : index
  %n0 = arith.muli %by, %c128 : index

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[256, 128], f32>

  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %kb = %c0 to %c4 step %c1 {
        %s = arith.remui %kb, %c2 : index
        %k = arith.muli %kb, %c64 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        "tcgen05.tma_load"(%tmA, %as, %k, %m0) {multicast = "y"}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %k, %n0)
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    "tcgen05.role"() ({
      scf.for %kb = %c0 to %c4 step %c1 {
        %s = arith.remui %kb, %c2 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
        %accumulate = arith.cmpi ne, %kb, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    "tcgen05.role"() ({
      scf.for %col = %c0 to %c128 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[256, 128], f32>, index) -> !tcgen05.frag<[256, 32], f32>
        "tcgen05.store_fragment"(%frag, %C, %col, %m0, %n0)
            {ld = 256 : i64, dims = ["row_offset", "column_offset"]}
            : (!tcgen05.frag<[256, 32], f32>, !llvm.ptr<1>, index, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
