// tcgen05-lower on a kernel the ISA does not allow: exit status 1 (bad input, not an
// internal error), one diagnostic at the offending op with the rule and the bad value,
// no Python traceback and no output.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: python3 -c "import subprocess, sys; print('exit status', subprocess.run(sys.argv[1:], capture_output=True).returncode)" tcgen05-lower %s -o %t.ptx | FileCheck %s --check-prefix=STATUS
// RUN: not tcgen05-lower %s --emit=mlir 2>&1 | FileCheck %s --check-prefix=MLIR

// STATUS: exit status 1

// CHECK-NOT: Traceback
// CHECK-NOT: internal error
// CHECK: lower-invalid-kernel.mlir:[[@LINE+12]]:3: error: N = 250 is not a multiple of 8 for kind::f16, cta_group::1 (Table 39)
// CHECK-NOT: Traceback
// CHECK-NOT: internal error

// MLIR: lower-invalid-kernel.mlir:[[@LINE+8]]:3: error: N = 250
// MLIR-NOT: module
func.func @n_250(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[250, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 250], f32>
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[128, 250], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[250, 64], bf16, "K", "128B">, i1) -> ()
  return
}
