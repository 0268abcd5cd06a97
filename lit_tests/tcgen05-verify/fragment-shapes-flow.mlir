// Diagnostics of tcgen05-verify on fragments: the shapes a tcgen05.st and a
// tcgen05.frag_broadcast need (a warpgroup access moves whole columns of a buffer of its
// element type; a row vector is [rows, 1] with the rows of the fragment it is broadcast
// beside), and fragments kept out of loops and branches (their register mapping is
// planned op by op: a fragment is an operand of tcgen05 ops only).
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

// A running max as an iteration argument: refused at the loop and at its yield.
func.func @loop_carried() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %m0 = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  // expected-error @+1 {{scf.for takes a !tcgen05.frag<[128, 1], f32>: a fragment is an operand of tcgen05 ops only, it cannot flow through selects, branches, loops or calls yet (a per-row value carried across loop iterations can stay in a one-column TMEM buffer, as in examples/attention_fwd_bf16.mlir)}}
  %m = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %m0) -> (!tcgen05.frag<[128, 1], f32>) {
    %n = "tcgen05.frag_map"(%r) ({
    ^bb0(%e: f32, %row: index, %c: index):
      gpu.yield %e : f32
    }) : (!tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
    // expected-error @+1 {{scf.yield takes a !tcgen05.frag<[128, 1], f32>}}
    scf.yield %n : !tcgen05.frag<[128, 1], f32>
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
  // expected-error @+1 {{arith.select takes a !tcgen05.frag<[128, 32], f32>: a fragment is an operand of tcgen05 ops only}}
  %z = arith.select %flag, %x, %y : !tcgen05.frag<[128, 32], f32>
  return
}
