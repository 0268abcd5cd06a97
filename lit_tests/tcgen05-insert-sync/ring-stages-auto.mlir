// tcgen05-insert-sync{ring-stages=auto} (or the older spelling ring_stages=auto) derives
// the deepest ring that fits the dynamic shared memory of a CTA (232448 bytes on sm_100,
// 227 KiB) beside the kernel's other tiles; when not even one stage fits, it refuses at
// the first TMA load. The kernel is
// examples/ws_persistent_gemm_bf16.mlir with one more tile (hand count in its comment).
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{ring-stages=auto}' --verify-diagnostics
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{ring_stages=auto}' --verify-diagnostics

func.func @auto_finds_no_depth(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 256>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 256, 64], bf16, "K", "128B">
  // A tile of 196608 bytes besides the rings: with one stage of A and B (49152 bytes) the
  // CTA would need 245760 of the 232448 bytes of dynamic shared memory.
  %big = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[6, 256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[2, 128, 256], f32>

  "tcgen05.partitions"() ({
    // Load role: warp 0; one thread issues the TMA loads.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %base = arith.muli %t, %c4 : index
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %k = arith.muli %kb, %c64 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // expected-error @+1 {{tcgen05-insert-sync{ring-stages=auto}: not even one stage of the rings fits the 232448 bytes of dynamic shared memory with the kernel's other tiles}}
          "tcgen05.tma_load"(%tmA, %as, %k, %c0)
              : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
          "tcgen05.tma_load"(%tmB, %bs, %k, %n)
              : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

    // MMA role: warp 1.
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %base = arith.muli %t, %c4 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %kb = %c0 to %c4 step %c1 {
          %it = arith.addi %base, %kb : index
          %s = arith.remui %it, %c4 : index
          %as = "tcgen05.smem_stage"(%a, %s) : (!tcgen05.smem<[4, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
          %bs = "tcgen05.smem_stage"(%b, %s) : (!tcgen05.smem<[4, 256, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
          // The first MMA of a tile overwrites its accumulator stage.
          %accumulate = arith.cmpi ne, %kb, %c0 : index
          "tcgen05.mma"(%d, %as, %bs, %accumulate) {kind = "f16", k_offset = 0 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 16 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 32 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
          "tcgen05.mma"(%d, %as, %bs, %true) {kind = "f16", k_offset = 48 : i64}
              : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

    // Epilogue role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..).
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c4 step %c1 {
        %n = arith.muli %t, %c256 : index
        %j = arith.remui %t, %c2 : index
        %d = "tcgen05.tmem_stage"(%acc, %j) : (!tcgen05.tmem<[2, 128, 256], f32>, index) -> !tcgen05.tmem<[128, 256], f32>
        scf.for %col = %c0 to %c256 step %c32 {
          %frag = "tcgen05.ld"(%d, %col) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
          %dest = arith.addi %n, %col : index
          "tcgen05.store_fragment"(%frag, %C, %dest) {ld = 1024 : i64}
              : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
