// sm_101a / sm_101f are sm_110a / sm_110f from PTX ISA 9.0 (9.7.16 Target ISA Notes), and
// ptxas from CUDA 13 knows only the new names ("Value 'sm_101f' is not defined for option
// 'gpu-name'"): the driver compiles for the new name, warns at the kernel, and ptxas
// accepts the result.
// REQUIRES: ptxas
// RUN: tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_110f %t.ptx -o %t.cubin

// WARN: renamed-target.mlir:[[@LINE+2]]:1: warning: target sm_101f is called sm_110f from PTX ISA 9.0 (9.7.16 Target ISA Notes) and ptxas from CUDA 13 knows only that name: compiling for sm_110f
// CHECK: .target sm_110f
func.func @k() attributes {tcgen05.kernel = {target = "sm_101f", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}
