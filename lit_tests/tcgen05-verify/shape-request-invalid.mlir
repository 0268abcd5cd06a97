// A shape-only ld/st request (see shape-request.mlir) whose shape is not a tcgen05.ld/st
// shape.
// RUN: tcgen05-opt %s -p tcgen05-verify --verify-diagnostics

// Without .num only the shape's name can be wrong (9.7.16.2.3 lists the shapes).
func.func @unknown_shape_request() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{'32x64b' is not a tcgen05.ld/st shape; expected one of 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2; did you mean '32x32b'? (9.7.16.2.3)}}
  %x = "tcgen05.ld"(%t, %c0) {shape = "32x64b"} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}
