// Layout D (M = 128, cta_group::1; 9.7.16.10.5): row r on lane r, column c on column c. A
// 128 x 256 f32 GEMM tile whose epilogue loads the whole accumulator and stores it:
// - register-budget=32 (default): select-layouts splits the load -> store pair into 8
//   pairs of 32 columns, each .32x32b.x32 (32 registers per thread at a time);
// - max-width: one load of two .32x32b.x128 messages (256 registers per thread).
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' | FileCheck %s --check-prefix=BUDGET
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{strategy=max-width}' | FileCheck %s --check-prefix=WIDE
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tcgen05-lower %s --pipeline 'tcgen05-verify,tcgen05-select-layouts{strategy=max-width},tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync,tcgen05-lower-to-llvm,convert-nvvm-to-llvm,convert-scf-to-cf,convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts,tcgen05-finalize-kernels' -o %t.wide.ptx
// RUN: FileCheck %s --check-prefix=PTX-WIDE --input-file %t.wide.ptx
// RUN: %ptxas -arch=sm_100a %t.wide.ptx -o %t.wide.cubin

// BUDGET-LABEL: func.func @epilogue_128x256
// BUDGET: "tcgen05.mma"{{.*}}layout = "D"
// BUDGET: "tcgen05.ld"(%[[ACC:[^ ,)]+]], %[[C0:[^ ,)]+]]) {num = 32 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 32], f32>
// BUDGET-NEXT: "tcgen05.store_fragment"(%{{.*}}, %{{.*}}, %[[C0]]) {ld = 256 : i64}
// BUDGET-NEXT: %[[C32:[^ ]+]] = arith.constant 32 : index
// BUDGET-NEXT: "tcgen05.ld"(%[[ACC]], %[[C32]]) {num = 32 : i64, shape = "32x32b"}
// BUDGET-NEXT: "tcgen05.store_fragment"(%{{.*}}, %{{.*}}, %[[C32]]) {ld = 256 : i64}
// BUDGET-COUNT-6: "tcgen05.ld"(%[[ACC]], %{{.*}}) {num = 32 : i64, shape = "32x32b"}
// BUDGET-NOT: "tcgen05.ld"

// WIDE-LABEL: func.func @epilogue_128x256
// WIDE: "tcgen05.ld"(%{{.*}}) {num = 128 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 256], f32>
// WIDE-NOT: "tcgen05.ld"

// Each chunk's taddr is the first one plus its column: (warp << 21) + base + 32k.
// PTX-LABEL: .entry epilogue_128x256(
// PTX: shl.b32 [[LANE:%r[0-9]+]], %r{{[0-9]+}}, 21;
// PTX-NEXT: add.s32 [[T0:%r[0-9]+]], %r{{[0-9]+}}, [[LANE]];
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T0]]];
// PTX: add.s32 [[T32:%r[0-9]+]], [[T0]], 32;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {{[{].*[}]}}, [[[T32]]];
// PTX-COUNT-6: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX-NOT: tcgen05.ld.sync

// PTX-WIDE-LABEL: .entry epilogue_128x256(
// PTX-WIDE: add.s32 [[T0:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
// PTX-WIDE-NEXT: add.s32 [[T128:%r[0-9]+]], [[T0]], 128;
// PTX-WIDE: tcgen05.ld.sync.aligned.32x32b.x128.b32 {{[{].*[}]}}, [[[T0]]];
// PTX-WIDE: tcgen05.ld.sync.aligned.32x32b.x128.b32 {{[{].*[}]}}, [[[T128]]];
// PTX-WIDE-NOT: tcgen05.ld.sync
func.func @epilogue_128x256(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 256], f32>
  "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 256 : i64}
      : (!tcgen05.frag<[128, 256], f32>, !llvm.ptr<1>, index) -> ()
  return
}
