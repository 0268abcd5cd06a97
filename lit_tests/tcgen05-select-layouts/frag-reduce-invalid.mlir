// Diagnostics on per-row reductions: tcgen05-verify checks tcgen05.frag_reduce and
// tcgen05.frag_broadcast themselves; tcgen05-select-layouts checks that the fragment is
// held one row per thread (.32x32b of a layout that keeps a row on one lane), since a
// reduction across the threads that share a row is not supported yet.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' --split-input-file --verify-diagnostics

// A 16-lane message spreads each row over four threads.
func.func @sixteen_lanes() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) {shape = "16x256b"} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error-re @+1 {{tcgen05.frag_reduce needs the fragment held one row per thread (.32x32b of a layout that keeps a row on one lane); the load at {{.*}} holds it as .16x256b.x4, 2 messages x 4 warps, 32 registers per thread (Layout D): a 16-lane message spreads each row over several threads, and a reduction across threads is not supported yet}}
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  return
}
// -----
// Layout E puts columns [N/2, N) of a row on the lanes of other warps.
func.func @folded(%x0: index) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() {layout = "E"} : () -> !tcgen05.tmem<[64, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[64, 64], f32>, index) -> !tcgen05.frag<[64, 64], f32>
  // expected-error-re @+1 {{tcgen05.frag_reduce needs the fragment held one row per thread {{.*}}(Layout E): Layout E puts the columns of a row beyond the first 32 on other lanes, and a reduction across threads is not supported yet}}
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
  // expected-error-re @+1 {{tcgen05.frag_broadcast needs the fragment held one row per thread {{.*}} .16x128b{{.*}}}}
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
// A per-row value must be held one row per thread where it is broadcast or mapped beside
// another: the per-row result of a .16x32bx2 ld.red is held by lane halves (threads l and
// l + 16 share a row), not as the thread's own row.
func.func @rows_held() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f, %r = "tcgen05.ld_red"(%s, %c0) {op = "max", shape = "16x32bx2"}
      : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 1], f32>)
  // expected-error-re @+1 {{tcgen05.frag_broadcast needs the fragment held one row per thread {{.*}} holds it as .16x32bx2.x16{{.*}}: a 16-lane message spreads each row over several threads{{.*}}}}
  %b = "tcgen05.frag_broadcast"(%r, %x) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  // expected-error-re @+1 {{tcgen05.frag_map needs the fragment held one row per thread {{.*}} holds it as .16x32bx2.x16{{.*}}}}
  %z = "tcgen05.frag_map"(%m, %r) ({
  ^bb0(%a: f32, %b2: f32, %row: index, %c: index):
    %q = arith.addf %a, %b2 : f32
    gpu.yield %q : f32
  }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
  return
}
// -----
// A row vector an scf.for carries is held alike at its start and where it is yielded:
// one register per row, in the thread of the row.
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
    // expected-error-re @+1 {{scf.yield needs the fragment held one row per thread {{.*}} holds it as .16x32bx2.x16{{.*}}: a 16-lane message spreads each row over several threads{{.*}}}}
    scf.yield %red : !tcgen05.frag<[128, 1], f32>
  }
  return
}
