// ring-stages=N retypes the shared-memory rings to N stages; the TMEM rings the scale
// factors are copied into must be as deep as them (synchronization/scale_copies.py), and
// the pass does not retype those: with copies the depth stays the kernel's. The kernel is
// examples/ws_gemm_mxf8_blockscaled.mlir.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{ring-stages=3}' --verify-diagnostics

func.func @ring_stages_with_copies(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %SFA: !llvm.ptr<1>,
    %SFB: !llvm.ptr<1>, %C: !llvm.ptr<1>, %M: i32, %N: i32, %K: i32,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 128, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 128, 128>,
                                              swizzle = "128B"}},
    %tmSFA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "SFA", box = array<i64: 16, 32>,
                                                swizzle = "none"}},
    %tmSFB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "SFB", box = array<i64: 16, 32>,
                                                swizzle = "none"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64,
                                  grid = ["ceildiv(N, 128)", "ceildiv(M, 128)"]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %m = arith.index_castui %M : i32 to index
  %n = arith.index_castui %N : i32 to index
  %k_size = arith.index_castui %K : i32 to index
  %tile_n = gpu.block_id x
  %tile_m = gpu.block_id y
  %m0 = arith.muli %tile_m, %c128 : index
  %n0 = arith.muli %tile_n, %c128 : index
  %kb_tmp = arith.addi %k_size, %c127 : index
  %kblocks = arith.divui %kb_tmp, %c128 : index

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">
  %sa = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 32, 16], i8, "K", "none">
  %sb = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 32, 16], i8, "K", "none">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !tcgen05.tmem<[2, 128, 4], f8E8M0FNU>
  %sfb = "tcgen05.tmem_buffer"() {name = "sfb"} : () -> !tcgen05.tmem<[2, 128, 4], f8E8M0FNU>

  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %kb = %c0 to %kblocks step %c1 {
        %s = arith.remui %kb, %c2 : index
        %k = arith.muli %kb, %c128 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">, index) -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">, index) -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
        %sas = "tcgen05.smem_stage"(%sa, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sbs = "tcgen05.smem_stage"(%sb, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %ra0 = arith.muli %tile_m, %kblocks : index
        %ra1 = arith.addi %ra0, %kb : index
        %ra = arith.muli %ra1, %c32 : index
        %rb0 = arith.muli %tile_n, %kblocks : index
        %rb1 = arith.addi %rb0, %kb : index
        %rb = arith.muli %rb1, %c32 : index
        "tcgen05.tma_load"(%tmA, %as, %k, %m0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, index, index) -> ()
        "tcgen05.tma_load"(%tmB, %bs, %k, %n0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, index, index) -> ()
        "tcgen05.tma_load"(%tmSFA, %sas, %c0, %ra) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index, index) -> ()
        "tcgen05.tma_load"(%tmSFB, %sbs, %c0, %rb) : (!llvm.ptr<1>, !tcgen05.smem<[32, 16], i8, "K", "none">, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    "tcgen05.role"() ({
      scf.for %kb = %c0 to %kblocks step %c1 {
        %s = arith.remui %kb, %c2 : index
        %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">, index) -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
        %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[2, 128, 128], f8E4M3FN, "K", "128B">, index) -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
        %sas = "tcgen05.smem_stage"(%sa, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %sbs = "tcgen05.smem_stage"(%sb, %s) : (!tcgen05.smem<[2, 32, 16], i8, "K", "none">, index) -> !tcgen05.smem<[32, 16], i8, "K", "none">
        %ta = "tcgen05.tmem_stage"(%sfa, %s) : (!tcgen05.tmem<[2, 128, 4], f8E8M0FNU>, index) -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
        %tb = "tcgen05.tmem_stage"(%sfb, %s) : (!tcgen05.tmem<[2, 128, 4], f8E8M0FNU>, index) -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
        // expected-error @+1 {{tcgen05-insert-sync{ring-stages=3}: the rings' depth stays the kernel's (2) when tcgen05.cp copies scale factors into TMEM rings of that depth}}
        "tcgen05.cp"(%ta, %sas) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
        "tcgen05.cp"(%tb, %sbs) {shape = "32x128b", multicast = "warpx4"} : (!tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.smem<[32, 16], i8, "K", "none">) -> ()
        %accumulate = arith.cmpi ne, %kb, %c0 : index
        "tcgen05.mma"(%acc, %as, %bs, %accumulate, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 32 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 64 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
        "tcgen05.mma"(%acc, %as, %bs, %true, %ta, %tb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 96 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    "tcgen05.role"() ({
      scf.for %col = %c0 to %c128 step %c32 {
        %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        %out = "tcgen05.frag_map"(%frag) ({
        ^bb0(%x: f32, %row: index, %c: index):
          %y = arith.truncf %x : f32 to bf16
          gpu.yield %y : bf16
        }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
        "tcgen05.store_fragment"(%out, %C, %col, %n, %m0, %n0, %m, %n)
            {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}
            : (!tcgen05.frag<[128, 32], bf16>, !llvm.ptr<1>, index, index, index, index, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
