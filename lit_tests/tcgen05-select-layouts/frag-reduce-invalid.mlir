// Diagnostics on per-row reductions: tcgen05-verify checks tcgen05.frag_reduce and
// tcgen05.frag_broadcast themselves; tcgen05-select-layouts checks that the fragment is
// held one row per message in each thread (.32x32b, or .16x32bx2 whose threads l and
// l xor 16 share a row and are combined by a shuffle; isa/row_slots.py) of a layout that
// keeps a row on one warp's lanes, and that the operands of one op give each thread the
// same rows (values never move between threads there).
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' --split-input-file --verify-diagnostics

// .16x256b gives each thread parts of two rows in one message (lanes l/4 and l/4 + 8).
func.func @sixteen_lanes() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) {shape = "16x256b"} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error-re @+1 {{tcgen05.frag_reduce needs the fragment held one row per message in each thread (.32x32b or .16x32bx2 of a layout that keeps a row on one warp's lanes); the load at {{.*}} holds it as .16x256b.x4, 2 messages x 4 warps, 32 registers per thread (Layout D): a .16x256b message holds parts of two rows in each thread; a reduction is supported for .32x32b and .16x32bx2, whose messages hold one row per thread}}
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  return
}
// -----
// Layout E puts columns [N/2, N) of a row on the lanes of other warps.
func.func @folded(%x0: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() {layout = "E"} : () -> !tcgen05.tmem<[64, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 64], f32>
  // expected-error-re @+1 {{tcgen05.frag_reduce needs the fragment held one row per message in each thread {{.*}}(Layout E): Layout E puts the columns of a row beyond the first 32 on other lanes (other warps')}}
  %m = "tcgen05.frag_reduce"(%x) {kind = "sum"} : (!tcgen05.frag<[64, 64], f32>) -> !tcgen05.frag<[64, 1], f32>
  return
}
// -----
// The fragment a row vector is broadcast beside must be held one row per thread too.
func.func @broadcast_like(%x0: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.ld"(%s, %c0) {shape = "16x128b"} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  // expected-error-re @+1 {{tcgen05.frag_broadcast needs the fragment held one row per message in each thread {{.*}} .16x128b{{.*}}}}
  %b = "tcgen05.frag_broadcast"(%m, %y) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  return
}
// -----
func.func @kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{tcgen05.frag_reduce: kind = 'min' is not "max" or "sum"}}
  %m = "tcgen05.frag_reduce"(%x) {kind = "min"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  return
}
// -----
func.func @shape_and_type() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], i32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 64], i32>, index) -> !tcgen05.frag<[128, 32], i32>
  // expected-error @+2 {{tcgen05.frag_reduce reduces f32 fragments into f32, not i32 into i32}}
  // expected-error @+1 {{tcgen05.frag_reduce: the result must be a [128, 1] fragment (one value per row), not [128, 2]}}
  %m = "tcgen05.frag_reduce"(%x) {kind = "sum"} : (!tcgen05.frag<[128, 32], i32>) -> !tcgen05.frag<[128, 2], i32>
  return
}
// -----
func.func @broadcast_rules() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // A one-column load is held one row per thread (.32x32b.x1): it may be broadcast.
  %y = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 1], f32>
  %b = "tcgen05.frag_broadcast"(%y, %x) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  // expected-error @+1 {{tcgen05.frag_broadcast: the result must be a [128, 32] fragment of f32}}
  %c = "tcgen05.frag_broadcast"(%m, %x) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 16], f32>
  return
}
// -----
// A per-row value must be held with the same rows in each thread as what it is broadcast
// or mapped beside: the per-row result of a .16x32bx2 ld.red of Layout D is held by lane
// halves (thread l holds rows 32w + l mod 16 and 32w + 16 + l mod 16), a .32x32b
// fragment row 32w + l.
func.func @rows_held() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f, %r = "tcgen05.ld_red"(%s, %c0) {op = "max", shape = "16x32bx2"}
      : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 1], f32>)
  // expected-error-re @+1 {{tcgen05.frag_broadcast: its per-row operands must be held alike: one is held as .16x32bx2.x16, 2 messages x 4 warps, 32 registers per thread (Layout D) and another as .32x32b.x32, 1 message x 4 warps, 32 registers per thread (Layout D), which give a thread different rows; per-row values do not move between threads}}
  %b = "tcgen05.frag_broadcast"(%r, %x) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  // expected-error-re @+1 {{tcgen05.frag_map: its per-row operands must be held alike: one is held as .32x32b.x32{{.*}} and another as .16x32bx2.x16{{.*}}}}
  %z = "tcgen05.frag_map"(%m, %r) ({
  ^bb0(%a: f32, %b2: f32, %row: index, %c: index):
    %q = arith.addf %a, %b2 : f32
    gpu.yield %q : f32
  }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
  return
}
// -----
// A row vector an scf.for carries is held alike at its start and where it is yielded:
// one register per row (a .16x32bx2 ld.red of Layout D leaves two rows per thread).
func.func @carried_held_otherwise() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 64], f32>
  %m0 = "tcgen05.frag_map"() ({
  ^bb0(%row: index, %c: index):
    %ninf = arith.constant 0xFF800000 : f32
    gpu.yield %ninf : f32
  }) : () -> !tcgen05.frag<[128, 1], f32>
  %m = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %m0) -> (!tcgen05.frag<[128, 1], f32>) {
    %f, %red = "tcgen05.ld_red"(%s, %c0) {op = "max", shape = "16x32bx2"}
        : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 1], f32>)
    // expected-error-re @+1 {{scf.yield: its per-row operands must be held alike: one is held as .16x32bx2.x16, 2 messages x 4 warps, 32 registers per thread (Layout D), two rows per thread, where a carried row vector is one register}}
    scf.yield %red : !tcgen05.frag<[128, 1], f32>
  }
  return
}
