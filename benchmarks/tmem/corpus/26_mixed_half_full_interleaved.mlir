// Many small buffers, half and full lanes interleaved: Layout F (M = 64) and Layout D
// (M = 128) accumulators whose lifetimes overlap in a chain. A half-lane buffer can pair
// with another half-lane buffer that lives at the same time; full-lane buffers need
// columns of their own. Where f2 starts, f1, d0 and f2 are live: 128 / 2 + 64 + 128 / 2
// = 192 columns, reached when f2 (and later f3) take the lane half f0 (and f1) used.
// EXPECT: lower bound 192, optimal 192 (derived above by hand)
!f = !tcgen05.tmem<[64, 128], f32>
!dd = !tcgen05.tmem<[128, 64], f32>
!ta64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!ta128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb128 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb64 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!fragf = !tcgen05.frag<[64, 32], f32>
!fragd = !tcgen05.frag<[128, 32], f32>
func.func @mixed_half_full_interleaved(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %fl = arith.constant false
  %a64 = "tcgen05.smem_buffer"() : () -> !ta64
  %a128 = "tcgen05.smem_buffer"() : () -> !ta128
  %b128 = "tcgen05.smem_buffer"() : () -> !tb128
  %b64 = "tcgen05.smem_buffer"() : () -> !tb64
  %f0 = "tcgen05.tmem_buffer"() {name = "f0"} : () -> !f
  "tcgen05.mma"(%f0, %a64, %b128, %fl) {kind = "f16"} : (!f, !ta64, !tb128, i1) -> ()
  %f1 = "tcgen05.tmem_buffer"() {name = "f1"} : () -> !f
  "tcgen05.mma"(%f1, %a64, %b128, %fl) {kind = "f16"} : (!f, !ta64, !tb128, i1) -> ()
  %x0 = "tcgen05.ld"(%f0, %c0) : (!f, index) -> !fragf
  "tcgen05.store_fragment"(%x0, %C, %c0) {ld = 128 : i64} : (!fragf, !llvm.ptr<1>, index) -> ()
  %d0 = "tcgen05.tmem_buffer"() {name = "d0"} : () -> !dd
  "tcgen05.mma"(%d0, %a128, %b64, %fl) {kind = "f16"} : (!dd, !ta128, !tb64, i1) -> ()
  %f2 = "tcgen05.tmem_buffer"() {name = "f2"} : () -> !f
  "tcgen05.mma"(%f2, %a64, %b128, %fl) {kind = "f16"} : (!f, !ta64, !tb128, i1) -> ()
  %x1 = "tcgen05.ld"(%f1, %c0) : (!f, index) -> !fragf
  "tcgen05.store_fragment"(%x1, %C, %c0) {ld = 128 : i64} : (!fragf, !llvm.ptr<1>, index) -> ()
  %f3 = "tcgen05.tmem_buffer"() {name = "f3"} : () -> !f
  "tcgen05.mma"(%f3, %a64, %b128, %fl) {kind = "f16"} : (!f, !ta64, !tb128, i1) -> ()
  %x2 = "tcgen05.ld"(%d0, %c0) : (!dd, index) -> !fragd
  "tcgen05.store_fragment"(%x2, %C, %c0) {ld = 64 : i64} : (!fragd, !llvm.ptr<1>, index) -> ()
  %x3 = "tcgen05.ld"(%f2, %c0) : (!f, index) -> !fragf
  "tcgen05.store_fragment"(%x3, %C, %c0) {ld = 128 : i64} : (!fragf, !llvm.ptr<1>, index) -> ()
  %d1 = "tcgen05.tmem_buffer"() {name = "d1"} : () -> !dd
  "tcgen05.mma"(%d1, %a128, %b64, %fl) {kind = "f16"} : (!dd, !ta128, !tb64, i1) -> ()
  %x4 = "tcgen05.ld"(%f3, %c0) : (!f, index) -> !fragf
  "tcgen05.store_fragment"(%x4, %C, %c0) {ld = 128 : i64} : (!fragf, !llvm.ptr<1>, index) -> ()
  %x5 = "tcgen05.ld"(%d1, %c0) : (!dd, index) -> !fragd
  "tcgen05.store_fragment"(%x5, %C, %c0) {ld = 64 : i64} : (!fragd, !llvm.ptr<1>, index) -> ()
  return
}
