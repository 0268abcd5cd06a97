// tcgen05.frag_vote (tests/test_frag_vote.py): A (128 x 32 f32) stored into tensor memory
// and loaded back (.32x32b), each row's max compared with 0.5, and each warp's vote
// over its 32 rows picks what it stores: O = 2 A where some row of the warp's exceeds
// 0.5 (any), P = 2 A where every row does (all), A elsewhere.
!f = !tcgen05.frag<[128, 32], f32>
!r = !tcgen05.frag<[128, 1], f32>
func.func @vote(%A: !llvm.ptr<1>, %O: !llvm.ptr<1>, %P: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() {name = "T"} : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.load_fragment"(%A, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !f
  "tcgen05.st"(%t, %c0, %x) : (!tcgen05.tmem<[128, 32], f32>, index, !f) -> ()
  "tcgen05.wait"() {kind = "st"} : () -> ()
  %y = "tcgen05.ld"(%t, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !f
  %m = "tcgen05.frag_reduce"(%y) {kind = "max"} : (!f) -> !r
  %big = "tcgen05.frag_map"(%m) ({
  ^bb0(%v: f32, %row: index, %c: index):
    %half = arith.constant 0.5 : f32
    %gt = arith.cmpf ogt, %v, %half : f32
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %b = arith.select %gt, %one, %zero : f32
    gpu.yield %b : f32
  }) : (!r) -> !r
  %any = "tcgen05.frag_vote"(%big) {kind = "any"} : (!r) -> i1
  %all = "tcgen05.frag_vote"(%big) {kind = "all"} : (!r) -> i1
  %twice = "tcgen05.frag_map"(%y) ({
  ^bb0(%v: f32, %row: index, %c: index):
    %s = arith.addf %v, %v : f32
    gpu.yield %s : f32
  }) : (!f) -> !f
  scf.if %any {
    "tcgen05.store_fragment"(%twice, %O, %c0) {ld = 32 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  } else {
    "tcgen05.store_fragment"(%y, %O, %c0) {ld = 32 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  }
  scf.if %all {
    "tcgen05.store_fragment"(%twice, %P, %c0) {ld = 32 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  } else {
    "tcgen05.store_fragment"(%y, %P, %c0) {ld = 32 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  }
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  return
}
