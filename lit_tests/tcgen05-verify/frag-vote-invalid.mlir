// tcgen05.frag_vote (dialect/tcgen05.irdl.mlir): tcgen05-verify checks its kind (a vote of
// PTX's vote.sync: any or all) and that its operand is a per-row value (whose element
// types frag_map, frag_reduce and ld_red restrict); the expected texts follow
// tcgen05_lower/votes.py.
// RUN: tcgen05-opt %s -p 'tcgen05-verify' --split-input-file --verify-diagnostics

// kind = "uni" is a vote.sync mode the op does not offer.
func.func @kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  // expected-error @+1 {{tcgen05.frag_vote: kind = 'uni' is not "any" or "all"}}
  %v = "tcgen05.frag_vote"(%m) {kind = "uni"} : (!tcgen05.frag<[128, 1], f32>) -> i1
  return
}

// -----

// A fragment of 32 columns is not a per-row value.
func.func @not_per_row() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{tcgen05.frag_vote: the operand (!tcgen05.frag<[128, 32], f32>) must be a per-row value (a frag_reduce or ld_red result, or a frag_map whose first input is one), one register per row in the thread of the row}}
  %v = "tcgen05.frag_vote"(%x) {kind = "any"} : (!tcgen05.frag<[128, 32], f32>) -> i1
  return
}

