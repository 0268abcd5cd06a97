// The instruction forms that the Target ISA Notes of 9.7.16 forbid on some of the test
// targets (sm_100a, sm_100f, sm_103a, sm_110a): tcgen05-verify rejects each before any
// PTX is written, naming the feature, the target, where it is supported and the section.
// The same forms assemble on the targets that have them (lit_tests/forms/).
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// 9.7.16.10.9.1: family targets support tcgen05.mma "except .kind::i8"; .kind::i8 is on
// sm_100a, sm_101a (sm_110a) and sm_110a.
func.func @i8_on_sm_103a() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], i8, "K", "32B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], i32>
  // expected-error @+1 {{kind::i8 is not supported on sm_103a; supported on: sm_100a; sm_101a (renamed sm_110a from PTX ISA 9.0); sm_110a (9.7.16.10.9.1-4 Target ISA Notes)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "i8"} : (!tcgen05.tmem<[128, 64], i32>, !tcgen05.smem<[128, 32], i8, "K", "32B">, !tcgen05.smem<[64, 32], i8, "K", "32B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.9.3: tcgen05.mma.ws is on family targets "except .kind::i8" as well.
func.func @i8_ws_on_sm_100f() attributes {tcgen05.kernel = {target = "sm_100f", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], i8, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], i8, "K", "32B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 64], i32>
  // expected-error @+1 {{kind::i8 is not supported on sm_100f}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "i8", ws = true} : (!tcgen05.tmem<[64, 64], i32>, !tcgen05.smem<[64, 32], i8, "K", "32B">, !tcgen05.smem<[64, 32], i8, "K", "32B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.9.1: "Argument scale-input-d requires sm_100a and is supported on sm_100f or
// higher in the same family from PTX ISA version 8.8" -- sm_110a is in neither.
func.func @scale_input_d_on_sm_110a() attributes {tcgen05.kernel = {target = "sm_110a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], f16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], f16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{scale-input-d is not supported on sm_110a; supported on: sm_100a; sm_100f or higher in the same family from PTX ISA 8.8 (9.7.16.10.9.1 Target ISA Notes)}}
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", scale_input_d = 2 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], f16, "K", "128B">, !tcgen05.smem<[64, 64], f16, "K", "128B">, i1) -> ()
  return
}

// -----

// 9.7.16.10.9.2: ".kind::mxf4nvf4 and .kind::mxf4 are supported on following
// architectures: sm_100a, sm_101a, sm_103a, sm_110a" for tcgen05.mma.sp.
func.func @sparse_mxf4_on_sm_100f() attributes {tcgen05.kernel = {target = "sm_100f", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 512], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  %m = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{tcgen05.mma.sp with kind::mxf4 / kind::mxf4nvf4 is not supported on sm_100f; supported on: sm_100a; sm_101a (renamed sm_110a from PTX ISA 9.0); sm_103a; sm_110a (9.7.16.10.9.2 Target ISA Notes)}}
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s, %m) {kind = "mxf4", sparse = true, scale_vec = "block32"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 512], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 512], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// 9.7.16.2.1.1: "K = 96 is only supported for target architecture sm_103a".
func.func @k96_on_sm_100a() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 3], f8E8M0FNU>
  // expected-error @+1 {{K = 96 (kind::mxf4 / kind::mxf4nvf4) is not supported on sm_100a; supported on: sm_103a (9.7.16.2.1.1 Target ISA Notes)}}
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s) {kind = "mxf4", k = 96 : i64, scale_vec = "block32"} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[256, 3], f8E8M0FNU>, !tcgen05.tmem<[256, 3], f8E8M0FNU>) -> ()
  return
}

// -----

func.func @k96_on_sm_110a() attributes {tcgen05.kernel = {target = "sm_110a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 3], f8E8M0FNU>
  // expected-error @+1 {{K = 96 (kind::mxf4 / kind::mxf4nvf4) is not supported on sm_110a}}
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s) {kind = "mxf4nvf4", k = 96 : i64, scale_vec = "block32"} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[256, 3], f8E8M0FNU>, !tcgen05.tmem<[256, 3], f8E8M0FNU>) -> ()
  return
}

// -----

// 9.7.16.9.3: tcgen05.shift is on sm_100a, sm_101a (sm_110a), sm_103a and sm_110a only.
func.func @shift_on_sm_100f() attributes {tcgen05.kernel = {target = "sm_100f", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.shift is not supported on sm_100f; supported on: sm_100a; sm_101a (renamed sm_110a from PTX ISA 9.0); sm_103a; sm_110a (9.7.16.9.3 Target ISA Notes)}}
  "tcgen05.shift"(%t) : (!tcgen05.tmem<[128, 64], f32>) -> ()
  return
}

// -----

// 9.7.16.8.3: "tcgen05.ld.red is supported on following architectures: sm_101a ... ,
// sm_101f or higher in the same family, sm_103f or higher in the same family, sm_110f or
// higher in the same family" -- not on sm_100a.
func.func @ld_red_on_sm_100a() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{tcgen05.ld.red is not supported on sm_100a}}
  %f, %r = "tcgen05.ld_red"(%t, %c0) {op = "max"} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 1], f32>)
  return
}
