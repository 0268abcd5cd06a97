// tcgen05.frag_vote needs the per-row value held one row per thread (.32x32b): a warp's 32
// threads then hold its 32 lanes and vote together (lowering/votes.py). A value reduced
// from a .16x32bx2 load is held by threads l and l xor 16 of a row, two rows per thread.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-lower-to-llvm' --verify-diagnostics

func.func @halves(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%s, %c0) {shape = "16x32bx2"} : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %m = "tcgen05.frag_reduce"(%x) {kind = "max"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  // expected-error-re @+1 {{tcgen05.frag_vote: the per-row value is held as {{.*}}16x32bx2{{.*}}: a warp's vote needs one row per thread (.32x32b), its 32 threads holding the 32 rows of its lanes}}
  %v = "tcgen05.frag_vote"(%m) {kind = "any"} : (!tcgen05.frag<[128, 1], f32>) -> i1
  scf.if %v {
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  return
}
