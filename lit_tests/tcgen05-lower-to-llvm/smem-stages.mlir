// Multi-stage shared-memory tiles lowered (lowering/smem.py): a [stages, rows, K] tile
// takes stages x its stage stride of dynamic shared memory, the stride being one stage's
// bytes rounded up to where its swizzle's repeating pattern starts (Table 41: 1024 bytes
// for 128B, 512 for 64B, 256 for 32B; 16 without swizzle, the matrix start alignment
// after it); each tile starts on a 1024-byte boundary. Stage i of a tile is at
// tile + i * stride (tcgen05.smem_stage), the index a run-time value.
//
// Hand derivation: %a = [2, 128, 64] bf16 128B: one stage 128 * 64 * 2 = 16384 bytes (a
// multiple of 1024), the tile 32768 bytes at offset 0. %b = [3, 8, 16] bf16 64B: one
// stage 8 * 16 * 2 = 256 bytes, rounded up to 512, the tile 1536 bytes at offset 32768.
// %c = [2, 8, 24] bf16 none: one stage 384 bytes (a multiple of 16), at 32768 + 1536 =
// 34304 rounded up to 1024 = 34816; the kernel needs 34816 + 2 * 384 = 35584 bytes.
// RUN: tcgen05-opt %s -p 'tcgen05-lower-to-llvm' | FileCheck %s

// CHECK-LABEL: func.func @stages
// CHECK-SAME: tcgen05.dynamic_smem_bytes = 35584 : i64
// CHECK: [[A:%.+]] = llvm.getelementptr {{%.+}}[%c0_i64]
// CHECK: %c32768_i64 = arith.constant 32768 : i64
// CHECK: [[B:%.+]] = llvm.getelementptr {{%.+}}[%c32768_i64]
// CHECK: %c34816_i64 = arith.constant 34816 : i64
// CHECK: [[C:%.+]] = llvm.getelementptr {{%.+}}[%c34816_i64]
// CHECK: [[I:%.+]] = arith.index_castui %arg0 : index to i64
// CHECK: %c16384_i64 = arith.constant 16384 : i64
// CHECK: [[OA:%.+]] = arith.muli [[I]], %c16384_i64 : i64
// CHECK: llvm.getelementptr [[A]][[[OA]]]
// CHECK: [[I:%.+]] = arith.index_castui %arg0 : index to i64
// CHECK: %c512_i64 = arith.constant 512 : i64
// CHECK: [[OB:%.+]] = arith.muli [[I]], %c512_i64 : i64
// CHECK: llvm.getelementptr [[B]][[[OB]]]
// CHECK: [[I:%.+]] = arith.index_castui %arg0 : index to i64
// CHECK: %c384_i64 = arith.constant 384 : i64
// CHECK: [[OC:%.+]] = arith.muli [[I]], %c384_i64 : i64
// CHECK: llvm.getelementptr [[C]][[[OC]]]
func.func @stages(%i: index, %p: !llvm.ptr<3>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[3, 8, 16], bf16, "K", "64B">
  %c = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 8, 24], bf16, "K", "none">
  %as = "tcgen05.smem_stage"(%a, %i) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %bs = "tcgen05.smem_stage"(%b, %i) : (!tcgen05.smem<[3, 8, 16], bf16, "K", "64B">, index) -> !tcgen05.smem<[8, 16], bf16, "K", "64B">
  %cs = "tcgen05.smem_stage"(%c, %i) : (!tcgen05.smem<[2, 8, 24], bf16, "K", "none">, index) -> !tcgen05.smem<[8, 24], bf16, "K", "none">
  return
}
