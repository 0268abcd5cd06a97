// tcgen05-insert-sync{strategy=handoffs} (tcgen05_lower/synchronization/role_turns.py,
// role_handoffs.py) on kernels it does not plan: located diagnostics naming the rule.
// Each kernel but the first and the last two is handoffs.mlir's @handoffs (an MMA role and
// a softmax role handing S, P and O to each other) with one change, in its comment;
// the expected texts follow role_turns.py's and role_handoffs.py's docstrings.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=handoffs}' --split-input-file --verify-diagnostics

// A kernel without warp roles.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!f = !tcgen05.frag<[128, 64], f32>
// expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs} plans the handoffs between warp roles; this kernel has no tcgen05.partitions}}
func.func @no_roles(%out: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
  %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
  "tcgen05.store_fragment"(%x, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// A fence written in the softmax role.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @written(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs} writes the roles' synchronization, and this kernel writes some of its own (use strategy=loads or none)}}
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The softmax role loads and stores a buffer of its own only.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @unshared(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %X = "tcgen05.tmem_buffer"() {name = "X"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: no TMEM buffer is shared by two roles, so there is no handoff to plan (use strategy=loads)}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %x = "tcgen05.ld"(%X, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%X, %c0, %x) : (!s, index, !f) -> ()
      }
      %r = "tcgen05.ld"(%X, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A tcgen05.ld_red of S.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @ld_red(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_103a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: tcgen05.ld_red in a role is not planned yet (the handoffs cover tcgen05.mma, tcgen05.ld and tcgen05.st)}}
        %x, %red = "tcgen05.ld_red"(%S, %c0) {op = "max"} : (!s, index) -> (!f, !tcgen05.frag<[128, 1], f32>)
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// P a 2-stage TMEM ring (stage 0 used).
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @staged(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P2 = "tcgen05.tmem_buffer"() {name = "P"} : () -> !tcgen05.tmem<[2, 128, 64], bf16>
  %P = "tcgen05.tmem_stage"(%P2, %c0) : (!tcgen05.tmem<[2, 128, 64], bf16>, index) -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: a multi-stage TMEM buffer (tmem_stage ring) is not planned yet: each stage would need handoffs of its own}}
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// S or O, chosen at run time.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @untraced(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %sel = arith.select %true, %S, %O : !s
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: a TMEM operand that may name 2 buffers; each operand must name one buffer}}
        %x = "tcgen05.ld"(%sel, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The softmax role's loop from 1.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @from_one(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: the loop of role 'softmax''s turns must count from 0 by 1 (its iteration is the turn)}}
      scf.for %j = %c1 to %n1 step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The softmax role's loop bound another argument.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @unrelated(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: the bounds of the loops of roles 'mma' and 'softmax' on S, P, O must differ by a constant}}
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %m step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The softmax role's loop one iteration short.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @counts(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: roles 'mma' and 'softmax' take different numbers of turns on S, P, O (their prologues, loops and epilogues differ by 1 turns)}}
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The softmax role without its loop.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @one_loop(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: role 'mma' takes its turns on S, P, O in a loop and the other role in none: their turns cannot be paired}}
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The MMA role's first MMA accumulates into S.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @both_read(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %true) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: the first turns of roles 'mma' and 'softmax' on S, P, O both read what the other writes: which goes first is not determined}}
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The softmax role stores P, the MMA role reads it (into O, which no other role loads).
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @mma_last(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %X = "tcgen05.tmem_buffer"() {name = "X"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: the last turn on P is the MMA role's: no role reads what its MMAs write there}}
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        %x = "tcgen05.ld"(%X, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// No epilogue in either role: the softmax role's last turn is in its loop.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @loop_last(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: role 'softmax''s last turn on S, P is an iteration of its loop, whose signal would have no receiver in the last iteration; give the role an epilogue turn}}
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A third role loads S: a ring of three roles (synchronization/role_rings.py), whose
// order after the MMA role is not determined: softmax and third both read S first, and
// neither writes in its first turn what the other reads.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @three(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 384 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: the order of the turns of roles 'softmax', 'third' on S is not determined by what their first turns read and write}}
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "tcgen05.role"() ({
      %y = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%y, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "third", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Role mid loads W, which the MMA role writes, and writes Z, which the softmax role loads.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @both_sides(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 384 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %Z = "tcgen05.tmem_buffer"() {name = "Z"} : () -> !s
  %W = "tcgen05.tmem_buffer"() {name = "W"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      "tcgen05.mma"(%W, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      %z = "tcgen05.ld"(%Z, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: role 'mid' issues MMAs on some shared TMEM buffers and loads or stores others; the handoffs are between an MMA role and roles that only load and store}}
    "tcgen05.role"() ({
      %w = "tcgen05.ld"(%W, %c0) : (!s, index) -> !f
      "tcgen05.mma"(%Z, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mid", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The TMA loads' rules (pipelined_loads.py) named under strategy=handoffs: no MMA reads the loaded ring (the MMA reads another tile).
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @loads_unread(%C: !llvm.ptr<1>, %nb: index,
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %x = "tcgen05.smem_buffer"() : () -> !kt
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
// expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: no tcgen05.mma reads the tiles the TMA loads fill}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mma"(%acc, %q, %x, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// P an alias of S (its cells are S's), and the MMA role's O += P V and the S it writes
// over P inside one scf.if of its loop: no wait can stand between them at the turn's level.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @hazard_nested(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %P = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !p
  %O = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        scf.if %true {
          "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
          // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: this MMA writes cells of S that an earlier MMA with another accumulator reads or writes inside the same nested op; the wait between them (9.7.16.6.2: no pipelined pair) is planned only between ops of the turn's block}}
          "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
        }
      }
      %accl = arith.cmpi ne, %n, %c0 : index
      "tcgen05.mma"(%O, %P, %v, %accl) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        %b = "tcgen05.frag_map"(%x) ({
        ^bb0(%e: f32, %row: index, %c: index):
          %y = arith.truncf %e : f32 to bf16
          gpu.yield %y : bf16
        }) : (!f) -> !fb
        "tcgen05.st"(%P, %c0, %b) : (!p, index, !fb) -> ()
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !f
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
