// --verify-diagnostics takes MLIR's -re form: literal text with {{regex}} parts.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics
// A pattern that does not match is reported (the run must fail):
// RUN: sed 's/{{\[0-9\]+}} is not/{{[a-z]+}} is not/' %s | not tcgen05-opt - -p tcgen05-verify --split-input-file --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=MISS

// MISS: unexpected error: N = 250 is not a multiple of 8
// MISS: was not produced

func.func @n_250() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[250, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 250], f32>
  // expected-error-re @+1 {{N = {{[0-9]+}} is not a multiple of {{[0-9]+}}}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!tcgen05.tmem<[128, 250], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[250, 64], bf16, "K", "128B">, i1) -> ()
  return
}
