// tcgen05-insert-sync{strategy=handoffs} at M = 64: S, P and O sit on half lanes (Layout
// F, lanes 0-15 of each quarter), where tcgen05-verify-sync takes each access as one of
// all the buffer's cells (sync_check/cta_footprints.py); the softmax role stores P in two
// chunks of 32 columns (a loop of step 32), which thread_order.py compared by column and
// left unordered, and verify-sync refused the plan ("tcgen05.st ... writes TMEM columns
// ... that tcgen05.st at ... also writes, without ordering ...: missing tcgen05.wait::st";
// the generator's chained GEMM at M = 64 with P apart, tests/generator/kernelgen.py).
// Expected by hand: the columns of a half-lane buffer count as unknown, so the store of
// P waits for the stores before it: one wait::st in the chunk loop, right before the
// tcgen05.st of P (9.7.16.6.4.2); verify-sync accepts the kernel.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=handoffs},tcgen05-verify-sync{report=true}' 2>&1 | FileCheck %s

// CHECK: tcgen05-verify-sync: kernel @half_lanes: {{.*}}: ordered
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32 {
// CHECK: "tcgen05.ld"
// CHECK: "tcgen05.wait"() {kind = "st", reason = "tcgen05.st of P after this thread's tcgen05.st of cells it may share
// CHECK-NEXT: "tcgen05.st"

!q = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!k = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!v = !tcgen05.smem<[64, 64], bf16, "MN", "128B">
!s = !tcgen05.tmem<[64, 64], f32>
!p = !tcgen05.tmem<[64, 64], bf16>
!f = !tcgen05.frag<[64, 32], f32>
!fb = !tcgen05.frag<[64, 32], bf16>
!fo = !tcgen05.frag<[64, 64], f32>
func.func @half_lanes(%out: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
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
        scf.for %col = %c0 to %c64 step %c32 {
          %x = "tcgen05.ld"(%S, %col) : (!s, index) -> !f
          %b = "tcgen05.frag_map"(%x) ({
          ^bb0(%e: f32, %row: index, %c: index):
            %y = arith.truncf %e : f32 to bf16
            gpu.yield %y : bf16
          }) : (!f) -> !fb
          "tcgen05.st"(%P, %col, %b) : (!p, index, !fb) -> ()
        }
      }
      %r = "tcgen05.ld"(%O, %c0) : (!s, index) -> !fo
      "tcgen05.store_fragment"(%r, %out, %c0) {ld = 64 : i64} : (!fo, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
