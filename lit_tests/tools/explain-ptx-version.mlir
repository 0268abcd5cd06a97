// --explain-ptx-version says which target or feature set the PTX ISA version. tcgen05
// was introduced in PTX ISA 8.6 on sm_100a; family-specific targets exist from PTX ISA
// 8.8 (9.7.16 Target ISA Notes), and sm_110a is a PTX ISA 9.0 name.
// RUN: tcgen05-lower %examples/gemm_bf16_128x256.mlir --explain-ptx-version -o %t.a.ptx 2>&1 | FileCheck %s --check-prefix=SM100A
// RUN: tcgen05-lower %examples/gemm_bf16_128x256.mlir --arch sm_100f --explain-ptx-version -o %t.f.ptx 2>&1 | FileCheck %s --check-prefix=SM100F
// RUN: tcgen05-lower %examples/gemm_bf16_128x256.mlir --arch sm_110a --explain-ptx-version -o %t.110.ptx 2>&1 | FileCheck %s --check-prefix=SM110A

// SM100A: tcgen05-lower: PTX ISA 8.6 for sm_100a: target sm_100a
// SM100F: tcgen05-lower: PTX ISA 8.8 for sm_100f: target sm_100f
// SM110A: tcgen05-lower: PTX ISA 9.0 for sm_110a: target sm_110a
