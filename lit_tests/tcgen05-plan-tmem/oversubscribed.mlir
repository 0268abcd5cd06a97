// tcgen05-plan-tmem: tensor memory has 512 columns per CTA (9.7.16.1). A plan that needs
// more is an error at the buffer that pushed it past, with what is live at that point.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem' --split-input-file --verify-diagnostics

// Three 128 x 256 f32 accumulators (Layout D, 256 columns each) live at once: the third
// starts at column 512 and needs 768.
func.func @three_accumulators() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !tcgen05.tmem<[128, 256], f32>
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{tensor memory over-subscribed: needs 768 columns of 512: %acc0 128x256xf32 Layout D 256 columns, %acc1 128x256xf32 Layout D 256 columns, %acc2 128x256xf32 Layout D 256 columns (9.7.16.1)}}
  %acc2 = "tcgen05.tmem_buffer"() {name = "acc2"} : () -> !tcgen05.tmem<[128, 256], f32>
  %f0 = "tcgen05.ld"(%acc0, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f1 = "tcgen05.ld"(%acc1, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f2 = "tcgen05.ld"(%acc2, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

// 512 columns exactly fit; 8 more do not: 256 + 256 + 8 = 520.
func.func @one_column_block_over() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  %acc1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{needs 520 columns of 512}}
  %small = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 8], f32>
  %f0 = "tcgen05.ld"(%acc0, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f1 = "tcgen05.ld"(%acc1, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  %f2 = "tcgen05.ld"(%small, %c0) : (!tcgen05.tmem<[128, 8], f32>, index) -> !tcgen05.frag<[128, 8], f32>
  return
}

// -----

// Layout F accumulators (M = 64) use half of each lane quarter, so two share 256 columns:
// four 64 x 256 accumulators fit in 512 columns, and the fifth needs columns 512-767.
func.func @five_m64_accumulators() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 256], f32>
  %acc1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 256], f32>
  %acc2 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 256], f32>
  %acc3 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 256], f32>
  // expected-error @+1 {{tensor memory over-subscribed: needs 768 columns of 512}}
  %acc4 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[64, 256], f32>
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 256], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 256], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc2, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 256], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc3, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 256], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc4, %a, %b, %f) {kind = "f16"}
      : (!tcgen05.tmem<[64, 256], f32>, !tcgen05.smem<[64, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}
