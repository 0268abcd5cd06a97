// A `shape` attribute without `num` on tcgen05.ld / st / ld_red is a request that
// tcgen05-select-layouts completes (it chooses .num, and immHalfSplitoff for .16x32bx2):
// tcgen05-verify checks the shape's name only, and Table 47 / 48 (shape x .num) only once
// both are present.
// (The only diagnostic left, a shape name that is not one, is in shape-request-invalid.mlir.)
// RUN: tcgen05-opt %s -p tcgen05-verify --verify-diagnostics
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{strategy=max-width}' | FileCheck %s

// Expected .num, by hand from Table 47 / 48: a 32-column f32 slice of a Layout D buffer
// (row r on lane r, one 32-bit column per element, 9.7.16.10.5) is, in each warp, one
// .32x32b message of its 32 lanes x 32 columns: 32 registers per thread, .x32.
// CHECK-LABEL: func.func @shape_only_requests
// CHECK: "tcgen05.ld"({{.*}}) {num = 32 : i64, shape = "32x32b"}
// CHECK: "tcgen05.st"({{.*}}) {num = 32 : i64, shape = "32x32b"}
func.func @shape_only_requests(%X: !llvm.ptr<1>, %Y: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%t, %c0) {shape = "32x32b"} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%x, %Y, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.load_fragment"(%X, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.st"(%t, %c32, %y) {shape = "32x32b"} : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 32], f32>) -> ()
  return
}
