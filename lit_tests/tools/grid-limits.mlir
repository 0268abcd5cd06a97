// A grid past CUDA's maximum grid dimensions (65535 along y and z) compiled; it is a
// located error of tcgen05-lower now, exit 1, no traceback.
// RUN: not tcgen05-lower %s -o %t.ptx 2>&1 | FileCheck %s
// CHECK-NOT: Traceback

// CHECK: grid-limits.mlir:[[@LINE+1]]:1: error: tcgen05.kernel.grid: 100000 CTAs along y, past CUDA's limit of 65535 for grid dimension y
func.func @grid_y(%M: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["ceildiv(M, 128)", "100000"]}} {
  return
}
