// --line-info carries each op's location in this file into the PTX as .file/.loc
// (PTX ISA 11.5.3, 11.5.4): the instructions an op lowers to come after a .loc naming its
// line and column here. Without the option the PTX has no debugging directive at all.
// The expected lines are FileCheck's own [[@LINE]] arithmetic, not the compiler's.
// RUN: tcgen05-lower %s --arch sm_100a --line-info | FileCheck %s
// RUN: tcgen05-lower %s --arch sm_100a | FileCheck %s --check-prefix=PLAIN
// RUN: tcgen05-lower %s --arch sm_100a --line-info --emit=llvm | FileCheck %s --check-prefix=LLVM

// PLAIN-NOT: .loc
// PLAIN-NOT: .file
// PLAIN-NOT: .section
// LLVM: !DICompileUnit({{.*}}emissionKind: DebugDirectivesOnly)
// LLVM: !DILocation(line: [[@LINE+2]], column: 1,
// CHECK-LABEL: .entry line_info(
func.func @line_info(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  // CHECK: .loc [[FILE:[0-9]+]] [[@LINE+1]] 3
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  // CHECK: .loc [[FILE]] [[@LINE+1]] 3
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index) -> ()
  // CHECK: .loc [[FILE]] [[@LINE+3]] 3
  // CHECK-NOT: .loc
  // CHECK: tcgen05.mma.cta_group::1.kind::f16
  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  // CHECK: .loc [[FILE]] [[@LINE+3]] 3
  // CHECK-NOT: .loc
  // CHECK: tcgen05.mma.cta_group::1.kind::f16
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  // CHECK: .loc [[FILE]] [[@LINE+3]] 11
  // CHECK-NOT: .loc
  // CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
  %frag = "tcgen05.ld"(%acc, %c0)
      : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // CHECK: .loc [[FILE]] [[@LINE+3]] 3
  // CHECK-NOT: .loc
  // CHECK: st.global.b32
  "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 256 : i64}
      : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}
// CHECK: .file [[FILE]] "{{.*}}line-info.mlir"
