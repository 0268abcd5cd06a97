// tcgen05-plan-tmem diagnostics: each names the rule and the values, at the op that
// breaks it, and the tool exits with status 1.
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem' --split-input-file --verify-diagnostics

!acc = !tcgen05.tmem<[128, 256], f32>
!frag = !tcgen05.frag<[128, 32], f32>

// Mixed cta_group: a hand-written allocation of a cta_group::1 kernel asks for
// cta_group::2 ("All tcgen05 instructions within a kernel must specify the same value
// for the .cta_group qualifier", 9.7.16.7.1).
func.func @mixed_cta_group() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  // expected-error @+1 {{tcgen05.alloc uses cta_group::2 but kernel @mixed_cta_group is cta_group::1: all tcgen05 instructions of a kernel must use the same .cta_group (9.7.16.7.1)}}
  %own = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 2 : i64} : () -> i32
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.dealloc"(%own) {columns = 32 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}

// -----

!acc = !tcgen05.tmem<[128, 256], f32>
!frag = !tcgen05.frag<[128, 32], f32>

// Mixed cta_group in a cta_group::2 kernel: the dealloc says cta_group::1.
func.func @mixed_cta_group_dealloc() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %own = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 2 : i64} : () -> i32
  // expected-error @+1 {{tcgen05.dealloc uses cta_group::1 but kernel @mixed_cta_group_dealloc is cta_group::2}}
  "tcgen05.dealloc"(%own) {columns = 32 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// An increasing allocation sequence: the kernel allocates 64 columns itself, then 128
// ("The number of columns allocated should not increase between any two allocations in
// the execution order within the CTA", 9.7.16.7.1).
func.func @increasing() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %first = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  // expected-error @+1 {{tcgen05.alloc of 128 columns may execute after an allocation of 64 columns (the allocation at line 40): the number of columns allocated must not increase between allocations in execution order (9.7.16.7.1)}}
  %second = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  "tcgen05.dealloc"(%second) {columns = 128 : i64, cta_group = 1 : i64} : (i32) -> ()
  "tcgen05.dealloc"(%first) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

!acc = !tcgen05.tmem<[128, 256], f32>
!frag = !tcgen05.frag<[128, 32], f32>

// The planner's own allocation (256 columns for the 128 x 256 accumulator, made first,
// at kernel entry) followed by a larger hand-written one.
func.func @increasing_after_the_planner() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  // expected-error @+1 {{tcgen05.alloc of 512 columns may execute after an allocation of 256 columns (the planner's allocation at kernel entry)}}
  %own = "tcgen05.alloc"() {columns = 512 : i64, cta_group = 1 : i64} : () -> i32
  "tcgen05.dealloc"(%own) {columns = 512 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// Increasing along one path only: 128 in a branch, 256 after it.
func.func @increasing_on_one_path(%flag: i1) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  scf.if %flag {
    %small = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
    "tcgen05.dealloc"(%small) {columns = 128 : i64, cta_group = 1 : i64} : (i32) -> ()
  }
  // expected-error @+1 {{tcgen05.alloc of 256 columns may execute after an allocation of 128 columns}}
  %big = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  "tcgen05.dealloc"(%big) {columns = 256 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// 9.7.16.7.1: "The number of columns must be a power of 2", in [32, 512].
func.func @not_a_power_of_two() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{tcgen05.alloc of 96 columns: the count must be a power of two in [32, 512] (9.7.16.7.1)}}
  %a = "tcgen05.alloc"() {columns = 96 : i64, cta_group = 1 : i64} : () -> i32
  "tcgen05.dealloc"(%a) {columns = 96 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

!n128 = !tcgen05.tmem<[128, 128], f32>
!n256 = !tcgen05.tmem<[128, 256], f32>
!frag = !tcgen05.frag<[128, 32], f32>

// Over-subscribed by first fit's placement only: a and c (128 columns) live long, b (128)
// dies before d (256) starts. First fit leaves b's 128 columns between a and c, so d goes
// to 384-640; the live buffers' cells fill only 512 columns, and optimal places them
// (strategies.mlir).
func.func @first_fit_fragments() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.tmem_buffer"() {name = "a"} : () -> !n128
  %b = "tcgen05.tmem_buffer"() {name = "b"} : () -> !n128
  %c = "tcgen05.tmem_buffer"() {name = "c"} : () -> !n128
  %xb = "tcgen05.ld"(%b, %c0) : (!n128, index) -> !frag
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  // expected-error @+1 {{tensor memory over-subscribed: needs 640 columns of 512: %a 128x128xf32 Layout D 128 columns, %c 128x128xf32 Layout D 128 columns, %d 128x256xf32 Layout D 256 columns (9.7.16.1); their cells fill only 512 columns, so another placement may fit: try strategy=optimal}}
  %d = "tcgen05.tmem_buffer"() {name = "d"} : () -> !n256
  %xa = "tcgen05.ld"(%a, %c0) : (!n128, index) -> !frag
  %xc = "tcgen05.ld"(%c, %c0) : (!n128, index) -> !frag
  %xd = "tcgen05.ld"(%d, %c0) : (!n256, index) -> !frag
  return
}

// -----

!f = !tcgen05.tmem<[64, 256], f32>
!d = !tcgen05.tmem<[128, 128], f32>
!ta64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!ta128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb256 = !tcgen05.smem<[256, 64], bf16, "K", "128B">
!tb128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">

// Over-subscribed by geometry: three 64 x 256 Layout F buffers (half the lanes each) and
// one 128 x 128 Layout D buffer: their cells fill 3 x 256 / 2 + 128 = 512 columns, but a
// half-lane buffer is not split over both halves, so the four need 640 (two F buffers
// pair in [0, 256), the third takes one half of [256, 512), D goes to [512, 640)).
func.func @geometry() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %false = arith.constant false
  %a64 = "tcgen05.smem_buffer"() : () -> !ta64
  %a128 = "tcgen05.smem_buffer"() : () -> !ta128
  %b256 = "tcgen05.smem_buffer"() : () -> !tb256
  %b128 = "tcgen05.smem_buffer"() : () -> !tb128
  %f0 = "tcgen05.tmem_buffer"() {name = "f0"} : () -> !f
  %f1 = "tcgen05.tmem_buffer"() {name = "f1"} : () -> !f
  %f2 = "tcgen05.tmem_buffer"() {name = "f2"} : () -> !f
  // expected-error @+1 {{tensor memory over-subscribed: needs 640 columns of 512: %f0 64x256xf32 Layout F 256 columns on 16 lanes of each quarter, %f1 64x256xf32 Layout F 256 columns on 16 lanes of each quarter, %f2 64x256xf32 Layout F 256 columns on 16 lanes of each quarter, %dd 128x128xf32 Layout D 128 columns (9.7.16.1); their cells fill 512 columns, but no placement of these buffers takes fewer than 640}}
  %dd = "tcgen05.tmem_buffer"() {name = "dd"} : () -> !d
  "tcgen05.mma"(%f0, %a64, %b256, %false) {kind = "f16"} : (!f, !ta64, !tb256, i1) -> ()
  "tcgen05.mma"(%f1, %a64, %b256, %false) {kind = "f16"} : (!f, !ta64, !tb256, i1) -> ()
  "tcgen05.mma"(%f2, %a64, %b256, %false) {kind = "f16"} : (!f, !ta64, !tb256, i1) -> ()
  "tcgen05.mma"(%dd, %a128, %b128, %false) {kind = "f16"} : (!d, !ta128, !tb128, i1) -> ()
  return
}

// -----

!stages = !tcgen05.tmem<[3, 128, 256], f32>

// A triple-buffered 128 x 256 accumulator takes 3 x 256 columns: reported at its
// definition.
func.func @too_many_stages() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{tensor memory over-subscribed: needs 768 columns of 512: %acc 3x128x256xf32 Layout D 3 stages x 256 columns (9.7.16.1); their cells alone fill 768 columns}}
  %acc = "tcgen05.tmem_buffer"() {name = "acc", role = "d", layout = "D", columns = 256 : i64, half_lanes = false} : () -> !stages
  return
}
