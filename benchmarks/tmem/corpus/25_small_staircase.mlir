// Many small buffers with interleaved lifetimes: ten accumulators of 32 to 128 columns
// (N = 32..128, Layout D), each written, then read three buffers later, so at most four
// are live at once. Sizes in program order: 32 64 32 96 32 64 128 32 64 32. Hand bound:
// the largest sum of four consecutive sizes, 96 + 32 + 64 + 128 = 320 columns (t3 to t6),
// allocation 512. First fit, in program order, leaves t6 no 128-column gap below 224.
// EXPECT: lower bound 320, optimal 320 (derived above by hand)
!n32 = !tcgen05.tmem<[128, 32], f32>
!tb32 = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!n64 = !tcgen05.tmem<[128, 64], f32>
!tb64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!n96 = !tcgen05.tmem<[128, 96], f32>
!tb96 = !tcgen05.smem<[96, 64], bf16, "K", "128B">
!n128 = !tcgen05.tmem<[128, 128], f32>
!tb128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @small_staircase(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %sa = "tcgen05.smem_buffer"() : () -> !ta
  %sb32 = "tcgen05.smem_buffer"() : () -> !tb32
  %sb64 = "tcgen05.smem_buffer"() : () -> !tb64
  %sb96 = "tcgen05.smem_buffer"() : () -> !tb96
  %sb128 = "tcgen05.smem_buffer"() : () -> !tb128
  %t0 = "tcgen05.tmem_buffer"() {name = "t0"} : () -> !n32
  "tcgen05.mma"(%t0, %sa, %sb32, %f) {kind = "f16"} : (!n32, !ta, !tb32, i1) -> ()
  %t1 = "tcgen05.tmem_buffer"() {name = "t1"} : () -> !n64
  "tcgen05.mma"(%t1, %sa, %sb64, %f) {kind = "f16"} : (!n64, !ta, !tb64, i1) -> ()
  %t2 = "tcgen05.tmem_buffer"() {name = "t2"} : () -> !n32
  "tcgen05.mma"(%t2, %sa, %sb32, %f) {kind = "f16"} : (!n32, !ta, !tb32, i1) -> ()
  %t3 = "tcgen05.tmem_buffer"() {name = "t3"} : () -> !n96
  "tcgen05.mma"(%t3, %sa, %sb96, %f) {kind = "f16"} : (!n96, !ta, !tb96, i1) -> ()
  %x0 = "tcgen05.ld"(%t0, %c0) : (!n32, index) -> !frag
  "tcgen05.store_fragment"(%x0, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %t4 = "tcgen05.tmem_buffer"() {name = "t4"} : () -> !n32
  "tcgen05.mma"(%t4, %sa, %sb32, %f) {kind = "f16"} : (!n32, !ta, !tb32, i1) -> ()
  %x1 = "tcgen05.ld"(%t1, %c0) : (!n64, index) -> !frag
  "tcgen05.store_fragment"(%x1, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %t5 = "tcgen05.tmem_buffer"() {name = "t5"} : () -> !n64
  "tcgen05.mma"(%t5, %sa, %sb64, %f) {kind = "f16"} : (!n64, !ta, !tb64, i1) -> ()
  %x2 = "tcgen05.ld"(%t2, %c0) : (!n32, index) -> !frag
  "tcgen05.store_fragment"(%x2, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %t6 = "tcgen05.tmem_buffer"() {name = "t6"} : () -> !n128
  "tcgen05.mma"(%t6, %sa, %sb128, %f) {kind = "f16"} : (!n128, !ta, !tb128, i1) -> ()
  %x3 = "tcgen05.ld"(%t3, %c0) : (!n96, index) -> !frag
  "tcgen05.store_fragment"(%x3, %C, %c0) {ld = 96 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %t7 = "tcgen05.tmem_buffer"() {name = "t7"} : () -> !n32
  "tcgen05.mma"(%t7, %sa, %sb32, %f) {kind = "f16"} : (!n32, !ta, !tb32, i1) -> ()
  %x4 = "tcgen05.ld"(%t4, %c0) : (!n32, index) -> !frag
  "tcgen05.store_fragment"(%x4, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %t8 = "tcgen05.tmem_buffer"() {name = "t8"} : () -> !n64
  "tcgen05.mma"(%t8, %sa, %sb64, %f) {kind = "f16"} : (!n64, !ta, !tb64, i1) -> ()
  %x5 = "tcgen05.ld"(%t5, %c0) : (!n64, index) -> !frag
  "tcgen05.store_fragment"(%x5, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %t9 = "tcgen05.tmem_buffer"() {name = "t9"} : () -> !n32
  "tcgen05.mma"(%t9, %sa, %sb32, %f) {kind = "f16"} : (!n32, !ta, !tb32, i1) -> ()
  %x6 = "tcgen05.ld"(%t6, %c0) : (!n128, index) -> !frag
  "tcgen05.store_fragment"(%x6, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x7 = "tcgen05.ld"(%t7, %c0) : (!n32, index) -> !frag
  "tcgen05.store_fragment"(%x7, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x8 = "tcgen05.ld"(%t8, %c0) : (!n64, index) -> !frag
  "tcgen05.store_fragment"(%x8, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %x9 = "tcgen05.ld"(%t9, %c0) : (!n32, index) -> !frag
  "tcgen05.store_fragment"(%x9, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
