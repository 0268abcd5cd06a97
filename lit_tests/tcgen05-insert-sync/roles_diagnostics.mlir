// Warp-specialized kernels whose synchronization tcgen05-insert-sync cannot plan across
// roles (tcgen05_lower/synchronization/roles.py): located diagnostics naming the rule.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' --split-input-file --verify-diagnostics
func.func @mismatch(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %a0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error-re @+1 {{tcgen05-insert-sync: the loop that fills stage smem tile 0 and smem tile 1 in role 'load' (warp 0) (bounds (0, 256, 64)) and the loop of its MMAs in role 'mma' (warp 1) (bounds (0, 256, 128)) must have the same constant lower bound, upper bound and step, so that iteration i of one is iteration i of the other}}
      scf.for %k = %c0 to %c256 step %c64 {
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "k_mn", src_ld = 128 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        %not_first = arith.cmpi ne, %k, %c0 : index
        "tcgen05.mma"(%acc, %a0, %b0, %not_first) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %frag = "tcgen05.ld"(%acc, %c0)
          : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 128 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @nested_fill(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %a0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        %f = arith.cmpi ne, %k, %c0 : index
        scf.if %f {
      // expected-error @+1 {{tcgen05-insert-sync: tcgen05.smem_fill sits in scf.if nested in its role; role planning supports ops in the role's body or in one scf.for directly in it, not yet a K loop in a tile loop (a persistent kernel) nor a branch: write this kernel's synchronization by hand and use strategy=none}}
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "k_mn", src_ld = 128 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        %not_first = arith.cmpi ne, %k, %c0 : index
        "tcgen05.mma"(%acc, %a0, %b0, %not_first) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %frag = "tcgen05.ld"(%acc, %c0)
          : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 128 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @persistent(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %true = arith.constant true
  %a0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c64 step %c32 {
      scf.for %k = %c0 to %c256 step %c128 {
        // expected-error @+1 {{tcgen05-insert-sync: tcgen05.smem_fill sits in scf.for nested in its role; role planning supports ops in the role's body or in one scf.for directly in it, not yet a K loop in a tile loop (a persistent kernel) nor a branch}}
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "k_mn", src_ld = 128 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %t = %c0 to %c64 step %c32 {
      scf.for %k = %c0 to %c256 step %c128 {
        %not_first = arith.cmpi ne, %k, %c0 : index
        "tcgen05.mma"(%acc, %a0, %b0, %not_first) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
      }
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %frag = "tcgen05.ld"(%acc, %c0)
          : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 128 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
