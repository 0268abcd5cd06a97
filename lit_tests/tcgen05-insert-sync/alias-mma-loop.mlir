// tcgen05-insert-sync (the one-program planner, strategy=auto) on P written over S
// (alias = "S", planning/aliases.py) in a loop, the chained GEMM of
// tests/generator/kernelgen.py (chain = "alias", two tiles): iteration t computes S = Q K,
// loads S, stores P = bf16(S) over S's first 8 columns, then O += P V reads P as A from
// tensor memory; iteration t + 1's S = Q K writes the cells O += P V of iteration t
// reads. The two MMAs have different accumulators (O, S): no pipelined pair (9.7.16.6.2,
// "same N and accumulator and shape"), so S = Q K must wait for the completion of
// O += P V (commit -> mbarrier wait -> fence::after_thread_sync, 9.7.16.6.4.2), which the
// planner left out while the accumulators' cells were disjoint (verify-sync then refused
// the plan: "tcgen05.mma writes TMEM columns [0, 64) that tcgen05.mma ... reads, without
// ordering"). Expected by hand: verify-sync accepts the planned kernel; right after
// O += P V a commit, and a wait on its mbarrier and fence::after_thread_sync before the
// next iteration's S = Q K (the planner puts them at the end of the loop's body).
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync{report=true}' 2>&1 | FileCheck %s

// CHECK: tcgen05-verify-sync: kernel @p_over_s_loop: {{.*}}: ordered
// CHECK: scf.for
// CHECK: "tcgen05.st"
// CHECK: "tcgen05.mma"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {kind = "f16", layout = "D"}
// CHECK-NEXT: "tcgen05.commit"(%[[B:[0-9]+]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}} before tcgen05.mma at line {{[0-9]+}}: WAR on TMEM columns [0, 64) (next iteration)"}
// CHECK: "tcgen05.mbarrier_wait"(%[[B]],
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: {{^ *}}}

!s = !tcgen05.tmem<[128, 64], f32>
!p = !tcgen05.tmem<[128, 16], bf16>
!q = !tcgen05.smem<[128, 16], bf16, "K", "none">
!k = !tcgen05.smem<[64, 16], bf16, "K", "none">
!fs = !tcgen05.frag<[128, 16], f32>
!fp = !tcgen05.frag<[128, 16], bf16>
!fo = !tcgen05.frag<[128, 64], f32>
func.func @p_over_s_loop(%O: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !k
  %v = "tcgen05.smem_buffer"() : () -> !k
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !s
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !p
  %o = "tcgen05.tmem_buffer"() {name = "O"} : () -> !s
  scf.for %t = %c0 to %c2 step %c1 {
    "tcgen05.mma"(%s, %q, %k, %false) {kind = "f16"} : (!s, !q, !k, i1) -> ()
    %x = "tcgen05.ld"(%s, %c0) : (!s, index) -> !fs
    %y = "tcgen05.frag_map"(%x) ({
    ^bb0(%e: f32, %row: index, %col: index):
      %b = arith.truncf %e : f32 to bf16
      gpu.yield %b : bf16
    }) : (!fs) -> !fp
    "tcgen05.st"(%p, %c0, %y) : (!p, index, !fp) -> ()
    %acc = arith.cmpi ne, %t, %c0 : index
    "tcgen05.mma"(%o, %p, %v, %acc) {kind = "f16"} : (!s, !p, !k, i1) -> ()
  }
  %r = "tcgen05.ld"(%o, %c0) : (!s, index) -> !fo
  "tcgen05.store_fragment"(%r, %O, %c0) {ld = 64 : i64} : (!fo, !llvm.ptr<1>, index) -> ()
  return
}
