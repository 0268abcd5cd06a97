// tcgen05 ops and types that no kernel lowers are located errors, never a crash in LLVM
// translation: an op in a function without `tcgen05.kernel` (misspelled here), a kernel
// argument of a tcgen05 type, and an op at module level.
// RUN: not tcgen05-lower %s --emit=mlir 2>&1 | FileCheck %s
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: python3 -c "import subprocess, sys; print('exit status', subprocess.run(sys.argv[1:], capture_output=True).returncode)" tcgen05-lower %s -o %t.ptx | FileCheck %s --check-prefix=STATUS

// STATUS: exit status 1
// CHECK-NOT: Traceback

// CHECK: stray-tcgen05.mlir:[[@LINE+2]]:8: error: tcgen05.tmem_buffer is outside a kernel; mark the function as a kernel: attributes {tcgen05.kernel =
func.func @f() attributes {tcgen45.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  return
}

// CHECK: stray-tcgen05.mlir:[[@LINE+1]]:1: error: function type (!tcgen05.tmem<[128, 64], f32>) -> () has a tcgen05 type
func.func @g(%x: !tcgen05.tmem<[128, 64], f32>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// CHECK: stray-tcgen05.mlir:[[@LINE+1]]:8: error: tcgen05.tmem_buffer is outside a kernel
%top = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
