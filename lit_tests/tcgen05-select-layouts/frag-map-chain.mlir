// An ld -> frag_map -> store_fragment chain under register-budget=32: the computed bf16
// values count beside the loaded f32 registers (32 * 32 / (32 + 16) = 21 registers of
// loaded data at most), so the 32-column load becomes two 16-column chains, each with a
// copy of the map whose body adds the chunk's offset to the column argument (the
// original column numbers). Under max-width the chain stays whole.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' | FileCheck %s
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{strategy=max-width}' | FileCheck %s --check-prefix=WIDE

// CHECK-LABEL: func.func @epilogue
// CHECK: %[[L0:.*]] = "tcgen05.ld"(%{{.*}}, %[[COL:.*]]) {num = 16 : i64, shape = "32x32b"}{{.*}}-> !tcgen05.frag<[128, 16], f32>
// CHECK-NEXT: %[[M0:.*]] = "tcgen05.frag_map"(%[[L0]]) ({
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %[[C0:.*]]: index):
// CHECK-NEXT: arith.index_cast %[[C0]]
// CHECK: }) : (!tcgen05.frag<[128, 16], f32>) -> !tcgen05.frag<[128, 16], bf16>
// CHECK-NEXT: "tcgen05.store_fragment"(%[[M0]], %{{.*}}, %[[COL]])
// CHECK: %[[COL1:.*]] = arith.addi %[[COL]], %{{.*}}
// CHECK-NEXT: %[[L1:.*]] = "tcgen05.ld"(%{{.*}}, %[[COL1]]) {num = 16 : i64, shape = "32x32b"}
// CHECK-NEXT: %[[M1:.*]] = "tcgen05.frag_map"(%[[L1]]) ({
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %[[C1:.*]]: index):
// CHECK-NEXT: %[[K:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[C1]], %[[K]]
// CHECK-NEXT: arith.index_cast %[[S1]]
// CHECK: "tcgen05.store_fragment"(%[[M1]], %{{.*}}, %[[COL1]])
// WIDE-LABEL: func.func @epilogue
// WIDE: "tcgen05.ld"(%{{.*}}, %{{.*}}) {num = 32 : i64, shape = "32x32b"}
// WIDE-COUNT-1: "tcgen05.frag_map"
// WIDE-NOT: "tcgen05.ld"
func.func @epilogue(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  scf.for %col = %c0 to %c64 step %c32 {
    %x = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    %y = "tcgen05.frag_map"(%x) ({
    ^bb0(%e: f32, %r: index, %c: index):
      %i = arith.index_cast %c : index to i64
      %f = arith.sitofp %i : i64 to f32
      %s = arith.addf %e, %f : f32
      %t = arith.truncf %s : f32 to bf16
      gpu.yield %t : bf16
    }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
    "tcgen05.store_fragment"(%y, %C, %col) {ld = 64 : i64}
        : (!tcgen05.frag<[128, 32], bf16>, !llvm.ptr<1>, index) -> ()
  }
  return
}
