// tcgen05-insert-sync{strategy=handoffs} on rings of handoffs it does not plan
// (tcgen05_lower/synchronization/role_rings.py): a TMEM buffer accessed by three or more
// roles, each kernel a located diagnostic naming the rule (the expected texts follow
// role_rings.py's docstring). The determined ring of the later kernels: the MMA role
// writes S (before its loop and in it), the softmax role loads S and stores it back (in
// its loop and after it), the correction role loads it.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=handoffs}' --split-input-file --verify-diagnostics

// The MMA role's first turn reads P (O += P V) before anything writes it; softmax's
// and third's first turns write P first: the MMA role must go first in a ring.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @mma_not_first(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 416 : i64, cta_group = 1 : i64}} {
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
      scf.for %j = %c0 to %n step %c1 {
        %acc = arith.cmpi ne, %j, %c0 : index
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: in the ring of handoffs on P the MMA role's first turn must be the one that writes before it reads (roles whose first turn does: 'softmax', 'third')}}
        "tcgen05.mma"(%O, %P, %v, %acc) {kind = "f16"} : (!s, !p, !v, i1) -> ()
      }
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
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
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
      "gpu.yield"() : () -> ()
    }) {name = "third", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Two roles issue MMAs on S, which a third loads: a ring has one MMA role.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @two_issuers(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 416 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: the TMEM buffers S are accessed by 3 roles, 2 of them issuing MMAs on them; a ring of handoffs has one MMA role}}
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma2", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "gpu.yield"() : () -> ()
    }) {name = "reader", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The MMA role also loads S, which two other roles load.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @mma_loads(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 416 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: role 'mma' issues MMAs on S and loads or stores them; the other roles of a ring only load and store}}
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 4 : i64} : () -> ()
    "tcgen05.role"() ({
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "tcgen05.role"() ({
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "gpu.yield"() : () -> ()
    }) {name = "reader", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The correction role takes its one turn outside any loop, the others in loops.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @loop_and_none(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 416 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: role 'mma' takes its turns on S in a loop and another role of their ring in none: their turns cannot be paired}}
      scf.for %j = %c0 to %n step %c1 {
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        "tcgen05.st"(%S, %c0, %x) : (!s, index, !f) -> ()
      }
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "tcgen05.st"(%S, %c0, %x) : (!s, index, !f) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "tcgen05.role"() ({
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "gpu.yield"() : () -> ()
    }) {name = "corr", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The softmax role's loop runs to %m, the MMA role's to %n.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @bounds_apart(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 416 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: the bounds of the loops of roles 'mma' and 'softmax' on S must differ by a constant}}
      scf.for %j = %c0 to %n step %c1 {
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %m step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        "tcgen05.st"(%S, %c0, %x) : (!s, index, !f) -> ()
      }
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "tcgen05.st"(%S, %c0, %x) : (!s, index, !f) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      }
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "gpu.yield"() : () -> ()
    }) {name = "corr", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The correction role has no epilogue turn: n turns against the others' n + 1.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @turns_differ(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 416 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: roles 'mma' and 'corr' take different numbers of turns on S (their prologues, loops and epilogues differ by 1 turns)}}
      scf.for %j = %c0 to %n step %c1 {
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        "tcgen05.st"(%S, %c0, %x) : (!s, index, !f) -> ()
      }
      %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      "tcgen05.st"(%S, %c0, %x) : (!s, index, !f) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      }
      "gpu.yield"() : () -> ()
    }) {name = "corr", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Every role takes n + 1 turns, the last role's all in its loop: the signal of its
// last iteration would have no receiver.
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 64], f32>
!fb = !tcgen05.frag<[128, 64], bf16>
func.func @last_in_loop(%out: !llvm.ptr<1>, %n: index, %m: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 416 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !v
  %S = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %n1 = arith.addi %n, %c1 : index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      scf.for %j = %c0 to %n step %c1 {
        "tcgen05.mma"(%S, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
        "tcgen05.st"(%S, %c0, %x) : (!s, index, !f) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %n1 step %c1 {
        // expected-error @+1 {{tcgen05-insert-sync{strategy=handoffs}: role 'corr''s last turn on S, the last of their ring, is an iteration of its loop, whose signal would have no receiver in the last iteration; give the role an epilogue turn}}
        %x = "tcgen05.ld"(%S, %c0) : (!s, index) -> !f
      }
      "gpu.yield"() : () -> ()
    }) {name = "corr", first_warp = 8 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
