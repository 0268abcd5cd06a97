// Diagnostics of tcgen05-verify on fragments: the shapes a tcgen05.st and a
// tcgen05.frag_broadcast need (a warpgroup access moves whole columns of a buffer of its
// element type; a row vector is [rows, 1] with the rows of the fragment it is broadcast
// beside), and fragments kept out of branches and selects (their register mapping is
// planned op by op: a fragment is an operand of tcgen05 ops), except per-row values an
// scf.for carries from an initial to a yielded per-row value.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

func.func @st_shapes() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %h = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
  // expected-error @+1 {{fragment element type bf16 differs from the buffer's f32}}
  "tcgen05.st"(%acc, %c0, %h) : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 32], bf16>) -> ()
  %w = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  %small = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 32], f32>
  // expected-error @+1 {{fragment of 64 columns is wider than the buffer (32 columns)}}
  "tcgen05.st"(%small, %c0, %w) : (!tcgen05.tmem<[128, 32], f32>, index, !tcgen05.frag<[128, 64], f32>) -> ()
  %half = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[64, 32], f32>
  // expected-error @+1 {{fragment has 128 rows but the buffer has 64}}
  "tcgen05.st"(%half, %c0, %x) : (!tcgen05.tmem<[64, 32], f32>, index, !tcgen05.frag<[128, 32], f32>) -> ()
  return
}

// -----

func.func @broadcast_shapes() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 64], f32>
  %half = "tcgen05.tmem_buffer"() {layout = "F"} : () -> !tcgen05.tmem<[64, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  %y = "tcgen05.ld"(%half, %c0) : (!tcgen05.tmem<[64, 32], f32>, index) -> !tcgen05.frag<[64, 32], f32>
  // expected-error @+1 {{tcgen05.frag_broadcast: the row vector must be a [64, 1] fragment, not [128, 1]}}
  %b = "tcgen05.frag_broadcast"(%m, %y) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[64, 32], f32>) -> !tcgen05.frag<[64, 32], f32>
  // expected-error @+1 {{tcgen05.frag_broadcast: the row vector must be a [128, 1] fragment, not [128, 32]}}
  %z = "tcgen05.frag_broadcast"(%x, %x) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// An scf.for carries per-row values only: a fragment of several columns is held in
// registers the message shapes planned for it decide.
func.func @loop_carried_columns() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{scf.for: iteration argument #0 is a !tcgen05.frag<[128, 32], f32>: an scf.for carries per-row values ([rows, 1], one register per row) only, not fragments of several columns, whose registers the message shapes planned for them decide}}
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %x) -> (!tcgen05.frag<[128, 32], f32>) {
    // expected-error @+1 {{scf.yield: iteration argument #0 is a !tcgen05.frag<[128, 32], f32>}}
    scf.yield %r : !tcgen05.frag<[128, 32], f32>
  }
  return
}

// -----

// The initial value and the value yielded must both be per-row values (held alike, one
// register per row): a one-column load is held as its message is.
func.func @loop_carried_held_otherwise() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %m0 = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  %one = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 1], f32>
  %m = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %m0) -> (!tcgen05.frag<[128, 1], f32>) {
    // expected-error @+1 {{scf.yield: the value yielded for iteration argument #0 is not a per-row value (a frag_reduce or ld_red result, a frag_map of no input or whose first input is one, or an iteration argument starting from one): the initial and the yielded value must be held alike, one register per row in the thread of the row}}
    scf.yield %one : !tcgen05.frag<[128, 1], f32>
  }
  // expected-error @+1 {{scf.for: the initial value of iteration argument #0 is not a per-row value}}
  %n = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %one) -> (!tcgen05.frag<[128, 1], f32>) {
    scf.yield %m0 : !tcgen05.frag<[128, 1], f32>
  }
  return
}

// -----

// A fragment chosen by a branch.
func.func @branch(%flag: i1) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{arith.select takes a !tcgen05.frag<[128, 32], f32>: a fragment is an operand of tcgen05 ops only, it cannot flow through selects, branches, loops or calls (an scf.for may carry a per-row value as an iteration argument)}}
  %z = arith.select %flag, %x, %y : !tcgen05.frag<[128, 32], f32>
  return
}
