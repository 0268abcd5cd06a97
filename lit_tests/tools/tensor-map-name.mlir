// A tensor-map parameter's `tensor` names the array parameter the map was encoded for, by
// its source name, which only the driver reads (parsed block arguments have no names): a
// name that is not a pointer parameter is a located error at the kernel, exit 1.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: python3 -c "import subprocess, sys; print('exit status', subprocess.run(sys.argv[1:], capture_output=True).returncode)" tcgen05-lower %s -o %t.ptx | FileCheck %s --check-prefix=STATUS

// STATUS: exit status 1
// CHECK-NOT: Traceback

// CHECK: tensor-map-name.mlir:[[@LINE+1]]:1: error: tcgen05.tensor_map of parameter tm: tensor = "B" is not an array (pointer) parameter of the kernel (A); it names the array the map was encoded for (docs/tma.md)
func.func @misnamed(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 128>,
                                             swizzle = "128B"}}, %K: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}
