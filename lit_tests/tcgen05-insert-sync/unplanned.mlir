// The synchronization passes read where every TMEM buffer sits; on IR that
// tcgen05-plan-tmem has not placed they say which passes must run first (before, an
// unplanned buffer counted as all of tensor memory: needless waits, false races).
// RUN: tcgen05-opt %s -p tcgen05-insert-sync --verify-diagnostics
// RUN: not tcgen05-opt %s -p tcgen05-verify-sync 2>&1 >/dev/null | FileCheck %s --check-prefix=VS

// VS: unplanned.mlir:[[@LINE+4]]:10: error: tcgen05-verify-sync needs planned IR: this TMEM buffer has no place in tensor memory yet; run tcgen05-select-layouts and tcgen05-plan-tmem first (the default pipeline does)
func.func @k(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tcgen05-insert-sync needs planned IR: this TMEM buffer has no place in tensor memory yet; run tcgen05-select-layouts and tcgen05-plan-tmem first (the default pipeline does)}}
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}
