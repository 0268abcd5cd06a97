// An op that no pass of the pipeline lowers (gpu.thread_id: only gpu.block_id and
// gpu.grid_dim are lowered, to %ctaid and %nctaid) is a located error, exit 1, never an
// abort in LLVM translation.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: python3 -c "import subprocess, sys; print('exit status', subprocess.run(sys.argv[1:], capture_output=True).returncode)" tcgen05-lower %s -o %t.ptx | FileCheck %s --check-prefix=STATUS

// STATUS: exit status 1
// CHECK-NOT: Traceback

func.func @thread_id(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // CHECK: unlowered-op.mlir:[[@LINE+1]]:8: error: gpu.thread_id is not lowered by this pipeline, so LLVM IR cannot be made from it
  %t = gpu.thread_id x
  %v = arith.index_cast %t : index to i32
  llvm.store %v, %C : i32, !llvm.ptr<1>
  return
}
