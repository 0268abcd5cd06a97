// Both stages of 2-stage rings hold different data at once: stage s of A's and B's rings
// is filled with K block s (smem_fill, constant stage indices), then the MMAs read stage 0
// and stage 1. A wrong stage address (two stages at one address, a descriptor of the
// ring's start) would multiply one K block twice.
//   C (128 x 128, f32) = A (128 x 128, bf16) x B^T, B (128 x 128, bf16), both row-major.
func.func @ring_both_stages(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  %a0 = "tcgen05.smem_stage"(%a, %c0) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b0 = "tcgen05.smem_stage"(%b, %c0) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  "tcgen05.smem_fill"(%A, %a0, %c0) {src_layout = "mn_k", src_ld = 128 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b0, %c0) {src_layout = "mn_k", src_ld = 128 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  %a1 = "tcgen05.smem_stage"(%a, %c1) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b1 = "tcgen05.smem_stage"(%b, %c1) : (!tcgen05.smem<[2, 128, 64], bf16, "K", "128B">, index) -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  "tcgen05.smem_fill"(%A, %a1, %c64) {src_layout = "mn_k", src_ld = 128 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b1, %c64) {src_layout = "mn_k", src_ld = 128 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %a0, %b0, %false) {kind = "f16", k_offset = 0 : i64} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 16 : i64} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 32 : i64} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a0, %b0, %true) {kind = "f16", k_offset = 48 : i64} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 0 : i64} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 16 : i64} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 32 : i64} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a1, %b1, %true) {kind = "f16", k_offset = 48 : i64} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  scf.for %col = %c0 to %c128 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 128 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}
