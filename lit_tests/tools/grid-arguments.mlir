// The grid entry names integer kernel arguments by their source names, which only the
// driver reads (parsed block arguments have no names): a name that is not an integer
// argument is a located error at the kernel when the launch manifest is made, exit 1.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: python3 -c "import subprocess, sys; print('exit status', subprocess.run(sys.argv[1:], capture_output=True).returncode)" tcgen05-lower %s -o %t.ptx | FileCheck %s --check-prefix=STATUS

// STATUS: exit status 1
// CHECK-NOT: Traceback

// CHECK: grid-arguments.mlir:[[@LINE+1]]:1: error: tcgen05.kernel.grid: A, K is not an integer argument of the kernel (its integer arguments: M, N)
func.func @grid_names(%A: !llvm.ptr<1>, %M: i32, %N: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["ceildiv(N, 256)", "K", "ceildiv(A, 2)"]}} {
  return
}
