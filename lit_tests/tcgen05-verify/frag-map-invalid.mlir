// Diagnostics of tcgen05-verify on tcgen05.frag_map (fragments as values): the shape it
// keeps, its body's arguments and terminator, the ops a body may hold, and the
// conversions PTX has (cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 converts to fp8 from f32
// only, and PTX has no fp8 arithmetic: the cvt section of the PTX ISA).
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics
// The map keeps the shape of its inputs.
func.func @shape_mismatch(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{the result is a [128, 16] fragment but its inputs are [128, 32]: the map keeps the shape}}
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 16], bf16>
  return
}
// -----
// The body takes the element of each input, then its row and column.
func.func @arguments(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{the body's arguments must be (f32, index, index): the element of each of the 1 inputs, then its row and column; they are (f32, index)}}
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index):
    %t = arith.truncf %e : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
  return
}
// -----
// What the body yields is the result's element.
func.func @yield_type(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    // expected-error @+1 {{the body yields f32 but the result is a fragment of bf16}}
    gpu.yield %e : f32
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
  return
}
// -----
// Results store_fragment cannot store are refused.
func.func @result_f64(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{a computed fragment of f64 is not supported (f32, i32, f16, bf16, f8E4M3FN or f8E5M2)}}
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %t = arith.extf %e : f32 to f64
    gpu.yield %t : f64
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f64>
  return
}
// -----
// Conversions PTX cannot do: fp8 from f16 (only the f32 form is lowered), to fp4,
// and fp8 arithmetic.
func.func @fp8_from_f16(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %h = arith.truncf %e : f32 to f16
    // expected-error @+1 {{arith.truncf f16 -> f8E4M3FN: PTX converts to fp8 from f32 (cvt.rn.satfinite.e4m3x2.f32); extend to f32 first}}
    %q = arith.truncf %h : f16 to f8E4M3FN
    gpu.yield %q : f8E4M3FN
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f8E4M3FN>
  return
}
// -----

func.func @fp4(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{a computed fragment of f4E2M1FN is not supported (f32, i32, f16, bf16, f8E4M3FN or f8E5M2)}}
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    // expected-error @+1 {{arith.truncf f32 -> f4E2M1FN: no PTX conversion to f4E2M1FN is supported in a frag_map body (fp8 is f8E4M3FN or f8E5M2)}}
    %q = arith.truncf %e : f32 to f4E2M1FN
    gpu.yield %q : f4E2M1FN
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f4E2M1FN>
  return
}
// -----

func.func @fp8_arith(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %q = arith.truncf %e : f32 to f8E5M2
    // expected-error @+1 {{arith.extf of an f8E5M2 value: in a frag_map body an fp8 value can only be yielded (PTX has no fp8 arithmetic)}}
    %w = arith.extf %q : f8E5M2 to f32
    %t = arith.truncf %w : f32 to bf16
    gpu.yield %t : bf16
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], bf16>
  return
}
// -----
// The body computes and reads memory; nothing else.
func.func @math_erf(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    // expected-error @+1 {{tcgen05.frag_map: math.erf in the body: a math op the NVPTX backend has no instruction for (it would need libdevice)}}
    %q = math.erf %e : f32
    gpu.yield %q : f32
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  return
}
// -----

func.func @store_in_body(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    // expected-error @+1 {{tcgen05.frag_map: llvm.store in the body: the body may compute (arith, index, math) and read global memory (llvm.getelementptr, llvm.load); it runs once per element in an order the compiler picks}}
    llvm.store %e, %C : f32, !llvm.ptr<1>
    gpu.yield %e : f32
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  return
}
// -----

func.func @terminator(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    // expected-error @+1 {{tcgen05.frag_map: the body must end with gpu.yield of one value (the result element)}}
    gpu.yield %e, %e : f32, f32
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
  return
}
// -----

func.func @fp8_input(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %y = "tcgen05.frag_map"(%x) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %q = arith.truncf %e : f32 to f8E4M3FN
    gpu.yield %q : f8E4M3FN
  }) : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f8E4M3FN>
  // expected-error @+1 {{tcgen05.frag_map: inputs of f8E4M3FN are not supported (f32, i32, f16 or bf16: PTX has no fp8 arithmetic)}}
  %z = "tcgen05.frag_map"(%y) ({
  ^bb0(%e2: f8E4M3FN, %r2: index, %c2: index):
    gpu.yield %e2 : f8E4M3FN
  }) : (!tcgen05.frag<[128, 32], f8E4M3FN>) -> !tcgen05.frag<[128, 32], f8E4M3FN>
  return
}
// -----

func.func @no_inputs(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{tcgen05.frag_map needs at least one input fragment, or a [128, 1] result (a per-row value computed from its row alone, one row per thread), not [128, 32]}}
  %y = "tcgen05.frag_map"() ({
  ^bb0(%r: index, %c: index):
    %z = arith.constant 0.0 : f32
    gpu.yield %z : f32
  }) : () -> !tcgen05.frag<[128, 32], f32>
  // A per-row value from its row alone (an initial running max) is one 32-bit register.
  %m = "tcgen05.frag_map"() ({
  ^bb0(%r: index, %c: index):
    %ninf = arith.constant 0xFF800000 : f32
    gpu.yield %ninf : f32
  }) : () -> !tcgen05.frag<[128, 1], f32>
  // expected-error @+1 {{tcgen05.frag_map: a per-row value is held in one 32-bit register per row: it yields f32 or i32, not bf16}}
  %h = "tcgen05.frag_map"() ({
  ^bb0(%r: index, %c: index):
    %z = arith.constant 0.0 : bf16
    gpu.yield %z : bf16
  }) : () -> !tcgen05.frag<[128, 1], bf16>
  // expected-error @+1 {{tcgen05.frag_map: the body's arguments must be (index, index): the row and column (0) of the value; they are (f32, index, index)}}
  %w = "tcgen05.frag_map"() ({
  ^bb0(%e: f32, %r: index, %c: index):
    gpu.yield %e : f32
  }) : () -> !tcgen05.frag<[128, 1], f32>
  return
}
// -----

func.func @ld_red_rows(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f, %m = "tcgen05.ld_red"(%acc, %c0) {op = "max"}
      : (!tcgen05.tmem<[128, 32], f32>, index) -> (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 1], f32>)
  // A map of per-row values computes per row (the online softmax's running max and sum).
  %y = "tcgen05.frag_map"(%m) ({
  ^bb0(%e: f32, %r: index, %c: index):
    gpu.yield %e : f32
  }) : (!tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
  // Its result is again a per-row value, one 32-bit register per row.
  // expected-error @+1 {{tcgen05.frag_map: a map of a per-row result is a per-row result, held in one 32-bit register per row: it yields f32 or i32, not bf16}}
  %z = "tcgen05.frag_map"(%y) ({
  ^bb0(%e: f32, %r: index, %c: index):
    %h = arith.truncf %e : f32 to bf16
    gpu.yield %h : bf16
  }) : (!tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], bf16>
  // A per-row value is reduced already.
  // expected-error @+1 {{tcgen05.frag_reduce of a per-row result: it is already reduced}}
  %w = "tcgen05.frag_reduce"(%y) {kind = "max"} : (!tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
  return
}
// -----
// Mismatched fragment shapes: the inputs of one map have one type (IRDL binds the
// variadic group to one type, so MLIR's own verifier reports it).
func.func @input_shapes(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %w = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 16], f32>
  // expected-error @+1 {{expected '!tcgen05.frag<[128, 32], f32>' but got '!tcgen05.frag<[128, 16], f32>'}}
  %y = "tcgen05.frag_map"(%x, %w) ({
  ^bb0(%e: f32, %f: f32, %r: index, %c: index):
    gpu.yield %e : f32
  }) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 16], f32>) -> !tcgen05.frag<[128, 32], f32>
  return
}
