// tcgen05-lower --emit=llvm writes LLVM IR: the kernel is a ptx_kernel with its thread
// count as nvvm.reqntid, and the tcgen05 instructions are inline assembly.
// RUN: tcgen05-lower %examples/gemm_bf16_128x256.mlir --emit=llvm | FileCheck %s

// CHECK: define ptx_kernel void @gemm_bf16_128x256(ptr addrspace(1) {{%[0-9]+}}, ptr addrspace(1) {{%[0-9]+}}, ptr addrspace(1) {{%[0-9]+}}) [[ATTRS:#[0-9]+]]
// 256 columns for the 128 x 256 f32 accumulator.
// CHECK: call void asm sideeffect "{{.*}}tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK-SAME: i32 256
// CHECK: tcgen05.mma.cta_group::1.kind::f16
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// CHECK: attributes [[ATTRS]] = { {{.*}}"nvvm.reqntid"="128,1,1"
