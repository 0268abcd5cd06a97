// Warp-specialized kernels whose synchronization tcgen05-insert-sync does not plan across
// roles (tcgen05_lower/synchronization/roles.py): located diagnostics naming the rule.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' --split-input-file --verify-diagnostics
func.func @unsupported(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %frag = "tcgen05.ld"(%acc, %c0)
          : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 128 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
        // expected-error @+1 {{tcgen05-insert-sync{strategy=minimal}: tcgen05.st in role 'epilogue' (warps 4-7) is not planned across roles yet; write the kernel's synchronization by hand and use strategy=none}}
      "tcgen05.st"(%acc, %c0, %frag) : (!tcgen05.tmem<[128, 128], f32>, index, !tcgen05.frag<[128, 32], f32>) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @two_runs(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
        // expected-error @+1 {{tcgen05-insert-sync: this shared-memory tile is read by two runs of MMAs; role planning makes one ring stage of each run of MMAs on the same tiles (a tile belongs to one stage)}}
        "tcgen05.mma"(%acc, %b0, %a0, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
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

func.func @two_fill_roles(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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
        // expected-error @+1 {{tcgen05-insert-sync: the tiles smem tile 0 and smem tile 1 are filled by several roles; role planning needs one load role per stage}}
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
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

func.func @own_fills(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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

      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        // expected-error @+1 {{tcgen05-insert-sync: a role that fills the tiles its own MMAs read is planned as one program only outside tcgen05.partitions}}
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
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

func.func @two_blocks(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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
        "tcgen05.smem_fill"(%A, %a0, %c0) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      scf.for %k = %c0 to %c256 step %c128 {
        // expected-error @+1 {{tcgen05-insert-sync: the fills of stage smem tile 0 and smem tile 1 sit in different blocks of role 'load' (warp 0)}}
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
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

func.func @nested_ld(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %r = %c0 to %c64 step %c32 {
      scf.for %q = %c0 to %c64 step %c32 {
        // expected-error @+1 {{tcgen05-insert-sync: an accumulator written or read in nested loops (a persistent tile loop, an accumulator ring) is not planned across roles yet; write its synchronization by hand and use strategy=none}}
        %frag = "tcgen05.ld"(%acc, %q)
          : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        "tcgen05.store_fragment"(%frag, %C, %q) {ld = 128 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
      }
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @not_loaded(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c128 {
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
        // expected-error @+1 {{tcgen05-insert-sync: role planning needs every accumulator the MMAs write in roles to be loaded by another role (its commit and wait also order the dealloc after the join), and this one is not loaded}}
        "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({

      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @not_written(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
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

      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({

      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05-insert-sync: role planning orders the loads of a TMEM buffer after the MMAs of another role that write it, and no MMA in the roles writes this one}}
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
