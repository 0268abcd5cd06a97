// --arch sm_100f: a family-specific target, which needs PTX ISA 8.8 (9.7.16 Target ISA
// Notes: "supported on following family-specific architectures from PTX ISA version
// 8.8"); ptxas accepts the result for sm_100f.
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/gemm_bf16_128x256.mlir --arch sm_100f -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100f %t.ptx -o %t.cubin

// CHECK: .version 8.8
// CHECK-NEXT: .target sm_100f
// CHECK: .visible .entry gemm_bf16_128x256(
// CHECK: tcgen05.mma.cta_group::1.kind::f16
